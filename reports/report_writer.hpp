#pragma once
// Turns suite results into what a person reads: report.md, a self-contained index.html with inline SVG plots
// (reports/svg_plot.hpp), results.json (all suites) and junit.xml.
//
// The first screen is the claims ledger (reports/claims.hpp): every claim of the paper with its status, the figure
// that carries it and, given a baseline, its status there; then the certified depth-separation plot; then a table of
// contents. Each suite follows with a short table of its evidence (id, grade, verdict, one figure, the bound) and its
// controls; self-checks, diagnostics, facts, rows and plots are collapsed below it.
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

/// Writes the report of `results` (their claims settled across suites first) into `out_dir`. With `baseline`, the
/// ledger shows each claim's status there beside its status now.
ReportFiles write_report(std::vector<SuiteResult> results, const std::string& out_dir,
                         const std::vector<SuiteResult>* baseline = nullptr);

/// A plain-text summary table: suite, verdict, evidence passed/failed/inconclusive, self-checks, elapsed.
std::string summary_table(const std::vector<SuiteResult>& results);

/// The claims ledger as plain text (what `all` prints first): status, claim, figure, and the baseline's status.
std::string ledger_table(const std::vector<SuiteResult>& results, const std::vector<SuiteResult>* baseline = nullptr);

}  // namespace infoflow
