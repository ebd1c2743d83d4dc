#include "reports/report_writer.hpp"

#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "reports/mutation_table.hpp"
#include "reports/svg_plot.hpp"
#include "reports/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <unistd.h>

namespace infoflow {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

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
std::string html_escape(const std::string& s) { return xml_escape(s); }

std::string interval_text(const Interval& i) { return "[" + num(i.lo) + ", " + num(i.hi) + "]"; }

std::string compact(const json& j) {
  if (j.is_null()) return "";
  std::string s = j.dump();
  return s.size() > 240 ? s.substr(0, 237) + "..." : s;
}

// A scalar as text: numbers with 6 significant digits, strings bare.
std::string scalar_text(const json& v) {
  if (v.is_number_float()) return num(v.get<double>(), 6);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "-";
  return v.dump();
}

// Rows: an array of objects, shown as their own table under the checks.
bool is_rows(const json& j) { return j.is_array() && !j.empty() && j[0].is_object(); }

// What a check measured, as "key: value" lines; row lists are summarised and tabled below.
std::vector<std::string> measured_lines(const json& j) {
  std::vector<std::string> out;
  if (is_rows(j)) {
    out.push_back(std::to_string(j.size()) + " rows (table below)");
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items())
      out.push_back(k + ": " + (is_rows(v) ? std::to_string(v.size()) + " rows" : v.is_structured() ? v.dump() : scalar_text(v)));
  } else if (!j.is_null()) {
    out.push_back(scalar_text(j));
  }
  return out;
}

// The columns of a row list: every key, in first-seen order.
std::vector<std::string> row_columns(const json& rows) {
  std::vector<std::string> cols;
  for (const auto& r : rows)
    for (const auto& [k, v] : r.items())
      if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  return cols;
}

struct Counts {
  int pass = 0, fail = 0, inconclusive = 0;
};
Counts count_checks(const SuiteResult& r) {
  Counts c;
  auto add = [&](Verdict v) { (v == Verdict::Pass ? c.pass : v == Verdict::Fail ? c.fail : c.inconclusive)++; };
  // One-sided evidence (supports or does not show) is reported but not counted: it cannot fail.
  for (const auto& k : r.checks)
    if (!k.one_sided) add(k.verdict);
  for (const auto& s : r.series)
    if (s.band && !s.one_sided) add(s.verdict);
  return c;
}

std::string verdict_words(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "consistent with the stated results (every check passed)";
    case Verdict::Fail: return "INCONSISTENT: at least one check failed";
    default: return "inconclusive: no check failed, but some could not decide";
  }
}

std::string series_fit_text(const Series& s) {
  if (!s.fit) return "descriptive series (no fit)";
  std::string t = "slope " + num(s.fit->slope) + ", 95% interval " + interval_text(s.fit->interval) +
                  " (t " + interval_text(s.fit->t_interval) + ", bootstrap " + interval_text(s.fit->bootstrap_interval) +
                  "), R² " + num(s.fit->r2, 5) + ", " + std::to_string(s.fit->n) + " points";
  return t;
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
    for (const auto& k : r.checks) s.cases.push_back(junit_case(r, k.id, k.verdict, k.statement + " measured=" + compact(k.measured)));
    for (const auto& se : r.series)
      if (se.band) s.cases.push_back(junit_case(r, "series:" + se.id, se.verdict, series_fit_text(se)));
    suites.push_back(std::move(s));
  }
  return junit_xml("infoflow-verify", suites);
}

}  // namespace

namespace {

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
  o << std::left << std::setw(28) << "suite" << std::setw(14) << "verdict" << std::setw(8) << "pass" << std::setw(8)
    << "fail" << std::setw(14) << "inconclusive" << "elapsed\n";
  for (const auto& r : results) {
    const Counts c = count_checks(r);
    o << std::left << std::setw(28) << r.suite << std::setw(14) << verdict_name(r.overall()) << std::setw(8) << c.pass
      << std::setw(8) << c.fail << std::setw(14) << c.inconclusive << num(r.elapsed_seconds, 3) << " s\n";
  }
  return o.str();
}

namespace {

// The verdict of each suite, first.
void write_verdicts(std::ostringstream& md, std::ostringstream& html, const std::vector<SuiteResult>& results) {
  md << "## Verdicts\n\n| suite | verdict | pass | fail | inconclusive | elapsed (s) |\n|---|---|---|---|---|---|\n";
  html << "<h2>Verdicts</h2>\n<table id=\"verdicts\"><tr><th>suite</th><th>verdict</th><th>pass</th><th>fail</th>"
          "<th>inconclusive</th><th>elapsed (s)</th></tr>\n";
  for (const auto& r : results) {
    const Counts c = count_checks(r);
    const std::string v = verdict_name(r.overall());
    md << "| " << r.title << " (`" << r.suite << "`) | **" << v << "** | " << c.pass << " | " << c.fail << " | "
       << c.inconclusive << " | " << num(r.elapsed_seconds, 3) << " |\n";
    html << "<tr class=\"suite\"><td><a href=\"#" << html_escape(r.suite) << "\">" << html_escape(r.title) << "</a></td><td class=\"" << v
         << "\">" << v << "</td><td>" << c.pass << "</td><td>" << c.fail << "</td><td>" << c.inconclusive << "</td><td>"
         << num(r.elapsed_seconds, 3) << "</td></tr>\n";
  }
  if (results.empty()) {
    md << "\nNo suite results were found.\n";
    html << "<tr><td colspan=\"6\">No suite results were found.</td></tr>\n";
  }
  html << "</table>\n";

}

// A suite's heading, statement, overall verdict and how to reproduce it.
void write_suite_header(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  md << "\n## " << r.title << " (`" << r.suite << "`)\n\n";
  if (!r.statement.empty()) md << r.statement << "\n\n";
  md << "Overall: **" << verdict_name(r.overall()) << "**: " << verdict_words(r.overall()) << ".\n\n";
  md << "Profile `" << r.profile << "`, seed " << r.seed << ", build `" << r.build_commit << "`, elapsed "
     << num(r.elapsed_seconds, 3) << " s. Reproduce: `" << r.command << "`\n\n";
  html << "<section id=\"" << html_escape(r.suite) << "\"><h2>" << html_escape(r.title) << "</h2>\n";
  if (!r.statement.empty()) html << "<p class=\"statement\">" << html_escape(r.statement) << "</p>\n";
  html << "<p>Overall: <span class=\""
       << verdict_name(r.overall()) << "\">" << verdict_name(r.overall()) << "</span>: " << html_escape(verdict_words(r.overall()))
       << ".</p>\n<p>Profile <code>" << html_escape(r.profile) << "</code>, seed " << r.seed << ", build <code>"
       << html_escape(r.build_commit) << "</code>, elapsed " << num(r.elapsed_seconds, 3)
       << " s. Reproduce: <code>" << html_escape(r.command) << "</code></p>\n";

}

// The checks, one row each: grade, verdict, statement, what was measured and the bound.
void write_checks(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  md << "| check | grade | verdict | statement | measured | bound |\n|---|---|---|---|---|---|\n";
  html << "<table class=\"checks\"><tr><th>check</th><th>grade</th><th>verdict</th><th>statement</th><th>measured</th><th>bound</th></tr>\n";
  for (const auto& c : r.checks) {
    const std::string side = c.one_sided ? " (one-sided evidence: supports or does not show; not counted in the verdict)" : "";
    std::string md_measured, html_measured;
    for (const auto& line : measured_lines(c.measured)) {
      md_measured += (md_measured.empty() ? "" : "<br>") + line;
      html_measured += (html_measured.empty() ? "" : "<br>") + html_escape(line);
    }
    std::string md_bound, html_bound;
    for (const auto& line : measured_lines(c.bound)) {
      md_bound += (md_bound.empty() ? "" : "<br>") + line;
      html_bound += (html_bound.empty() ? "" : "<br>") + html_escape(line);
    }
    md << "| `" << c.id << "` | " << grade_name(c.grade) << " | " << verdict_name(c.verdict) << side << " | " << c.statement
       << " | " << md_measured << " | " << md_bound << " |\n";
    html << "<tr><td><code>" << html_escape(c.id) << "</code></td><td>" << grade_name(c.grade) << "</td><td class=\""
         << verdict_name(c.verdict) << "\">" << verdict_name(c.verdict) << side << "</td><td>" << html_escape(c.statement)
         << "</td><td>" << html_measured << "</td><td>" << html_bound << "</td></tr>\n";
  }
  html << "</table>\n";

}

// Each check's rows, as a table of their own.
void write_check_rows(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  for (const auto& c : r.checks) {
    // Rows are the measured value itself, or its "rows" member beside a summary.
    const json& rows = c.measured.is_object() && c.measured.contains("rows") ? c.measured["rows"] : c.measured;
    if (!is_rows(rows)) continue;
    const auto cols = row_columns(rows);
    md << "\n**Rows of `" << c.id << "`**\n\n|";
    html << "<details><summary>Rows of <code>" << html_escape(c.id) << "</code> (" << rows.size()
         << ")</summary><table class=\"rows\"><tr>";
    for (const auto& col : cols) {
      md << " " << col << " |";
      html << "<th>" << html_escape(col) << "</th>";
    }
    md << "\n|";
    for (std::size_t i = 0; i < cols.size(); ++i) md << "---|";
    md << "\n";
    html << "</tr>\n";
    for (const auto& row : rows) {
      md << "|";
      html << "<tr>";
      for (const auto& col : cols) {
        const std::string cell = row.contains(col) ? (row[col].is_structured() ? row[col].dump() : scalar_text(row[col])) : "";
        md << " " << cell << " |";
        html << "<td>" << html_escape(cell) << "</td>";
      }
      md << "\n";
      html << "</tr>\n";
    }
    html << "</table></details>\n";
  }

}

// Facts: true by construction, with their exact checks, apart from the evidence.
void write_facts(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  if (!r.facts.empty()) {
    md << "\n### Construction facts (true by construction; not evidence)\n\n| fact | statement | exact check | holds |\n"
          "|---|---|---|---|\n";
    html << "<h3>Construction facts (true by construction; not evidence)</h3>\n<table class=\"facts\"><tr><th>fact</th>"
            "<th>statement</th><th>exact check</th><th>holds</th></tr>\n";
    for (const auto& f : r.facts) {
      md << "| `" << f.id << "` | " << f.statement << " | `" << compact(f.measured) << "` | " << (f.holds ? "yes" : "**NO**")
         << " |\n";
      html << "<tr><td><code>" << html_escape(f.id) << "</code></td><td>" << html_escape(f.statement) << "</td><td><code>"
           << html_escape(compact(f.measured)) << "</code></td><td class=\"" << (f.holds ? "pass" : "fail") << "\">"
           << (f.holds ? "yes" : "NO") << "</td></tr>\n";
    }
    html << "</table>\n";
  }

}

// The suite's own tables (e.g. predictions beside a paper's numbers).
void write_tables(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  for (const auto& t : r.tables) {
    md << "\n### " << t.title << "\n\n|";
    html << "<h3>" << html_escape(t.title) << "</h3>\n<table class=\"data\"><tr>";
    for (const auto& c : t.columns) {
      md << " " << c << " |";
      html << "<th>" << html_escape(c) << "</th>";
    }
    md << "\n|";
    for (std::size_t i = 0; i < t.columns.size(); ++i) md << "---|";
    md << "\n";
    html << "</tr>\n";
    for (const auto& row : t.rows) {
      md << "|";
      html << "<tr>";
      for (const auto& cell : row) {
        md << " " << cell << " |";
        html << "<td>" << html_escape(cell) << "</td>";
      }
      md << "\n";
      html << "</tr>\n";
    }
    html << "</table>\n";
  }
}

// Each series: its fit against the stated or derived exponent, its plot, its points.
void write_series(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r, const std::string& out_dir, ReportFiles& files) {
  for (const auto& s : r.series) {
    md << "\n### " << s.title << "\n\n" << series_fit_text(s);
    html << "<h3>" << html_escape(s.title) << "</h3>\n<p>" << html_escape(series_fit_text(s));
    if (s.exponent) {
      md << "; " << s.exponent->source << " exponent " << num(s.exponent->value);
      html << "; " << html_escape(s.exponent->source) << " exponent " << num(s.exponent->value);
    }
    if (s.band) {
      if (s.one_sided) {
        md << "; one-sided evidence (supports or does not show, never fails; not counted in the verdict)";
        html << "; one-sided evidence (supports or does not show, never fails; not counted in the verdict)";
      }
      md << "; pass band " << interval_text(*s.band) << ": **" << verdict_name(s.verdict) << "**";
      html << "; pass band " << interval_text(*s.band) << ": <span class=\"" << verdict_name(s.verdict) << "\">"
           << verdict_name(s.verdict) << "</span>";
    }
    md << ".\n";
    html << ".</p>\n";
    if (!s.note.empty()) {
      md << "\n" << s.note << "\n";
      html << "<p>" << html_escape(s.note) << "</p>\n";
    }
    const SeriesPlot plot = plot_series_svg(s);
    const std::string name = plot_file_name(r, s);
    if (plot.svg) {
      const std::string path = (fs::path(out_dir) / "plots" / name).string();
      write_text_file_atomic(path, *plot.svg);
      files.plots.push_back(path);
      md << "\n![" << s.title << "](plots/" << name << ")\n";
      // A data URI keeps the page self-contained and each SVG's element ids isolated from the others'.
      html << "<figure class=\"plot\"><img alt=\"" << html_escape(s.title) << "\" src=\"data:image/svg+xml;base64,"
           << base64(*plot.svg) << "\"></figure>\n";
    } else {
      const std::string w = "plot '" + name + "' skipped: " + plot.why;
      files.warnings.push_back(w);
      md << "\n(" << w << ")\n";
      html << "<p><em>" << html_escape(w) << "</em></p>\n";
    }
    if (!plot.dropped.empty()) {
      md << "\nNot drawn:\n";
      html << "<p class=\"dropped\">Not drawn: ";
      for (std::size_t i = 0; i < plot.dropped.size(); ++i) {
        md << "- " << plot.dropped[i] << "\n";
        html << (i ? "; " : "") << html_escape(plot.dropped[i]);
      }
      html << ".</p>\n";
    }
    md << "\n| x | y |\n|---|---|\n";
    for (std::size_t i = 0; i < s.x.size(); ++i) md << "| " << num(s.x[i], 6) << " | " << num(s.y[i], 6) << " |\n";
  }
}

// The suite's notes: caveats and what was left out.
void write_notes(std::ostringstream& md, std::ostringstream& html, const SuiteResult& r) {
  if (!r.notes.empty()) {
    md << "\nNotes:\n";
    html << "<h3>Notes</h3><ul>\n";
    for (const auto& n : r.notes) {
      md << "- " << n << "\n";
      html << "<li>" << html_escape(n) << "</li>\n";
    }
    html << "</ul>\n";
  }
}
// The title, what the grades mean, and the page's self-check (read by the browser test).
void write_preamble(std::ostringstream& md, std::ostringstream& html) {
  md << "# infoflow-verify report\n\n";
  md << "Numbers can support a theorem; they do not prove a lower bound. Each check is graded: *certified* "
        "(interval arithmetic over a whole domain), *sampled* (MPFR on random and adversarial inputs), "
        "*fitted* (optimised models, regression intervals) or *exact* (a finite computation). The mathematics "
        "behind every check, with proofs, is in `docs/theory.md`; properties true by construction are listed as "
        "facts, apart from the evidence.\n\n";
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>infoflow-verify report</title>\n"
          "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
          "table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #ccc;padding:4px 8px;"
          "vertical-align:top;text-align:left}th{background:#f3f3f3}.pass{color:#176b1f;font-weight:bold}"
          ".fail{color:#b00020;font-weight:bold}.inconclusive{color:#8a6d00;font-weight:bold}code{font-size:13px}"
          "td code{word-break:break-word}.checks td:nth-child(4){min-width:240px}figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}</style></head><body>\n";
  // The page checks itself once loaded (images decoded, verdict rows, script errors) and records the
  // outcome on <html data-render-check>; the browser test reads it from the rendered DOM.
  html << "<script>var infoflowErrors=0;window.addEventListener('error',function(){infoflowErrors++;});"
          "window.addEventListener('load',function(){var im=document.images,ok=0;for(var i=0;i<im.length;i++)"
          "{if(im[i].complete&&im[i].naturalWidth>0)ok++;}var rows=document.querySelectorAll('#verdicts tr.suite').length;"
          "document.documentElement.setAttribute('data-render-check','images='+ok+'/'+im.length+' verdict-rows='+rows+"
          "' errors='+infoflowErrors);});</script>\n";
  html << "<h1>infoflow-verify report</h1>\n<p>Numbers can support a theorem; they do not prove a lower bound. "
          "Grades: <b>certified</b> (interval arithmetic over a whole domain), <b>sampled</b> (MPFR on random and "
          "adversarial inputs), <b>fitted</b> (optimised models, regression intervals), <b>exact</b> (a finite "
          "computation). The mathematics behind every check, with proofs, is in <code>docs/theory.md</code>.</p>\n";
}

// The mutation harness's table, when `infoflow-verify mutants` wrote one into this folder.
void write_mutation_table(std::ostringstream& md, std::ostringstream& html, const std::string& out_dir, ReportFiles& files) {
  if (const fs::path mut = fs::path(out_dir) / "mutation.json"; fs::exists(mut)) {
    try {
      const json m = read_json_file(mut.string(), "--out");
      md << "\n## Mutation harness: which checks catch which defects\n\n" << mutation_markdown(m);
      html << "<section id=\"mutation\"><h2>Mutation harness: which checks catch which defects</h2>\n" << mutation_html(m)
           << "</section>\n";
    } catch (const std::exception& e) {
      files.warnings.push_back(std::string("mutation table skipped: ") + e.what());
    }
  }
}

}  // namespace

ReportFiles write_report(const std::vector<SuiteResult>& results, const std::string& out_dir) {
  ReportFiles files;
  fs::create_directories(fs::path(out_dir) / "plots");
  std::ostringstream md, html;
  write_preamble(md, html);
  write_verdicts(md, html, results);
  for (const auto& r : results) {
    write_suite_header(md, html, r);
    write_checks(md, html, r);
    write_check_rows(md, html, r);
    write_facts(md, html, r);
    write_tables(md, html, r);
    write_series(md, html, r, out_dir, files);
    write_notes(md, html, r);
    html << "</section>\n";
  }
  write_mutation_table(md, html, out_dir, files);
  html << "</body></html>\n";

  json all = json::array();
  for (const auto& r : results) all.push_back(to_json(r));
  files.markdown = (fs::path(out_dir) / "report.md").string();
  files.html = (fs::path(out_dir) / "index.html").string();
  files.results = (fs::path(out_dir) / "results.json").string();
  files.junit = (fs::path(out_dir) / "junit.xml").string();
  write_text_file_atomic(files.markdown, md.str());
  write_text_file_atomic(files.html, html.str());
  write_json_file(files.results, json{{"schema", "infoflow-verify/results/1"}, {"suites", all}});
  write_text_file_atomic(files.junit, suites_junit_xml(results));
  return files;
}

}  // namespace infoflow
