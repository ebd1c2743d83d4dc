#include "reports/report_writer.hpp"

#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "reports/claims.hpp"
#include "reports/mutation_table.hpp"
#include "reports/svg_plot.hpp"
#include "reports/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include <unistd.h>

namespace infoflow {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Text helpers

std::string base64(const std::string& in) {
  static const char* tbl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {tbl[v >> 18], tbl[(v >> 12) & 63], tbl[(v >> 6) & 63], tbl[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {tbl[v >> 18], tbl[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {tbl[v >> 18], tbl[(v >> 12) & 63], tbl[(v >> 6) & 63], '='};
  }
  return out;
}

std::string num(double v, int digits = 4) { return format_number(v, digits); }
std::string html(const std::string& s) { return xml_escape(s); }
// Text from a result as Markdown that stays text: no raw HTML, no table cell broken by '|' or a newline, no
// emphasis or code span opened by it.
std::string md(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '|': case '\\': case '`': case '*': case '_': case '[': case ']': out += std::string("\\") + c; break;
      case '\n': case '\r': out += ' '; break;
      default: out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
  }
  return out;
}
std::string interval_text(const Interval& i) { return "[" + num(i.lo) + ", " + num(i.hi) + "]"; }

// A JSON value as short readable text: numbers with at most 6 significant digits, strings bare, objects as
// "key: value; ...", at most `limit` characters.
std::string readable(const json& j, std::size_t limit = 160) {
  std::string out;
  const auto add = [&](const json& v, const auto& self) -> void {
    if (out.size() > limit) return;
    if (v.is_number_float()) out += format_number(v.get<double>(), 6);
    else if (v.is_number() || v.is_boolean()) out += v.dump();
    else if (v.is_string()) out += v.get<std::string>();
    else if (v.is_null()) out += "-";
    else if (v.is_array()) {
      out += "[";
      for (std::size_t i = 0; i < v.size() && out.size() <= limit; ++i) {
        if (i) out += ", ";
        self(v[i], self);
      }
      out += "]";
    } else {
      bool first = true;
      for (const auto& [k, x] : v.items()) {
        if (out.size() > limit) break;
        out += (first ? "" : "; ") + k + ": ";
        first = false;
        self(x, self);
      }
    }
  };
  add(j, add);
  return out.size() > limit ? first_code_points(out, limit) + "..." : out;
}

// Rows: an array of objects, shown as their own table.
bool is_rows(const json& j) { return j.is_array() && !j.empty() && j[0].is_object(); }

std::vector<std::string> row_columns(const json& rows) {
  std::vector<std::string> cols;
  for (const auto& r : rows)
    for (const auto& [k, v] : r.items())
      if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  return cols;
}

std::string anchor(const std::string& suite, const std::string& id = "") {
  return file_safe_name(id.empty() ? suite : suite + "--" + id);
}

// ---------------------------------------------------------------------------------------------------------------
// Counts for the summary

struct Counts {
  int pass = 0, fail = 0, inconclusive = 0;  // evidence checks
  int self_pass = 0, self_fail = 0;
};
Counts count_checks(const SuiteResult& r) {
  Counts c;
  for (const auto& k : r.checks) {
    if (k.role == CheckRole::Evidence)
      (k.verdict == Verdict::Pass ? c.pass : k.verdict == Verdict::Fail ? c.fail : c.inconclusive)++;
    if (k.role == CheckRole::SelfCheck) (k.verdict == Verdict::Fail ? c.self_fail : c.self_pass)++;
  }
  for (const auto& s : r.series)
    if (s.band && s.role == CheckRole::SelfCheck) (s.verdict == Verdict::Fail ? c.self_fail : c.self_pass)++;
  return c;
}

std::map<ClaimStatus, int> count_claims(const SuiteResult& r) {
  std::map<ClaimStatus, int> m;
  for (const auto& c : r.claims) ++m[c.status];
  return m;
}

std::string claims_summary(const SuiteResult& r) {
  if (r.legacy) return "none: written before claims (result/1)";
  if (r.claims.empty()) return "none (self-checks only)";
  std::string s;
  for (const auto& [status, n] : count_claims(r)) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + claim_status_name(status);
  return s;
}

std::string verdict_words(const SuiteResult& r) {
  switch (r.overall()) {
    case Verdict::Pass:
      return r.claims.empty() ? "no defect: every self-check passed (this suite decides no claim of the paper)"
                              : "consistent with the claims it decides: none is open or refuted";
    case Verdict::Fail: return "INCONSISTENT or defective: a claim is refuted, or a self-check or fact failed";
    default: return "inconclusive: a claim this suite decides is still open";
  }
}

std::string series_fit_text(const Series& s) {
  if (!s.fit) return "descriptive series (no fit)";
  return "slope " + num(s.fit->slope) + ", 95% interval " + interval_text(s.fit->interval) + " (t " +
         interval_text(s.fit->t_interval) + ", bootstrap " + interval_text(s.fit->bootstrap_interval) + "), R² " +
         num(s.fit->r2, 5) + ", " + std::to_string(s.fit->n) + " points";
}

std::string plot_file_name(const SuiteResult& r, const Series& s) { return file_safe_name(r.suite + "--" + s.id) + ".svg"; }

JUnitCase junit_case(const SuiteResult& r, const std::string& id, Verdict v, const std::string& msg) {
  using O = JUnitCase::Outcome;
  if (v == Verdict::Fail) return {r.suite, id, O::Failed, msg};
  if (v == Verdict::Inconclusive) return {r.suite, id, O::Skipped, "inconclusive: " + msg};
  return {r.suite, id, O::Passed, ""};
}

std::string suites_junit_xml(const std::vector<SuiteResult>& results) {
  std::vector<JUnitSuite> suites;
  for (const auto& r : results) {
    JUnitSuite s{r.suite, {}, r.elapsed_seconds};
    for (const auto& c : r.claims) {
      const Verdict v = c.status == ClaimStatus::Refuted ? Verdict::Fail
                        : c.status == ClaimStatus::Open  ? Verdict::Inconclusive
                                                         : Verdict::Pass;
      s.cases.push_back(junit_case(r, "claim:" + c.id, v, std::string(claim_status_name(c.status)) + ": " + c.reason));
    }
    for (const auto& k : r.checks)
      if (k.role != CheckRole::Diagnostic)
        s.cases.push_back(junit_case(r, std::string(role_name(k.role)) + ":" + k.id, k.verdict,
                                     k.statement + " measured=" + readable(k.measured, 240)));
    suites.push_back(std::move(s));
  }
  return junit_xml("infoflow-verify", suites);
}

// The series a claim's plot names ("SUITE/ID" or an id in the claim's own suite).
const Series* claim_plot(const std::vector<SuiteResult>& results, const std::string& suite, const std::string& plot,
                         const SuiteResult** owner) {
  if (plot.empty()) return nullptr;
  const auto slash = plot.find('/');
  const std::string suite_id = slash == std::string::npos ? suite : plot.substr(0, slash);
  const std::string id = slash == std::string::npos ? plot : plot.substr(slash + 1);
  for (const auto& r : results)
    if (r.suite == suite_id)
      for (const auto& s : r.series)
        if (s.id == id) {
          *owner = &r;
          return &s;
        }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// The page

constexpr const char* kStyle =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1320px;margin:1em auto;padding:0 16px;"
    "color:#222;line-height:1.35}h1{font-size:24px;margin:.3em 0}h2{font-size:20px;margin:1.2em 0 .4em}"
    "h3{font-size:16px;margin:1em 0 .3em}table{border-collapse:collapse;margin:.5em 0;font-size:13.5px;width:100%}"
    "td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left;overflow-wrap:anywhere}"
    "th{background:#f3f3f3}code{font-size:12.5px;overflow-wrap:anywhere;white-space:pre-wrap}"
    ".badge{display:inline-block;padding:1px 7px;border-radius:10px;font-weight:600;font-size:12px;white-space:nowrap}"
    ".certified{background:#d7f0dc;color:#145a22}.supported{background:#e1edf9;color:#164a7a}"
    ".open{background:#f4ecd0;color:#6b5400}.refuted{background:#f8d7da;color:#8a1020}"
    ".pass{color:#176b1f;font-weight:bold}.fail{color:#b00020;font-weight:bold}.inconclusive{color:#8a6d00;font-weight:bold}"
    "figure{margin:.4em 0}figure img{max-width:100%;height:auto;border:1px solid #ddd;box-sizing:border-box}details{margin:.35em 0}"
    "summary{cursor:pointer;font-weight:600}.small{font-size:12.5px;color:#555}.stmt{font-size:12.5px;color:#444}"
    ".first{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.first>.ledger{flex:1 1 700px;min-width:0}"
    ".first>figure{flex:0 0 470px;max-width:100%}#toc li{margin:.1em 0}";

// The page checks itself once loaded (images decoded, ledger rows, script errors, the page's width and elements
// whose text overflows their box) and records the outcome on <html data-render-check>; the browser test reads it.
constexpr const char* kSelfCheckScript =
    "<script>var infoflowErrors=0;window.addEventListener('error',function(){infoflowErrors++;});"
    "window.addEventListener('load',function(){var im=document.images,ok=0;for(var i=0;i<im.length;i++)"
    "{if(im[i].complete&&im[i].naturalWidth>0)ok++;}var rows=document.querySelectorAll('#ledger tr.claim').length;"
    "var over=0,first='',els=document.querySelectorAll('td,th,p,li,h1,h2,h3,summary,figure');for(var j=0;j<els.length;j++)"
    "{var e=els[j];if(e.offsetParent!==null&&e.scrollWidth>e.clientWidth+1){over++;if(!first)first=e.tagName+':'+"
    "e.textContent.slice(0,40).replace(/[^A-Za-z0-9.,:()=-]/g,'_');}}"
    "document.documentElement.setAttribute('data-render-check','images='+ok+'/'+im.length+' ledger-rows='+rows+"
    "' errors='+infoflowErrors+' page-width='+document.documentElement.scrollWidth+' overflow='+over+"
    "' first-overflow='+first);});</script>\n";

class ReportPage {
 public:
  ReportPage(const std::vector<SuiteResult>& results, const std::vector<SuiteResult>* baseline, const std::string& out_dir,
             ReportFiles& files)
      : results_(results), baseline_(baseline), out_dir_(out_dir), files_(files) {}

  void write() {
    preamble();
    first_screen();
    contents();
    for (const auto& r : results_) suite(r);
    mutation_table();
    html_ << "</body></html>\n";
  }
  std::string markdown() const { return md_.str(); }
  std::string page() const { return html_.str(); }

 private:
  void preamble() {
    md_ << "# infoflow-verify report\n\n";
    html_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>infoflow-verify report</title>\n"
          << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>" << kStyle
          << "</style></head><body>\n"
          << kSelfCheckScript << "<h1>infoflow-verify report</h1>\n";
    std::string run;
    if (!results_.empty()) {
      const SuiteResult& r = results_.front();
      run = "Profile " + r.profile + ", seed " + std::to_string(r.seed) + ", build " + r.build_commit + ". ";
    }
    const std::string legend =
        "Statuses: certified (interval arithmetic over a stated class or domain), refuted (a certified or exact "
        "counterexample), supported (evidence that could have refuted it did not), open (nothing here decides it). "
        "Fits can support a claim; they never prove a lower bound. The mathematics, with proofs: docs/theory.md, "
        "docs/lower-bounds.md; the ledger's rules: docs/claims.md.";
    md_ << run << legend << "\n\n";
    html_ << "<p class=\"small\">" << html(run + legend) << "</p>\n";
  }

  // The ledger and, beside it, the certified separation plot.
  void first_screen() {
    const auto rows = claims_ledger(results_, baseline_);
    md_ << "## Claims of the paper\n\n| status | claim | figure | " << (baseline_ ? "baseline" : "") << " |\n|---|---|---|---|\n";
    html_ << "<div class=\"first\"><div class=\"ledger\"><h2>Claims of the paper</h2>\n<table id=\"ledger\"><colgroup>"
             "<col style=\"width:13%\"><col style=\"width:47%\"><col style=\"width:29%\"><col style=\"width:11%\">"
             "</colgroup><tr><th>status</th><th>claim</th><th>figure</th><th>"
          << (baseline_ ? "baseline" : "since") << "</th></tr>\n";
    for (const auto& row : rows) {
      const Claim& c = row.claim;
      const std::string changed = !baseline_              ? "-"
                                  : row.baseline_status.empty() ? "new"
                                  : row.baseline_status == claim_status_name(c.status) ? "same"
                                                                                      : row.baseline_status + " → " + claim_status_name(c.status);
      md_ << "| **" << claim_status_name(c.status) << "** | " << md(c.source + ": " + c.statement) << " | "
          << md(c.figure.empty() ? "-" : c.figure) << " | " << md(changed) << " |\n";
      html_ << "<tr class=\"claim\"><td><span class=\"badge " << claim_status_name(c.status) << "\">"
            << claim_status_name(c.status) << "</span></td><td><a href=\"#" << anchor(row.suite, "claim-" + c.id) << "\"><b>"
            << html(c.source) << "</b></a><div class=\"stmt\">" << html(c.statement) << "</div></td><td>"
            << html(c.figure.empty() ? "-" : c.figure) << "</td><td>" << html(changed) << "</td></tr>\n";
    }
    if (rows.empty()) {
      md_ << "| - | no claim (no suite that decides one ran) | - | - |\n";
      html_ << "<tr><td colspan=\"4\">No claim: no suite that decides one ran.</td></tr>\n";
    }
    html_ << "</table></div>\n";
    separation_plot(rows);
    html_ << "</div>\n";
  }

  void separation_plot(const std::vector<LedgerRow>& rows) {
    for (const auto& row : rows) {
      if (row.claim.id != "thm1.depth-separation-LR") continue;
      const SuiteResult* owner = nullptr;
      const Series* s = claim_plot(results_, row.suite, row.claim.plot, &owner);
      if (!s) return;
      const SeriesPlot plot = plot_series_svg(*s);
      if (!plot.svg) return;
      md_ << "\n![" << md(s->title) << "](plots/" << plot_file_name(*owner, *s) << ")\n";
      html_ << "<figure><img alt=\"" << html(s->title) << "\" src=\"data:image/svg+xml;base64," << base64(*plot.svg)
            << "\"><figcaption class=\"small\">The headline: " << html(row.claim.figure) << ". Certified class lower bound "
            << "(arb, every single-layer model of C1(1, 1)) against the two-layer construction's L*R.</figcaption></figure>\n";
      return;
    }
  }

  void contents() {
    md_ << "\n## Suites\n\n| suite | verdict | claims | evidence pass / fail / inconclusive | self-checks pass / fail |\n"
           "|---|---|---|---|---|\n";
    html_ << "<h2>Suites</h2>\n<table id=\"toc\"><tr><th>suite</th><th>verdict</th><th>claims</th><th>evidence: pass / "
             "fail / inconclusive</th><th>self-checks: pass / fail</th><th>elapsed (s)</th></tr>\n";
    for (const auto& r : results_) {
      const Counts c = count_checks(r);
      const std::string v = verdict_name(r.overall());
      md_ << "| " << md(r.title + " (" + r.suite + ")") << " | **" << v << "** | " << claims_summary(r) << " | " << c.pass << " / "
          << c.fail << " / " << c.inconclusive << " | " << c.self_pass << " / " << c.self_fail << " |\n";
      html_ << "<tr class=\"suite\"><td><a href=\"#" << anchor(r.suite) << "\">" << html(r.title) << "</a></td><td class=\"" << v
            << "\">" << v << "</td><td>" << html(claims_summary(r)) << "</td><td>" << c.pass << " / " << c.fail << " / "
            << c.inconclusive << "</td><td>" << c.self_pass << " / " << c.self_fail << "</td><td>" << num(r.elapsed_seconds, 3)
            << "</td></tr>\n";
    }
    html_ << "</table>\n";
  }

  void suite(const SuiteResult& r) {
    const std::string v = verdict_name(r.overall());
    md_ << "\n## " << md(r.title + " (" + r.suite + ")") << "\n\nOverall: **" << v << "**: " << verdict_words(r) << ".\n\n";
    md_ << "Profile " << md(r.profile) << ", seed " << r.seed << ", build " << md(r.build_commit) << ", elapsed "
        << num(r.elapsed_seconds, 3) << " s. Reproduce: " << md(r.command) << "\n\n";
    if (!r.statement.empty()) md_ << md(r.statement) << "\n";
    html_ << "<section id=\"" << anchor(r.suite) << "\"><h2>" << html(r.title) << "</h2>\n<p>Overall: <span class=\"" << v
          << "\">" << v << "</span>: " << html(verdict_words(r)) << ". <span class=\"small\">Profile " << html(r.profile)
          << ", seed " << r.seed << ", build " << html(r.build_commit) << ", " << num(r.elapsed_seconds, 3)
          << " s. Reproduce: <code>" << html(r.command) << "</code></span></p>\n";
    if (!r.statement.empty())
      html_ << "<details><summary>What this suite checks</summary><p>" << html(r.statement) << "</p></details>\n";
    claims(r);
    checks(r, CheckRole::Evidence, "Evidence", "", true);
    checks(r, CheckRole::Control, "Controls", "Each control runs an evidence check on an input that must not show the "
                                              "effect; a control that passes leaves its check undecided.", true);
    checks(r, CheckRole::SelfCheck, "Self-checks", "They guard the toolkit's own code (a proved identity recomputed, a "
                                                   "property true by construction, a comparison with the code's own "
                                                   "constants): never evidence for a claim; one that fails is a defect.", false);
    checks(r, CheckRole::Diagnostic, "Diagnostics", "Reported for the reader (one-sided fits, per-model figures); never in "
                                                    "a verdict.", false);
    facts(r);
    tables(r);
    series(r);
    notes(r);
    check_rows(r);
    html_ << "</section>\n";
  }

  void claims(const SuiteResult& r) {
    if (r.claims.empty()) return;
    md_ << "\n### Claims\n\n| status | claim | scope | figure | why |\n|---|---|---|---|---|\n";
    html_ << "<h3>Claims</h3>\n<table><colgroup><col style=\"width:10%\"><col style=\"width:28%\"><col style=\"width:27%\">"
             "<col style=\"width:17%\"><col style=\"width:18%\"></colgroup><tr><th>status</th><th>claim</th><th>scope</th>"
             "<th>figure</th><th>why</th></tr>\n";
    for (const auto& c : r.claims) {
      const std::string scope = c.evidence.empty() ? c.undecided : c.scope;
      md_ << "| **" << claim_status_name(c.status) << "** | " << md(c.source + ": " + c.statement) << " | " << md(scope) << " | "
          << md(c.figure.empty() ? "-" : c.figure) << " | " << md(c.reason) << " |\n";
      html_ << "<tr id=\"" << anchor(r.suite, "claim-" + c.id) << "\"><td><span class=\"badge " << claim_status_name(c.status)
            << "\">" << claim_status_name(c.status) << "</span></td><td><b>" << html(c.source) << "</b><div class=\"stmt\">"
            << html(c.statement) << "</div></td><td class=\"stmt\">" << html(scope) << "</td><td>"
            << html(c.figure.empty() ? "-" : c.figure) << "</td><td class=\"stmt\">" << html(c.reason) << "</td></tr>\n";
    }
    html_ << "</table>\n";
  }

  void checks(const SuiteResult& r, CheckRole role, const std::string& heading, const std::string& about, bool open) {
    std::vector<const Check*> list;
    for (const auto& k : r.checks)
      if (k.role == role) list.push_back(&k);
    std::vector<const Series*> banded;
    for (const auto& s : r.series)
      if (s.band && s.role == role) banded.push_back(&s);
    if (list.empty() && banded.empty()) return;
    const std::size_t n = list.size() + banded.size();
    md_ << "\n### " << heading << " (" << n << ")\n\n" << (about.empty() ? "" : about + "\n\n")
        << "| check | grade | verdict | figure | bound | " << (role == CheckRole::Evidence ? "independent route" : "statement")
        << " |\n|---|---|---|---|---|---|\n";
    html_ << (open ? "<h3>" + html(heading) + " (" + std::to_string(n) + ")</h3>\n"
                   : "<details><summary>" + html(heading) + " (" + std::to_string(n) + ")</summary>\n")
          << (about.empty() ? "" : "<p class=\"small\">" + html(about) + "</p>\n")
          << "<table><colgroup><col style=\"width:22%\"><col style=\"width:8%\"><col style=\"width:9%\"><col style=\"width:22%\">"
             "<col style=\"width:17%\"><col style=\"width:22%\"></colgroup><tr><th>check</th><th>grade</th><th>verdict</th>"
             "<th>figure</th><th>bound</th><th>"
          << (role == CheckRole::Evidence ? "independent route" : "statement") << "</th></tr>\n";
    for (const Check* k : list) {
      const std::string last = role == CheckRole::Evidence ? k->route : k->statement;
      const std::string v = verdict_name(k->verdict);
      md_ << "| " << md(k->id) << " | " << grade_name(k->grade) << " | " << v << " | " << md(check_figure(*k)) << " | "
          << md(readable(k->bound)) << " | " << md(last) << " |\n";
      html_ << "<tr id=\"" << anchor(r.suite, k->id) << "\"><td><code>" << html(k->id) << "</code>"
            << (role == CheckRole::Control ? "<div class=\"small\">control of " + html(k->control_of) + "</div>" : "")
            << "</td><td>" << grade_name(k->grade) << "</td><td class=\"" << v << "\">" << v << "</td><td>"
            << html(check_figure(*k)) << "</td><td class=\"stmt\">" << html(readable(k->bound)) << "</td><td class=\"stmt\">"
            << html(last) << (role == CheckRole::Evidence ? "<details><summary>statement</summary>" + html(k->statement) +
                                                                "</details>"
                                                          : "")
            << "</td></tr>\n";
    }
    for (const Series* s : banded) {
      const std::string v = verdict_name(s->verdict);
      md_ << "| " << md("series:" + s->id) << " | fitted | " << v << " | " << md(series_figure(*s)) << " | band "
          << interval_text(*s->band) << " | " << md(s->title) << " |\n";
      html_ << "<tr><td><code>series:" << html(s->id) << "</code></td><td>fitted</td><td class=\"" << v << "\">" << v
            << "</td><td>" << html(series_figure(*s)) << "</td><td>band " << html(interval_text(*s->band)) << "</td><td class=\"stmt\">"
            << html(s->title) << "</td></tr>\n";
    }
    html_ << "</table>\n" << (open ? "" : "</details>\n");
  }

  void facts(const SuiteResult& r) {
    if (r.facts.empty()) return;
    md_ << "\n### Construction facts (true by construction; not evidence)\n\n| fact | statement | exact check | holds |\n"
           "|---|---|---|---|\n";
    html_ << "<details><summary>Construction facts (" << r.facts.size() << ", true by construction; not evidence)</summary>"
             "<table><tr><th>fact</th><th>statement</th><th>exact check</th><th>holds</th></tr>\n";
    for (const auto& f : r.facts) {
      md_ << "| " << md(f.id) << " | " << md(f.statement) << " | " << md(readable(f.measured)) << " | " << (f.holds ? "yes" : "**NO**")
          << " |\n";
      html_ << "<tr><td><code>" << html(f.id) << "</code></td><td class=\"stmt\">" << html(f.statement) << "</td><td class=\"stmt\">"
            << html(readable(f.measured)) << "</td><td class=\"" << (f.holds ? "pass" : "fail") << "\">" << (f.holds ? "yes" : "NO")
            << "</td></tr>\n";
    }
    html_ << "</table></details>\n";
  }

  void table(const Table& t) {
    md_ << "\n### " << md(t.title) << "\n\n|";
    html_ << "<details><summary>" << html(t.title) << "</summary><table><tr>";
    for (const auto& c : t.columns) {
      md_ << " " << md(c) << " |";
      html_ << "<th>" << html(c) << "</th>";
    }
    md_ << "\n|";
    for (std::size_t i = 0; i < t.columns.size(); ++i) md_ << "---|";
    md_ << "\n";
    html_ << "</tr>\n";
    for (const auto& row : t.rows) {
      md_ << "|";
      html_ << "<tr>";
      for (const auto& cell : row) {
        md_ << " " << md(cell) << " |";
        html_ << "<td>" << html(cell) << "</td>";
      }
      md_ << "\n";
      html_ << "</tr>\n";
    }
    html_ << "</table></details>\n";
  }

  void tables(const SuiteResult& r) {
    for (const auto& t : r.tables) table(t);
  }

  // Each series: its fit against the stated or derived exponent, its plot (the plots claims name shown open),
  // the points it could not draw, and its points.
  void series(const SuiteResult& r) {
    for (const auto& s : r.series) {
      bool named = false;
      for (const auto& c : r.claims) named |= c.plot == s.id;
      std::string text = series_fit_text(s);
      if (s.exponent) text += "; " + s.exponent->source + " exponent " + num(s.exponent->value);
      if (s.band) text += "; pass band " + interval_text(*s.band) + ": " + verdict_name(s.verdict) + " (" + role_name(s.role) + ")";
      md_ << "\n### " << md(s.title) << "\n\n" << md(text) << ".\n";
      html_ << "<details" << (named ? " open" : "") << "><summary>Plot: " << html(s.title) << "</summary><p class=\"small\">"
            << html(text) << ".</p>\n";
      if (!s.note.empty()) {
        md_ << "\n" << md(s.note) << "\n";
        html_ << "<p class=\"small\">" << html(s.note) << "</p>\n";
      }
      const SeriesPlot plot = plot_series_svg(s);
      const std::string name = plot_file_name(r, s);
      if (plot.svg) {
        const std::string path = (fs::path(out_dir_) / "plots" / name).string();
        write_text_file_atomic(path, *plot.svg);
        files_.plots.push_back(path);
        md_ << "\n![" << md(s.title) << "](plots/" << name << ")\n";
        // A data URI keeps the page self-contained and each SVG's element ids isolated from the others'.
        html_ << "<figure><img alt=\"" << html(s.title) << "\" src=\"data:image/svg+xml;base64," << base64(*plot.svg)
              << "\"></figure>\n";
      } else {
        const std::string w = "plot '" + name + "' skipped: " + plot.why;
        files_.warnings.push_back(w);
        md_ << "\n(" << md(w) << ")\n";
        html_ << "<p><em>" << html(w) << "</em></p>\n";
      }
      if (!plot.dropped.empty()) {
        md_ << "\nNot drawn:\n";
        html_ << "<p class=\"small\">Not drawn: ";
        for (std::size_t i = 0; i < plot.dropped.size(); ++i) {
          md_ << "- " << md(plot.dropped[i]) << "\n";
          html_ << (i ? "; " : "") << html(plot.dropped[i]);
        }
        html_ << ".</p>\n";
      }
      md_ << "\n| x | y |" << (s.y_interval.empty() ? "" : " interval |") << "\n|---|---|" << (s.y_interval.empty() ? "" : "---|") << "\n";
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        md_ << "| " << num(s.x[i], 6) << " | " << num(s.y[i], 6) << " |";
        if (i < s.y_interval.size()) md_ << " " << interval_text(s.y_interval[i]) << " |";
        md_ << "\n";
      }
      html_ << "</details>\n";
    }
  }

  void notes(const SuiteResult& r) {
    if (r.notes.empty()) return;
    md_ << "\nNotes:\n";
    html_ << "<details><summary>Notes (" << r.notes.size() << ")</summary><ul>\n";
    for (const auto& n : r.notes) {
      md_ << "- " << md(n) << "\n";
      html_ << "<li>" << html(n) << "</li>\n";
    }
    html_ << "</ul></details>\n";
  }

  // Each check's rows (its measured list), collapsed, as a table of their own.
  void check_rows(const SuiteResult& r) {
    for (const auto& c : r.checks) {
      const json& rows = c.measured.is_object() && c.measured.contains("rows") ? c.measured["rows"] : c.measured;
      if (!is_rows(rows)) continue;
      Table t{"Rows of " + c.id + " (" + std::to_string(rows.size()) + ")", row_columns(rows), {}};
      for (const auto& row : rows) {
        std::vector<std::string> cells;
        for (const auto& col : t.columns) cells.push_back(row.contains(col) ? readable(row[col], 120) : "");
        t.rows.push_back(std::move(cells));
      }
      table(t);
    }
  }

  // The mutation harness's table, when `infoflow-verify mutants` wrote one into this folder.
  void mutation_table() {
    const fs::path mut = fs::path(out_dir_) / "mutation.json";
    if (!fs::exists(mut)) return;
    try {
      const json m = read_json_file(mut.string(), "--out");
      md_ << "\n## Mutation harness: which checks catch which defects\n\n" << mutation_markdown(m);
      html_ << "<section id=\"mutation\"><h2>Mutation harness</h2><details><summary>Which checks catch which defects</summary>"
            << mutation_html(m) << "</details></section>\n";
    } catch (const std::exception& e) {
      files_.warnings.push_back(std::string("mutation table skipped: ") + e.what());
    }
  }

  const std::vector<SuiteResult>& results_;
  const std::vector<SuiteResult>* baseline_;
  std::string out_dir_;
  ReportFiles& files_;
  std::ostringstream md_, html_;
};

// A regular file that is not a symbolic link (a planted link could point anywhere). Errors read as "no".
bool is_plain_file(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  return !ec && fs::is_regular_file(st);
}

}  // namespace

CollectedResults collect_results(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("--results", "'" + dir + "' is not a directory");
  // Only DIR's own results: DIR/result.json (a suite's folder) and DIR/SUITE/result.json (a run of `all`), never
  // a deeper tree (the mutation harness's runs in DIR/mutants are not results of the code as it is). When there
  // are none, DIR/results.json (every suite in one file, as `all` and `report` write it).
  CollectedResults out;
  std::vector<fs::path> files;
  if (is_plain_file(fs::path(dir) / "result.json")) files.push_back(fs::path(dir) / "result.json");
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) throw InputError("--results", "cannot list '" + dir + "' (" + ec.message() + ")");
  for (; it != end; it.increment(ec)) {
    if (ec) {
      // An entry that vanished or cannot be read while the folder is listed is skipped, not fatal.
      out.skipped.push_back("an entry of '" + dir + "' could not be read (" + ec.message() + ")");
      break;
    }
    std::error_code type_ec;
    const fs::file_status st = it->symlink_status(type_ec);
    if (type_ec || !fs::is_directory(st)) continue;
    if (const fs::path f = it->path() / "result.json"; is_plain_file(f)) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      out.results.push_back(suite_result_from_json(read_json_file(f.string(), "--results")));
    } catch (const InputError& e) {
      // A file that went away (or became unreadable) since it was listed is skipped; one that reads but is not a
      // result is an error, never a report that silently leaves a suite out.
      if (!is_plain_file(f) || ::access(f.c_str(), R_OK) != 0) {
        out.skipped.push_back("'" + f.string() + "' could not be read");
        continue;
      }
      throw InputError("--results", e.argument() == "--results" ? e.expectation() : "'" + f.string() + "': " + e.expectation());
    }
  }
  if (out.results.empty() && is_plain_file(fs::path(dir) / "results.json")) {
    const std::string f = (fs::path(dir) / "results.json").string();
    const json j = read_json_file(f, "--results");
    try {
      if (j.value("schema", "") != "infoflow-verify/results/1" || !j.contains("suites") || !j["suites"].is_array())
        throw InputError("--results", "'" + f + "': expected schema infoflow-verify/results/1 with a list of suites");
      for (const auto& r : j["suites"]) out.results.push_back(suite_result_from_json(r));
    } catch (const InputError& e) {
      throw InputError("--results", e.argument() == "--results" ? e.expectation() : "'" + f + "': " + e.expectation());
    }
  }
  return out;
}

std::string summary_table(const std::vector<SuiteResult>& results) {
  std::ostringstream o;
  o << std::left << std::setw(28) << "suite" << std::setw(14) << "verdict" << std::setw(44) << "claims" << std::setw(20)
    << "evidence p/f/i" << std::setw(16) << "self-checks p/f" << "elapsed\n";
  for (const auto& r : results) {
    const Counts c = count_checks(r);
    o << std::left << std::setw(28) << r.suite << std::setw(14) << verdict_name(r.overall()) << std::setw(44)
      << claims_summary(r) << std::setw(20)
      << (std::to_string(c.pass) + "/" + std::to_string(c.fail) + "/" + std::to_string(c.inconclusive)) << std::setw(16)
      << (std::to_string(c.self_pass) + "/" + std::to_string(c.self_fail)) << num(r.elapsed_seconds, 3) << " s\n";
  }
  return o.str();
}

std::string ledger_table(const std::vector<SuiteResult>& results, const std::vector<SuiteResult>* baseline) {
  std::ostringstream o;
  o << "Claims of the paper (docs/claims.md):\n";
  for (const auto& row : claims_ledger(results, baseline)) {
    const Claim& c = row.claim;
    o << "  " << std::left << std::setw(10) << claim_status_name(c.status) << " " << c.source;
    if (!c.figure.empty()) o << ": " << c.figure;
    if (baseline) o << "  [baseline: " << (row.baseline_status.empty() ? "none" : row.baseline_status) << "]";
    o << "\n";
  }
  return o.str();
}

ReportFiles write_report(std::vector<SuiteResult> results, const std::string& out_dir,
                         const std::vector<SuiteResult>* baseline) {
  settle_all_claims(results);
  ReportFiles files;
  ensure_directory((fs::path(out_dir) / "plots").string(), "--out");
  ReportPage page(results, baseline, out_dir, files);
  page.write();

  json all = json::array();
  for (const auto& r : results) all.push_back(to_json(r));
  files.markdown = (fs::path(out_dir) / "report.md").string();
  files.html = (fs::path(out_dir) / "index.html").string();
  files.results = (fs::path(out_dir) / "results.json").string();
  files.junit = (fs::path(out_dir) / "junit.xml").string();
  write_text_file_atomic(files.markdown, page.markdown());
  write_text_file_atomic(files.html, page.page());
  write_json_file(files.results, json{{"schema", "infoflow-verify/results/1"}, {"suites", all}});
  write_text_file_atomic(files.junit, suites_junit_xml(results));
  return files;
}

}  // namespace infoflow
