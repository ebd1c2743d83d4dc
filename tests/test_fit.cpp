#include "numerics/fit/exponent_fit.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace infoflow;

TEST_CASE("Student t quantiles match tables", "[fit]") {
  REQUIRE(student_t_quantile(0.95, 1) == Approx(12.7062).epsilon(1e-4));
  REQUIRE(student_t_quantile(0.95, 5) == Approx(2.5706).epsilon(1e-4));
  REQUIRE(student_t_quantile(0.95, 30) == Approx(2.0423).epsilon(1e-4));
}

TEST_CASE("The fitter recovers known slopes within its interval", "[fit]") {
  auto rng = test::rng_for("fit-known");
  int covered = 0, trials = 0;
  for (double k : {-1.0, 0.5, 3.0}) {
    for (int rep = 0; rep < 30 * test::multiplier(); ++rep) {
      std::vector<double> x, y;
      for (int i = 0; i < 9; ++i) {
        x.push_back(std::pow(2.0, i));
        y.push_back(0.7 * std::pow(x.back(), k) * std::exp(0.03 * rng.normal()));
      }
      const LineFit f = fit_loglog(x, y, FitOptions{rng.next()});
      INFO("k = " << k << ", slope " << f.slope << " in [" << f.interval.lo << ", " << f.interval.hi << "]");
      REQUIRE(std::fabs(f.slope - k) < 0.1);
      REQUIRE(f.r2 > 0.99);
      covered += f.interval.lo <= k && k <= f.interval.hi;
      ++trials;
    }
  }
  REQUIRE(covered >= trials * 9 / 10);
}

TEST_CASE("Exact power laws pass a band around their slope, and noisy data is inconclusive", "[fit]") {
  std::vector<double> x, y;
  for (int i = 0; i < 6; ++i) x.push_back(std::pow(10.0, i * 0.5)), y.push_back(2 * std::sqrt(x.back()));
  const LineFit exact = fit_loglog(x, y);
  REQUIRE(exact.slope == Approx(0.5).epsilon(1e-12));
  REQUIRE(judge_interval(exact.interval, Interval{0.4, 0.6}) == Verdict::Pass);
  REQUIRE(judge_interval(exact.interval, Interval{0.7, 0.9}) == Verdict::Fail);

  auto rng = test::rng_for("fit-noisy");
  std::vector<double> ny;
  for (double xi : x) ny.push_back(2 * std::sqrt(xi) * std::exp(1.5 * rng.normal()));
  const LineFit noisy = fit_loglog(x, ny, FitOptions{7});
  INFO("noisy slope " << noisy.slope << " in [" << noisy.interval.lo << ", " << noisy.interval.hi << "]");
  REQUIRE(judge_interval(noisy.interval, Interval{0.4, 0.6}) == Verdict::Inconclusive);
}

TEST_CASE("Two points give no interval, so no verdict but inconclusive", "[fit]") {
  const LineFit f = fit_loglog({1.0, 10.0}, {1.0, 3.0});
  REQUIRE_FALSE(f.interval.bounded());
  REQUIRE(judge_interval(f.interval, Interval{0.0, 1.0}) == Verdict::Inconclusive);
}

TEST_CASE("The bootstrap is deterministic for a seed", "[fit]") {
  const std::vector<double> x{1, 2, 4, 8, 16}, y{1.1, 1.9, 4.3, 7.7, 16.5};
  const LineFit a = fit_loglog(x, y, FitOptions{42}), b = fit_loglog(x, y, FitOptions{42});
  REQUIRE(a.bootstrap_interval.lo == b.bootstrap_interval.lo);
  REQUIRE(a.bootstrap_interval.hi == b.bootstrap_interval.hi);
}

TEST_CASE("Points a fit cannot take are named by the problem check and refused as contract errors", "[fit]") {
  REQUIRE(loglog_points_problem({1, 2, 3}, {1, -2, 3}) == "y[1] must be positive and finite for a log-log fit");
  REQUIRE(loglog_points_problem({1}, {1}) == "expected at least two points to fit a slope");
  REQUIRE(loglog_points_problem({2, 2, 2}, {1, 2, 3}) == "all x values are equal: the slope is undefined");
  REQUIRE(loglog_points_problem({1, 2}, {1, 2}).empty());
  REQUIRE(line_points_problem({1, 2}, {1}) == "x and y have different lengths");
  REQUIRE_THROWS_AS(fit_loglog({1, 2, 3}, {1, -2, 3}), ContractError);
  REQUIRE_THROWS_AS(fit_loglog({1}, {1}), ContractError);
  REQUIRE_THROWS_AS(fit_loglog({2, 2, 2}, {1, 2, 3}), ContractError);
}
