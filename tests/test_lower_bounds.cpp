// Certified class lower bounds (docs/lower-bounds.md): the packing inequality against its double oracle,
// the completion family's certification against exhaustive sampling, and the dilution bound.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "theorems/depth_separation/completion_family.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <array>
#include <cstdio>
#include <vector>

using namespace infoflow;

TEST_CASE("packing bound: arb agrees with the double oracle and stays below it", "[lower-bounds]") {
  for (int h : {1, 2})
    for (int n : {1, 2, 3})
      for (int r : {3, 6, 8})
        for (double eps : {1e-2, 1e-4, 1e-7}) {
          const SingleLayerClass cls{h, n};
          const PackingFamily fam{r, r, 0.07, 2.0};
          const ClassPackingBound b = completion_packing_bound(cls, fam, eps);
          if (b.grid == 0) continue;
          const double oracle = completion_packing_bound_double(cls, fam, eps, b.grid);
          INFO("h=" << h << " n=" << n << " r=" << r << " eps=" << eps << " G=" << b.grid << " arb=" << b.lr_lower
                    << " double=" << oracle);
          CHECK(b.lr_lower <= oracle * (1 + 1e-9));
          CHECK(b.lr_lower >= oracle * (1 - 1e-6));
        }
}

TEST_CASE("packing bound: the radius t_up satisfies the inequality it certifies", "[lower-bounds]") {
  // With N prefixes and t = t_up the capacity is below N; at t_up/(1+1e-3) it is above: t_up is tight.
  const SingleLayerClass cls{1, 1};
  const PackingFamily fam{6, 6, 0.05, 2.0};
  double t_up = 0;
  const double lr = completion_packing_bound_at_grid(cls, fam, 1e-5, 400, &t_up);
  REQUIRE(lr > 0);
  auto capacity = [&](double t) { return std::log(2.0) + std::log1p(2 / t) + std::log1p(12 / t); };
  CHECK(capacity(t_up) < 6 * std::log(400.0));
  CHECK(capacity(t_up / (1 + 1e-3)) > 6 * std::log(400.0));
  CHECK_THAT(lr, Catch::Matchers::WithinRel((0.05 / 399 - 2e-5) / t_up, 1e-9));
}

TEST_CASE("packing bound: slope of log(L R) against log(1/eps) approaches r/(h(n+1)) - 1", "[lower-bounds]") {
  for (auto [h, n, r] : std::vector<std::array<int, 3>>{{1, 1, 6}, {1, 2, 8}, {2, 1, 8}}) {
    const SingleLayerClass cls{h, n};
    const PackingFamily fam{r, r, 0.03, 2.0};
    const double a = completion_packing_bound(cls, fam, 1e-9).lr_lower;
    const double b = completion_packing_bound(cls, fam, 1e-11).lr_lower;
    const double slope = std::log(b / a) / std::log(100.0);
    INFO("h=" << h << " n=" << n << " r=" << r << " slope=" << slope);
    CHECK(std::fabs(slope - (static_cast<double>(r) / (h * (n + 1)) - 1)) < 0.02);
  }
}

TEST_CASE("packing bound: rejects bad arguments and is vacuous when N cannot exceed C", "[lower-bounds]") {
  CHECK_THROWS_AS(completion_packing_bound({0, 1}, {3, 3, 0.1, 2}, 1e-3), InputError);
  CHECK_THROWS_AS(completion_packing_bound({1, 1}, {3, 3, 0.1, 2}, 0.0), InputError);
  CHECK_THROWS_AS(completion_packing_bound({1, 1}, {3, 3, -1, 2}, 1e-3), InputError);
  // Memorisation: n >= r makes the exponent negative; the bound falls below the trivial one.
  const ClassPackingBound b = completion_packing_bound({1, 8}, {4, 4, 0.07, 2.0}, 1e-6);
  CHECK(b.exponent < 0);
  CHECK(b.vacuous);
}

TEST_CASE("dilution bound: closed forms", "[lower-bounds]") {
  CHECK_THAT(dilution_lower_bound(8, 0.1, false), Catch::Matchers::WithinRel(0.8 * 4, 1e-12));
  CHECK(dilution_lower_bound(8, 0.1, false) <= 0.8 * 4);
  CHECK_THAT(dilution_lower_bound(8, 0.1, true), Catch::Matchers::WithinRel(0.8 * 6 / 4, 1e-12));
  CHECK(dilution_lower_bound(8, 0.6, false) == 0);
  CHECK_THROWS_AS(dilution_lower_bound(1, 0.1, false), InputError);
}

TEST_CASE("completion family: certified parameters hold on every sampled point", "[lower-bounds]") {
  for (int m : {2, 3, 4}) {
    const CompletionFamilyParams p = search_completion_family(m, 20261130 + m, 1500);
    const CompletionFamilyCertificate cert = certify_completion_family(p);
    INFO("m=" << m << " r=" << p.r << " s=" << p.s << " rho=" << p.rho << " failure=" << cert.failure);
    REQUIRE(cert.certified);
    CHECK(cert.output_range_lower > 0);
    CHECK(completion_family_min_slack(p) > 0);
    // Random θ in the box: the minimising pair is (z_j, x_j), so the target equals the family's formula.
    SplitMix64 rng = test::rng_for("completion-family-m" + std::to_string(m));
    for (int trial = 0; trial < 200 * test::multiplier(); ++trial) {
      std::vector<double> theta;
      for (int k = 0; k < m; ++k) theta.push_back(rng.uniform(0, p.rho));
      const int j = static_cast<int>(rng.uniform_index(m));
      const auto X = completion_family_input(p, theta, j);
      double F = INFINITY;
      for (const auto& a : X)
        for (const auto& b : X) F = std::min(F, a[0] * b[0] + a[1] * b[1]);
      for (const auto& a : X) CHECK((a[0] >= 0 && a[0] <= 1 && a[1] >= 0 && a[1] <= 1));
      CHECK_THAT(F, Catch::Matchers::WithinAbs(completion_family_value(p, theta, j), 1e-12));
    }
  }
}

TEST_CASE("completion family: a range past the certified one is refused", "[lower-bounds]") {
  CompletionFamilyParams p = search_completion_family(3, 7, 1500);
  p.rho /= 0.95;   // the largest feasible range: some condition is tight
  p.rho *= 1.5;    // now some condition fails somewhere in the box
  CHECK(completion_family_min_slack(p) < 0);
  CHECK_FALSE(certify_completion_family(p, 512).certified);
}

