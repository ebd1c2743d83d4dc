#include "reports/result.hpp"

#include "numerics/util/errors.hpp"

#include <climits>
#include <cmath>

namespace infoflow {

using nlohmann::json;

const char* grade_name(Grade g) {
  switch (g) {
    case Grade::Certified: return "certified";
    case Grade::Sampled: return "sampled";
    case Grade::Fitted: return "fitted";
    default: return "exact";
  }
}

const char* role_name(CheckRole r) {
  switch (r) {
    case CheckRole::Evidence: return "evidence";
    case CheckRole::Control: return "control";
    case CheckRole::SelfCheck: return "self-check";
    default: return "diagnostic";
  }
}

const char* claim_status_name(ClaimStatus s) {
  switch (s) {
    case ClaimStatus::Certified: return "certified";
    case ClaimStatus::Refuted: return "refuted";
    case ClaimStatus::Supported: return "supported";
    default: return "open";
  }
}

namespace {
CheckRole role_from_name(const std::string& s) {
  for (const CheckRole r : {CheckRole::Evidence, CheckRole::Control, CheckRole::SelfCheck, CheckRole::Diagnostic})
    if (s == role_name(r)) return r;
  throw InputError("role", "expected evidence, control, self-check or diagnostic, got '" + s + "'");
}
ClaimStatus claim_status_from_name(const std::string& s) {
  for (const ClaimStatus c : {ClaimStatus::Certified, ClaimStatus::Refuted, ClaimStatus::Supported, ClaimStatus::Open})
    if (s == claim_status_name(c)) return c;
  throw InputError("status", "expected certified, refuted, supported or open, got '" + s + "'");
}
Grade grade_from_name(const std::string& s) {
  if (s == "certified") return Grade::Certified;
  if (s == "sampled") return Grade::Sampled;
  if (s == "fitted") return Grade::Fitted;
  if (s == "exact") return Grade::Exact;
  // A misspelt grade in a baseline must not read as one.
  throw InputError("grade", "expected a grade certified, sampled, fitted or exact, got '" + s + "'");
}
// JSON has no infinities: an unbounded end is null.
json end_json(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double end_from(const json& j, double inf) { return j.is_null() ? inf : j.get<double>(); }
json interval_json(const Interval& i) { return json::array({end_json(i.lo), end_json(i.hi)}); }
Interval interval_from(const json& j) {
  const double inf = std::numeric_limits<double>::infinity();
  return Interval{end_from(j.at(0), -inf), end_from(j.at(1), inf)};
}
}  // namespace

Verdict SuiteResult::overall() const {
  for (const auto& f : facts)
    if (!f.holds) return Verdict::Fail;
  if (legacy) {
    // Results of schema result/1: every check and banded series counted, one-sided evidence aside.
    bool inconclusive = false;
    for (const auto& c : checks) {
      if (c.verdict == Verdict::Fail) return Verdict::Fail;
      inconclusive |= c.verdict == Verdict::Inconclusive && !c.one_sided;
    }
    for (const auto& s : series) {
      if (s.verdict == Verdict::Fail) return Verdict::Fail;
      inconclusive |= s.verdict == Verdict::Inconclusive && s.band.has_value() && !s.one_sided;
    }
    return inconclusive ? Verdict::Inconclusive : Verdict::Pass;
  }
  // A self-check that fails is a defect of the run: nothing it computed can be trusted.
  for (const auto& c : checks)
    if (c.role == CheckRole::SelfCheck && c.verdict == Verdict::Fail) return Verdict::Fail;
  for (const auto& s : series)
    if (s.role == CheckRole::SelfCheck && s.band && s.verdict == Verdict::Fail) return Verdict::Fail;
  bool inconclusive = false;
  for (const auto& c : claims) {
    if (c.status == ClaimStatus::Refuted) return Verdict::Fail;
    // Only claims decided by this suite's own evidence: another suite's evidence is that suite's verdict.
    bool local = false;
    for (const auto& e : c.evidence) local |= e.find('/') == std::string::npos;
    inconclusive |= local && c.status == ClaimStatus::Open;
  }
  return inconclusive ? Verdict::Inconclusive : Verdict::Pass;
}

Check check_from_fit(const std::string& id, const std::string& statement, const LineFit& fit, const Interval& band) {
  Check c;
  c.id = id;
  c.grade = Grade::Fitted;
  c.statement = statement;
  c.verdict = judge_interval(fit.interval, band);
  c.measured = {{"slope", fit.slope}, {"interval", interval_json(fit.interval)}, {"r2", fit.r2}, {"points", fit.n}};
  c.bound = {{"band", interval_json(band)}};
  return c;
}

json to_json(const LineFit& f) {
  return {{"n", f.n},
          {"slope", f.slope},
          {"intercept", f.intercept},
          {"slope_stderr", f.slope_stderr},
          {"r2", f.r2},
          {"t_interval", interval_json(f.t_interval)},
          {"bootstrap_interval", interval_json(f.bootstrap_interval)},
          {"interval", interval_json(f.interval)}};
}

namespace {
LineFit fit_from_json(const json& j) {
  LineFit f;
  if (!j.at("n").is_number_unsigned()) throw InputError("result", "fit.n: expected a whole number >= 0");
  f.n = j.at("n").get<std::size_t>();
  f.slope = j.at("slope").get<double>();
  f.intercept = j.at("intercept").get<double>();
  f.slope_stderr = j.at("slope_stderr").get<double>();
  f.r2 = j.at("r2").get<double>();
  f.t_interval = interval_from(j.at("t_interval"));
  f.bootstrap_interval = interval_from(j.at("bootstrap_interval"));
  f.interval = interval_from(j.at("interval"));
  return f;
}
}  // namespace

json to_json(const Series& s) {
  json points = json::array();
  for (std::size_t i = 0; i < s.x.size(); ++i) points.push_back({s.x[i], s.y[i]});
  json j{{"id", s.id}, {"title", s.title}, {"x_label", s.x_label}, {"y_label", s.y_label},
         {"log_log", s.log_log}, {"points", points}};
  if (!s.y_interval.empty()) {
    json intervals = json::array();
    for (const auto& i : s.y_interval) intervals.push_back(interval_json(i));
    j["y_intervals"] = intervals;
  }
  // A series without a band is descriptive: it has no verdict.
  j["verdict"] = s.band ? json(verdict_name(s.verdict)) : json(nullptr);
  j["fit"] = s.fit ? to_json(*s.fit) : json(nullptr);
  j["exponent"] = s.exponent ? json{{"value", s.exponent->value}, {"source", s.exponent->source}} : json(nullptr);
  if (s.exponent && s.exponent->intercept) j["exponent"]["intercept"] = *s.exponent->intercept;
  j["band"] = s.band ? interval_json(*s.band) : json(nullptr);
  if (!s.note.empty()) j["note"] = s.note;
  if (s.one_sided) j["one_sided"] = true;
  j["role"] = role_name(s.role);
  if (!s.route.empty()) j["route"] = s.route;
  if (s.points_label != "measured") j["points_label"] = s.points_label;
  if (s.overlay) {
    json pts = json::array();
    for (std::size_t i = 0; i < s.overlay->x.size(); ++i) pts.push_back({s.overlay->x[i], s.overlay->y[i]});
    j["overlay"] = {{"label", s.overlay->label}, {"points", pts}};
  }
  if (s.marker) j["marker"] = {{"x", s.marker->first}, {"label", s.marker->second}};
  return j;
}

namespace {
json tables_json(const std::vector<Table>& tables) {
  json out = json::array();
  for (const auto& t : tables) out.push_back({{"title", t.title}, {"columns", t.columns}, {"rows", t.rows}});
  return out;
}
}  // namespace

json to_json(const SuiteResult& r) {
  json checks = json::array();
  for (const auto& c : r.checks)
  {
    json cj{{"id", c.id}, {"grade", grade_name(c.grade)}, {"verdict", verdict_name(c.verdict)},
            {"statement", c.statement}, {"measured", c.measured}, {"bound", c.bound}};
    if (!c.bounds.empty()) cj["bounds"] = {{"direction", c.bounds_are_upper ? "upper" : "lower"}, {"values", c.bounds}};
    if (c.one_sided) cj["one_sided"] = true;
    cj["role"] = role_name(c.role);
    if (!c.route.empty()) cj["route"] = c.route;
    if (!c.claimed_by.empty()) cj["claimed_by"] = c.claimed_by;
    if (!c.compared_by.empty()) cj["compared_by"] = c.compared_by;
    if (c.compared >= 0) cj["compared"] = c.compared;
    if (!c.control_of.empty()) cj["control_of"] = c.control_of;
    if (!c.figure.empty()) cj["figure"] = c.figure;
    checks.push_back(cj);
  }
  json claims = json::array();
  for (const auto& c : r.claims)
    claims.push_back({{"id", c.id}, {"source", c.source}, {"statement", c.statement}, {"scope", c.scope},
                      {"evidence", c.evidence}, {"certifiable", c.certifiable}, {"undecided", c.undecided},
                      {"figure_check", c.figure_check}, {"plot", c.plot}, {"status", claim_status_name(c.status)},
                      {"reason", c.reason}, {"figure", c.figure}});
  json series = json::array();
  for (const auto& s : r.series) series.push_back(to_json(s));
  json facts = json::array();
  for (const auto& f : r.facts)
    facts.push_back({{"id", f.id}, {"statement", f.statement}, {"measured", f.measured}, {"holds", f.holds}});
  return {{"schema", kResultSchema},     {"suite", r.suite},       {"title", r.title},
          {"profile", r.profile},       {"seed", r.seed},         {"build_commit", r.build_commit},
          {"command", r.command},       {"statement", r.statement},   {"elapsed_seconds", r.elapsed_seconds},
          {"verdict", verdict_name(r.overall())},
          {"claims", claims},
          {"checks", checks},           {"facts", facts},         {"series", series},       {"notes", r.notes},
          {"tables", tables_json(r.tables)}};
}

SuiteResult suite_result_from_json(const json& j) {
  try {
    if (j.at("schema") != kResultSchema && j.at("schema") != kLegacyResultSchema)
      throw InputError("result", std::string("expected schema ") + kResultSchema + " (or " + kLegacyResultSchema + ")");
    SuiteResult r;
    r.legacy = j.at("schema") == kLegacyResultSchema;
    r.suite = j.at("suite").get<std::string>();
    r.title = j.value("title", r.suite);
    r.profile = j.at("profile").get<std::string>();
    if (!j.at("seed").is_number_unsigned()) throw InputError("result", "seed: expected a whole number >= 0");
    r.seed = j.at("seed").get<std::uint64_t>();
    r.build_commit = j.value("build_commit", "");
    r.command = j.value("command", "");
    r.statement = j.value("statement", "");
    r.elapsed_seconds = j.value("elapsed_seconds", 0.0);
    for (const auto& c : j.at("checks")) {
      Check k;
      k.id = c.at("id").get<std::string>();
      k.grade = grade_from_name(c.at("grade").get<std::string>());
      k.verdict = verdict_from_name(c.at("verdict").get<std::string>());
      k.statement = c.value("statement", "");
      k.measured = c.value("measured", json());
      k.bound = c.value("bound", json());
      if (c.contains("bounds")) {
        k.bounds_are_upper = c["bounds"].value("direction", "upper") == "upper";
        k.bounds = c["bounds"].at("values").get<std::map<std::string, double>>();
      }
      k.one_sided = c.value("one_sided", false);
      k.role = role_from_name(c.value("role", "evidence"));
      k.route = c.value("route", "");
      k.claimed_by = c.value("claimed_by", "");
      k.compared_by = c.value("compared_by", "");
      if (c.contains("compared")) {
        const json& n = c.at("compared");
        if (!n.is_number_integer() || (n.is_number_unsigned() && n.get<unsigned long long>() > LONG_MAX) ||
            n.get<long long>() < -1)
          throw InputError("result", "check " + k.id + ": compared: expected a whole number >= -1");
        k.compared = static_cast<long>(n.get<long long>());
      }
      k.control_of = c.value("control_of", "");
      k.figure = c.value("figure", "");
      r.checks.push_back(k);
    }
    for (const auto& s : j.at("series")) {
      Series t;
      t.id = s.at("id").get<std::string>();
      t.title = s.value("title", t.id);
      t.x_label = s.value("x_label", "x");
      t.y_label = s.value("y_label", "y");
      t.log_log = s.value("log_log", true);
      for (const auto& p : s.at("points")) {
        t.x.push_back(p.at(0).get<double>());
        t.y.push_back(p.at(1).get<double>());
      }
      if (s.contains("y_intervals")) {
        for (const auto& i : s["y_intervals"]) t.y_interval.push_back(interval_from(i));
        if (t.y_interval.size() != t.x.size())
          throw InputError("result", "series '" + t.id + "': expected one y interval per point");
      }
      if (!s.at("fit").is_null()) t.fit = fit_from_json(s.at("fit"));
      if (!s.at("exponent").is_null())
      {
        t.exponent = ExponentRef{s["exponent"].at("value").get<double>(), s["exponent"].at("source").get<std::string>()};
        if (s["exponent"].contains("intercept")) t.exponent->intercept = s["exponent"]["intercept"].get<double>();
      }
      if (!s.at("band").is_null()) t.band = interval_from(s.at("band"));
      if (!s.at("verdict").is_null()) t.verdict = verdict_from_name(s.at("verdict").get<std::string>());
      t.note = s.value("note", "");
      t.one_sided = s.value("one_sided", false);
      t.role = role_from_name(s.value("role", "self-check"));
      t.route = s.value("route", "");
      t.points_label = s.value("points_label", "measured");
      if (s.contains("overlay")) {
        Series::Overlay o;
        o.label = s["overlay"].value("label", "");
        for (const auto& p : s["overlay"].at("points")) {
          o.x.push_back(p.at(0).get<double>());
          o.y.push_back(p.at(1).get<double>());
        }
        t.overlay = o;
      }
      if (s.contains("marker"))
        t.marker = std::make_pair(s["marker"].at("x").get<double>(), s["marker"].value("label", ""));
      r.series.push_back(t);
    }
    // A result/1 file has no claims; any it carries were not settled by a run of this code, so none is read.
    for (const auto& c : r.legacy ? json::array() : j.value("claims", json::array())) {
      Claim k;
      k.id = c.at("id").get<std::string>();
      k.source = c.value("source", "");
      k.statement = c.value("statement", "");
      k.scope = c.value("scope", "");
      k.evidence = c.value("evidence", std::vector<std::string>{});
      k.certifiable = c.value("certifiable", false);
      k.undecided = c.value("undecided", "");
      k.figure_check = c.value("figure_check", "");
      k.plot = c.value("plot", "");
      k.status = claim_status_from_name(c.value("status", "open"));
      k.reason = c.value("reason", "");
      k.figure = c.value("figure", "");
      r.claims.push_back(std::move(k));
    }
    for (const auto& f : j.value("facts", json::array()))
      r.facts.push_back(Fact{f.at("id").get<std::string>(), f.value("statement", ""), f.value("measured", json()),
                             f.at("holds").get<bool>()});
    for (const auto& n : j.value("notes", json::array())) r.notes.push_back(n.get<std::string>());
    for (const auto& t : j.value("tables", json::array()))
      r.tables.push_back(Table{t.at("title").get<std::string>(), t.at("columns").get<std::vector<std::string>>(),
                               t.at("rows").get<std::vector<std::vector<std::string>>>()});
    return r;
  } catch (const json::exception& e) {
    throw InputError("result", std::string("malformed result JSON: ") + e.what());
  }
}

json without_timings(json j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      if (it.key() == "elapsed_seconds" || it.key() == "timings") it = j.erase(it);
      else {
        it.value() = without_timings(it.value());
        ++it;
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) v = without_timings(v);
  }
  return j;
}

}  // namespace infoflow
