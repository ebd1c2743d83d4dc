#pragma once
// Turns suite results into what a person reads: report.md, a self-contained index.html with
// inline SVG plots (reports/svg_plot.hpp), results.json (all suites) and junit.xml.
#include "reports/result.hpp"

#include <string>
#include <vector>

namespace infoflow {

struct ReportFiles {
  std::string markdown, html, results, junit;
  std::vector<std::string> plots;
  std::vector<std::string> warnings;  // e.g. a series with no drawable point: said in the report too
};

struct CollectedResults {
  std::vector<SuiteResult> results;  // sorted by path, so the report is deterministic
  std::vector<std::string> skipped;  // entries that vanished or could not be read while the folder was listed
};

/// Reads DIR/result.json and every DIR/SUITE/result.json (symbolic links are not followed); when there are none,
/// DIR/results.json. A file that reads but is not a result is an InputError("--results").
CollectedResults collect_results(const std::string& dir);

ReportFiles write_report(const std::vector<SuiteResult>& results, const std::string& out_dir);

/// A plain-text summary table: suite, checks passed/failed/inconclusive, elapsed.
std::string summary_table(const std::vector<SuiteResult>& results);

}  // namespace infoflow
