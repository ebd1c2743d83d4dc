#pragma once
// The result of one check suite (schema infoflow-verify/result/2, docs/result-format.md): the claims of the paper it
// addresses (docs/claims.md) and the checks, facts and series behind them.
#include "numerics/fit/exponent_fit.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace infoflow {

inline constexpr const char* kResultSchema = "infoflow-verify/result/2";
/// Results written before claims existed: read for `regress` against old baselines, with the old verdict rule.
inline constexpr const char* kLegacyResultSchema = "infoflow-verify/result/1";

enum class Grade { Certified, Sampled, Fitted, Exact };
const char* grade_name(Grade g);

/// What a check is for (docs/claims.md).
enum class CheckRole {
  Evidence,    // bears on a claim of the paper, against an independent route (`route`); could refute it
  Control,     // the same check run on a control input that must not show the effect (`control_of`)
  SelfCheck,   // guards the toolkit's own code: a proved identity recomputed, a property true by construction,
               // a comparison with the code's own constants. Never evidence; a failing one is a defect (suite fails).
  Diagnostic,  // reported for the reader (one-sided evidence, a per-model figure), never in a verdict
};
const char* role_name(CheckRole r);

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
  CheckRole role = CheckRole::Evidence;
  /// Evidence: the independent route the verdict compares against (a second implementation, exact rationals,
  /// another library, a published figure), in words. A claim is never settled by evidence without one.
  std::string route = {};
  /// Evidence: the route as data. The function (or stored figure) that computes the thing the claim is about, and
  /// the one that computes what it is compared with; they must differ (docs/claims.md §2).
  std::string claimed_by = {};
  std::string compared_by = {};
  /// How many items the check compared (points, models, families); −1 when it does not say. Evidence must say, and
  /// evidence that compared nothing is inconclusive, never a pass.
  long compared = -1;
  /// Control: the id of the check whose effect this control must not show.
  std::string control_of = {};
  /// The one readable figure of the check (at most 6 significant digits), computed by the run; "" when none.
  std::string figure = {};
};

/// A check of the given role (for the checks that are not evidence).
inline Check with_role(Check c, CheckRole role) {
  c.role = role;
  return c;
}


/// The status of a claim of the paper in this run (docs/claims.md).
enum class ClaimStatus {
  Certified,  // interval arithmetic over a stated class or domain decides it
  Refuted,    // a certified or exact counterexample (or a failed certified check) contradicts it
  Supported,  // evidence that could have refuted it did not (what would have: Claim::scope)
  Open,       // nothing here decides it (no evidence, undecided evidence, or fitted evidence that did not reproduce)
};
const char* claim_status_name(ClaimStatus s);

/// A claim of the paper (a theorem's half, its exponent, a framework prediction, an experiment table) that a suite
/// addresses. The status is never written by hand: settle_claims (reports/claims.hpp) computes it from the verdicts
/// of the evidence checks named here.
struct Claim {
  std::string id;         // e.g. "thm1.two-layer-upper"
  std::string source;     // where the paper states it, e.g. "Theorem 1 (upper half)"
  std::string statement;  // the claim, in words
  /// What passing evidence shows: the class or domain certified, or what would have refuted it.
  std::string scope = {};
  /// The evidence checks: ids in this suite, "SUITE/ID" in another suite, "series:ID" for a banded series.
  std::vector<std::string> evidence = {};
  /// True when passing certified-grade evidence certifies the claim (as scoped); else it can only support it.
  bool certifiable = false;
  /// For a claim with no evidence: why nothing here decides it.
  std::string undecided = {};
  /// The evidence check whose figure carries the claim (default: the first evidence check).
  std::string figure_check = {};
  /// The plot that shows it: "SUITE/SERIES-ID" or a series id of this suite; "" when none.
  std::string plot = {};
  // ---- settled by settle_claims ----
  ClaimStatus status = ClaimStatus::Open;
  std::string reason = {};  // why this status, naming the checks
  std::string figure = {};  // the carrying figure, as text
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
  /// A banded series is evidence only when a claim names it ("series:ID", with `route`); otherwise a self-check.
  CheckRole role = CheckRole::SelfCheck;
  std::string route = {};
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
  std::vector<Claim> claims;
  std::vector<Check> checks;
  std::vector<Fact> facts;
  std::vector<Series> series;
  std::vector<std::string> notes;
  std::vector<Table> tables;

  /// Read from a result of schema result/1 (before claims): overall() then uses the old rule.
  bool legacy = false;

  /// From the claims only (docs/claims.md): fail when a claim is refuted or the run has a defect (a fact that does
  /// not hold, a self-check that fails); inconclusive when a claim with evidence in this suite is open; else pass.
  /// (Legacy results: fail if any check or series failed, inconclusive if any was, else pass.)
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
