#pragma once
// Scaling-exponent fits of docs/theory.md §1: least squares of log y on log x, with a t-interval, a seeded
// percentile bootstrap over points, R², and a verdict against a pass band. The interval used for
// the verdict is the hull of the two intervals, so the verdict is as cautious as the wider one.
#include "numerics/fit/verdict.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace infoflow {

struct LineFit {
  std::size_t n = 0;
  double slope = 0.0;
  double intercept = 0.0;
  double slope_stderr = 0.0;
  double r2 = 0.0;
  Interval t_interval;          // 95%, Student t with n − 2 degrees of freedom
  Interval bootstrap_interval;  // 95% percentile interval over resampled points
  Interval interval;            // hull of the two: what verdicts use
};

struct FitOptions {
  std::uint64_t seed = 1;        // of the bootstrap resampling
  int bootstrap_resamples = 2000;  // >= 1
  double confidence = 0.95;      // of both intervals, in (0, 1)
  /// True when every field is in range; otherwise false, with the first violation in *why.
  bool is_valid(std::string* why) const;
};

/// Why these points cannot be fitted by fit_line (different lengths, fewer than two, non-finite,
/// all x equal), or "" when they can. Callers holding user data turn it into an InputError.
std::string line_points_problem(const std::vector<double>& x, const std::vector<double>& y);
/// The same for fit_loglog, which also needs every x and y positive.
std::string loglog_points_problem(const std::vector<double>& x, const std::vector<double>& y);

/// Least squares y = intercept + slope·x on the given points (no logs taken). Points with a
/// line_points_problem, or invalid options, are a ContractError.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const FitOptions& opt = {});

/// Fits log y against log x; points with a loglog_points_problem are a ContractError.
LineFit fit_loglog(const std::vector<double>& x, const std::vector<double>& y, const FitOptions& opt = {});

/// The two-sided Student t quantile: P(|t_ν| ≤ q) = confidence. Uses arb's regularised incomplete beta.
double student_t_quantile(double confidence, int dof);

}  // namespace infoflow
