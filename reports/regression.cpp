#include "reports/regression.hpp"

#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "reports/claims.hpp"
#include "reports/report_writer.hpp"
#include "reports/text_format.hpp"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace infoflow {

namespace {

std::string num(double v) { return format_number(v, 6); }
double half_width(const Interval& i) { return 0.5 * (i.hi - i.lo); }

}  // namespace

int RegressionReport::regressions() const {
  int n = 0;
  for (const auto& i : items) n += i.regression;
  return n;
}

std::string RegressionReport::table() const {
  std::ostringstream o;
  o << std::left << std::setw(10) << "status" << std::setw(10) << "kind" << std::setw(24) << "suite" << std::setw(60) << "id"
    << std::setw(26) << "baseline" << "current\n";
  for (const auto& i : items)
    o << std::left << std::setw(10) << (i.regression ? "REGRESSED" : "ok") << std::setw(10) << i.kind << std::setw(24)
      << i.suite << std::setw(60) << i.id << std::setw(26) << i.baseline << i.current
      << (i.detail.empty() ? "" : "  (" + i.detail + ")") << "\n";
  o << regressions() << " regression(s) in " << items.size() << " comparisons\n";
  return o.str();
}

std::string RegressionReport::junit_xml() const {
  JUnitSuite suite{"regress", {}, -1.0};
  for (const auto& i : items)
    suite.cases.push_back({i.suite, i.kind + ":" + i.id,
                           i.regression ? JUnitCase::Outcome::Failed : JUnitCase::Outcome::Passed,
                           "baseline " + i.baseline + ", current " + i.current + " " + i.detail});
  return infoflow::junit_xml("infoflow-verify regress", {suite});
}

RegressionReport compare_results(const std::vector<SuiteResult>& baseline, const std::vector<SuiteResult>& current) {
  RegressionReport rep;
  std::map<std::string, const SuiteResult*> cur;
  for (const auto& r : current) cur[r.suite] = &r;
  for (const auto& b : baseline) {
    if (!cur.count(b.suite)) {
      rep.items.push_back({"missing", b.suite, "(suite)", "present", "missing", true, "suite not in the current results"});
      continue;
    }
    const SuiteResult& c = *cur[b.suite];
    // Not a regression by itself, but every difference below may be the code's, not the machine's.
    if (b.build_commit != c.build_commit)
      rep.items.push_back({"commit", b.suite, "(build)", b.build_commit, c.build_commit, false,
                           "baseline and current runs come from different builds"});
    // Claims: a status that moved backwards (certified -> anything else, supported -> open or refuted, open ->
    // refuted), or a claim no longer addressed, is a regression; one that moved forwards is reported.
    std::map<std::string, const Claim*> cclaims;
    for (const auto& k : c.claims) cclaims[k.id] = &k;
    for (const auto& bk : b.claims) {
      const Claim* ck = cclaims.count(bk.id) ? cclaims[bk.id] : nullptr;
      const bool lost = !ck || claim_regressed(bk.status, ck->status);
      rep.items.push_back({"claim", b.suite, bk.id, claim_status_name(bk.status), ck ? claim_status_name(ck->status) : "missing",
                           lost, ck ? ck->reason : "claim no longer addressed"});
    }
    std::map<std::string, const Check*> cchecks;
    for (const auto& k : c.checks) cchecks[k.id] = &k;
    for (const auto& bk : b.checks) {
      const Check* ck = cchecks.count(bk.id) ? cchecks[bk.id] : nullptr;
      const std::string now = ck ? verdict_name(ck->verdict) : "missing";
      // A pass that is no longer a pass, or anything that now fails and did not before. Controls (expected not to
      // pass; what one changes shows in its claim's status) and diagnostics (never a verdict) are reported only.
      const bool watched = !ck || (ck->role != CheckRole::Control && ck->role != CheckRole::Diagnostic);
      const bool lost = watched && ((bk.verdict == Verdict::Pass && (!ck || ck->verdict != Verdict::Pass)) ||
                                    (ck && ck->verdict == Verdict::Fail && bk.verdict != Verdict::Fail));
      // A verdict can move because the check did (a control added, a band changed): still a regression until the
      // baseline is renewed on purpose, but the reader is told which of the two moved.
      const bool check_changed = ck && (ck->statement != bk.statement || ck->bound != bk.bound);
      rep.items.push_back({"verdict", b.suite, bk.id, verdict_name(bk.verdict), now, lost,
                           lost && check_changed ? "the check itself changed (statement or bound); renew the "
                                                   "baseline if the change is intended"
                                                 : ""});
      if (!ck) continue;
      for (const auto& [key, bv] : bk.bounds) {
        const auto it = ck->bounds.find(key);
        if (it == ck->bounds.end()) {
          rep.items.push_back({"bound", b.suite, bk.id + "[" + key + "]", num(bv), "missing", true, "bound no longer computed"});
          continue;
        }
        const double cv = it->second;
        const bool looser = bk.bounds_are_upper ? cv > bv * (1 + 1e-9) + 1e-300 : cv < bv * (1 - 1e-9);
        rep.items.push_back({"bound", b.suite, bk.id + "[" + key + "]", num(bv), num(cv), looser,
                             looser ? (bk.bounds_are_upper ? "upper bound grew" : "lower bound shrank") : ""});
      }
    }
    // A check that is new and fails is a regression too.
    std::set<std::string> known;
    for (const auto& bk : b.checks) known.insert(bk.id);
    for (const auto& ck : c.checks)
      if (!known.count(ck.id) && ck.verdict == Verdict::Fail && ck.role != CheckRole::Control &&
          ck.role != CheckRole::Diagnostic)
        rep.items.push_back({"verdict", b.suite, ck.id, "absent", "fail", true, "a new check fails"});
    std::map<std::string, const Series*> cseries;
    for (const auto& s : c.series) cseries[s.id] = &s;
    for (const auto& bs : b.series) {
      const Series* cs = cseries.count(bs.id) ? cseries[bs.id] : nullptr;
      if (bs.band) {
        const std::string now = cs ? verdict_name(cs->verdict) : "missing";
        rep.items.push_back({"verdict", b.suite, "series:" + bs.id, verdict_name(bs.verdict), now,
                             bs.verdict == Verdict::Pass && (!cs || cs->verdict != Verdict::Pass), ""});
      }
      if (!bs.fit) continue;
      if (!cs || !cs->fit) {
        rep.items.push_back({"exponent", b.suite, bs.id, num(bs.fit->slope), "missing", true, "fit no longer computed"});
        continue;
      }
      const double shift = std::fabs(cs->fit->slope - bs.fit->slope);
      const double combined = half_width(bs.fit->interval) + half_width(cs->fit->interval);
      // With an unbounded interval no shift is significant: nothing to detect.
      const bool moved = std::isfinite(combined) && shift > combined;
      rep.items.push_back({"exponent", b.suite, bs.id, num(bs.fit->slope), num(cs->fit->slope), moved,
                           moved ? "shift " + num(shift) + " > combined half-widths " + num(combined) : ""});
    }
  }
  return rep;
}

std::vector<SuiteResult> load_results(const std::string& path, const std::string& argument) {
  namespace fs = std::filesystem;
  std::string file = path;
  if (fs::is_directory(path)) {
    if (fs::exists(fs::path(path) / "results.json")) file = (fs::path(path) / "results.json").string();
    else {
      try {
        return collect_results(path).results;
      } catch (const InputError& e) {
        throw InputError(argument, e.expectation());
      }
    }
  }
  const nlohmann::json j = read_json_file(file, argument);
  std::vector<SuiteResult> out;
  try {
    if (j.value("schema", "") == "infoflow-verify/results/1") {
      for (const auto& s : j.at("suites")) out.push_back(suite_result_from_json(s));
    } else {
      out.push_back(suite_result_from_json(j));
    }
  } catch (const InputError& e) {
    throw InputError(argument, "'" + file + "': " + e.expectation());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(argument, "'" + file + "': malformed results (" + std::string(e.what()) + ")");
  }
  return out;
}

}  // namespace infoflow
