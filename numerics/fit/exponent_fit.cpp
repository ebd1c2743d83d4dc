#include "numerics/fit/exponent_fit.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <arb_hypgeom.h>

#include <algorithm>
#include <cmath>

namespace infoflow {

Verdict verdict_from_name(const std::string& s) {
  if (s == "pass") return Verdict::Pass;
  if (s == "fail") return Verdict::Fail;
  if (s == "inconclusive") return Verdict::Inconclusive;
  // A misspelt verdict in a baseline must not read as one.
  throw InputError("verdict", "expected a verdict pass, fail or inconclusive, got '" + s + "'");
}

bool FitOptions::is_valid(std::string* why) const {
  if (bootstrap_resamples < 1) return *why = "bootstrap_resamples = " + std::to_string(bootstrap_resamples) + ", expected >= 1", false;
  if (!(confidence > 0.0 && confidence < 1.0)) return *why = "confidence = " + std::to_string(confidence) + ", expected in (0, 1)", false;
  return true;
}

std::string line_points_problem(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return "x and y have different lengths";
  if (x.size() < 2) return "expected at least two points to fit a slope";
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) return "point " + std::to_string(i) + " is not finite";
  for (std::size_t i = 1; i < x.size(); ++i)
    if (x[i] != x[0]) return "";
  return "all x values are equal: the slope is undefined";
}

std::string loglog_points_problem(const std::vector<double>& x, const std::vector<double>& y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(x[i] > 0) || !std::isfinite(x[i])) return "x[" + std::to_string(i) + "] must be positive and finite for a log-log fit";
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!(y[i] > 0) || !std::isfinite(y[i])) return "y[" + std::to_string(i) + "] must be positive and finite for a log-log fit";
  return line_points_problem(x, y);
}

namespace {

struct Ols {
  bool ok = false;
  double slope = 0, intercept = 0, sxx = 0, sse = 0, syy = 0;
};

Ols ols(const std::vector<double>& x, const std::vector<double>& y, const std::vector<std::size_t>& idx) {
  Ols r;
  const double n = static_cast<double>(idx.size());
  double mx = 0, my = 0;
  for (auto i : idx) mx += x[i], my += y[i];
  mx /= n, my /= n;
  double sxy = 0;
  for (auto i : idx) {
    r.sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    r.syy += (y[i] - my) * (y[i] - my);
  }
  // Resamples with (nearly) one distinct x carry no slope information.
  if (!(r.sxx > 1e-300)) return r;
  r.slope = sxy / r.sxx;
  r.intercept = my - r.slope * mx;
  for (auto i : idx) {
    const double e = y[i] - r.intercept - r.slope * x[i];
    r.sse += e * e;
  }
  r.ok = true;
  return r;
}

// Two-sided CDF of |t_ν|: P(|t| ≤ q) = 1 − I_{ν/(ν+q²)}(ν/2, 1/2).
double abs_t_cdf(double q, int dof) {
  const long prec = 80;
  ArbBall a(dof / 2.0, prec), b(0.5, prec), z(dof / (dof + q * q), prec), r(prec);
  arb_hypgeom_beta_lower(r.raw(), a.raw(), b.raw(), z.raw(), 1, prec);
  return 1.0 - r.mid();
}

}  // namespace

double student_t_quantile(double confidence, int dof) {
  if (dof < 1) return std::numeric_limits<double>::infinity();
  double lo = 0.0, hi = 1.0;
  while (abs_t_cdf(hi, dof) < confidence) hi *= 2.0;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (abs_t_cdf(mid, dof) < confidence ? lo : hi) = mid;
  }
  return hi;
}

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const FitOptions& opt) {
  std::string why;
  if (!opt.is_valid(&why)) throw ContractError("fit_line", "FitOptions::" + why);
  if (const std::string problem = line_points_problem(x, y); !problem.empty()) throw ContractError("fit_line", problem);
  std::vector<std::size_t> all(x.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const Ols base = ols(x, y, all);
  if (!base.ok) throw ContractError("fit_line", "all x values are equal: the slope is undefined");

  LineFit f;
  f.n = x.size();
  f.slope = base.slope;
  f.intercept = base.intercept;
  f.r2 = base.syy > 0 ? 1.0 - base.sse / base.syy : 1.0;
  const int dof = static_cast<int>(f.n) - 2;
  if (dof >= 1) {
    f.slope_stderr = std::sqrt(base.sse / dof / base.sxx);
    const double q = student_t_quantile(opt.confidence, dof);
    f.t_interval = Interval{f.slope - q * f.slope_stderr, f.slope + q * f.slope_stderr};
  }

  // Percentile bootstrap over points. A resample with one distinct x has no slope and is skipped;
  // if too few resamples carry a slope the interval stays unbounded (the fit cannot say).
  SplitMix64 rng(opt.seed);
  std::vector<double> slopes;
  std::vector<std::size_t> idx(f.n);
  for (int b = 0; b < opt.bootstrap_resamples; ++b) {
    for (auto& i : idx) i = rng.uniform_index(f.n);
    const Ols r = ols(x, y, idx);
    if (r.ok) slopes.push_back(r.slope);
  }
  if (f.n >= 3 && slopes.size() * 2 >= static_cast<std::size_t>(opt.bootstrap_resamples)) {
    std::sort(slopes.begin(), slopes.end());
    const double tail = (1.0 - opt.confidence) / 2.0;
    const auto at = [&](double q) {
      const auto k = static_cast<std::size_t>(std::floor(q * static_cast<double>(slopes.size() - 1)));
      return slopes[std::min(k, slopes.size() - 1)];
    };
    f.bootstrap_interval = Interval{at(tail), slopes[static_cast<std::size_t>(
                                                  std::ceil((1.0 - tail) * static_cast<double>(slopes.size() - 1)))]};
  }
  f.interval = Interval{std::min(f.t_interval.lo, f.bootstrap_interval.lo), std::max(f.t_interval.hi, f.bootstrap_interval.hi)};
  if (mutated(Mutant::FitterSlopeBias)) {
    f.slope += 0.1;
    for (Interval* i : {&f.t_interval, &f.bootstrap_interval, &f.interval}) *i = Interval{i->lo + 0.1, i->hi + 0.1};
  }
  return f;
}

LineFit fit_loglog(const std::vector<double>& x, const std::vector<double>& y, const FitOptions& opt) {
  if (const std::string problem = loglog_points_problem(x, y); !problem.empty()) throw ContractError("fit_loglog", problem);
  std::vector<double> lx, ly;
  for (std::size_t i = 0; i < x.size(); ++i) {
    lx.push_back(std::log(x[i]));
    ly.push_back(std::log(y[i]));
  }
  return fit_line(lx, ly, opt);
}

}  // namespace infoflow
