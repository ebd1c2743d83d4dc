#pragma once
// The nightly regression on scaling exponents (issue 7): compares current suite results with a baseline.
//   - a series' fitted exponent that moved by more than the two intervals' half-widths combined;
//   - a check or banded series whose verdict went from pass to fail or inconclusive (or vanished);
//   - a certified bound that became looser (an upper bound grew, a lower bound shrank).
#include "reports/result.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace infoflow {

struct RegressionItem {
  std::string kind;  // "claim", "exponent", "verdict", "bound", "missing", "commit" (a note: builds differ)
  std::string suite;
  std::string id;
  std::string baseline;
  std::string current;
  bool regression = false;
  std::string detail;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RegressionItem, kind, suite, id, baseline, current, regression, detail)

struct RegressionReport {
  std::vector<RegressionItem> items;
  int regressions() const;
  std::string table() const;
  std::string junit_xml() const;
};

RegressionReport compare_results(const std::vector<SuiteResult>& baseline, const std::vector<SuiteResult>& current);

/// Reads `results.json` (schema infoflow-verify/results/1) or a folder holding one, or suite result files.
std::vector<SuiteResult> load_results(const std::string& path, const std::string& argument);

}  // namespace infoflow
