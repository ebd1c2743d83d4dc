#pragma once
// Turns suite results into what a person reads: report.md, a self-contained index.html with
// inline SVG plots (drawn by gnuplot), results.json (all suites) and junit.xml.
#include "reports/result.hpp"

#include <string>
#include <vector>

namespace infoflow {

struct ReportFiles {
  std::string markdown, html, results, junit;
  std::vector<std::string> plots;
  std::vector<std::string> warnings;  // e.g. gnuplot missing: plots skipped, said in the report too
};

/// Reads every `result.json` below `dir` (sorted by path, so the report is deterministic).
std::vector<SuiteResult> collect_results(const std::string& dir);

ReportFiles write_report(const std::vector<SuiteResult>& results, const std::string& out_dir);

/// A plain-text summary table: suite, checks passed/failed/inconclusive, elapsed.
std::string summary_table(const std::vector<SuiteResult>& results);

}  // namespace infoflow
