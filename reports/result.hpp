#pragma once
// The result of one check suite (schema infoflow-verify/result/1, docs/result-format.md).
#include "numerics/fit/exponent_fit.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace infoflow {

inline constexpr const char* kResultSchema = "infoflow-verify/result/1";

enum class Grade { Certified, Sampled, Fitted, Exact };
const char* grade_name(Grade g);

struct Check {
  std::string id;
  Grade grade = Grade::Exact;
  Verdict verdict = Verdict::Inconclusive;
  std::string statement;       // what was checked, in words
  nlohmann::json measured;     // the computed figure(s)
  nlohmann::json bound;        // the bound or band it is held against
  /// Certified bounds this check rests on, by point (e.g. "T=4,eps=0.01"), for the nightly regression:
  /// an upper bound that grows, or a lower bound that shrinks, has become looser.
  std::map<std::string, double> bounds = {};
  bool bounds_are_upper = true;
  /// One-sided evidence: by design the verdict is pass or inconclusive, never fail (a fitted model
  /// bounds the optimal cost from above only, so it can support a lower bound but not refute it).
  /// Reported as such; the mutation harness does not count it among the checks that must be able to fail.
  bool one_sided = false;
};

/// A property true by construction (a closed form, a formula the code never lets read T, ...): reported
/// as what it is, with an exact check that the exported weights or computed values match the formula,
/// and never counted as evidence for a theorem. A fact that does not hold is a defect: the suite fails.
struct Fact {
  std::string id;
  std::string statement;     // the formula, in words
  nlohmann::json measured;   // what the exact check compared
  bool holds = true;         // the exported values match the formula exactly
};

struct ExponentRef {
  double value = 0.0;
  std::string source;  // "stated" (by the paper) or "derived" (in docs/theory.md, for our construction)
  /// For a linear (not log-log) series whose reference is a line in x: y = intercept + value·x.
  std::optional<double> intercept = std::nullopt;
};

struct Series {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<double> x;
  std::vector<double> y;
  /// Empty, or one interval per point (e.g. a paired confidence interval): drawn as error bars.
  std::vector<Interval> y_interval = {};
  bool log_log = true;
  std::optional<LineFit> fit;
  std::optional<ExponentRef> exponent;  // the slope the fit is compared with, if any
  std::optional<Interval> band;
  Verdict verdict = Verdict::Inconclusive;
  std::string note;
  bool one_sided = false;  // as Check::one_sided
  std::string points_label = "measured";  // the legend of the points (x, y), e.g. which model a training curve is
  /// A second curve drawn on the same axes (no fit), e.g. what an explicit construction achieves.
  struct Overlay {
    std::string label;
    std::vector<double> x, y;
  };
  std::optional<Overlay> overlay = std::nullopt;
  /// A vertical line marking a value of x (e.g. a crossover), with its label.
  std::optional<std::pair<double, std::string>> marker = std::nullopt;

  static Series make(std::string id, std::string title, std::string x_label, std::string y_label, bool log_log = true) {
    Series s;
    s.id = std::move(id);
    s.title = std::move(title);
    s.x_label = std::move(x_label);
    s.y_label = std::move(y_label);
    s.log_log = log_log;
    return s;
  }
};

/// A small table for the report (e.g. predictions beside a paper's numbers).
struct Table {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct SuiteResult {
  std::string suite;
  std::string title;
  std::string profile;
  std::uint64_t seed = 0;
  std::string build_commit;
  std::string command;  // the command line that reproduces it
  std::string statement;  // what the suite checks: the stated and derived results, in words
  double elapsed_seconds = 0.0;
  std::vector<Check> checks;
  std::vector<Fact> facts;
  std::vector<Series> series;
  std::vector<std::string> notes;
  std::vector<Table> tables;

  /// fail if any check or series failed or a fact does not hold; else inconclusive if any was; else pass.
  Verdict overall() const;
};

/// The check with the certified bounds it rests on (for `regress`): upper bounds, or lower bounds.
inline Check with_bounds(Check c, std::map<std::string, double> bounds, bool upper = true) {
  c.bounds = std::move(bounds);
  c.bounds_are_upper = upper;
  return c;
}

/// A check built from a fit: the verdict of its interval against the band (docs/theory.md §1).
Check check_from_fit(const std::string& id, const std::string& statement, const LineFit& fit, const Interval& band);

nlohmann::json to_json(const LineFit& f);
nlohmann::json to_json(const Series& s);
nlohmann::json to_json(const SuiteResult& r);
SuiteResult suite_result_from_json(const nlohmann::json& j);
/// The result with every timing removed: what "same seed, same report" compares.
nlohmann::json without_timings(nlohmann::json j);

}  // namespace infoflow
