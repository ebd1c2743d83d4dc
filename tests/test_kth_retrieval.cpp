#include "numerics/lemmas/gibbs.hpp"
#include "numerics/model/sampled_error.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/kth_retrieval/argmax_construction.hpp"
#include "theorems/kth_retrieval/kth_largest_target.hpp"
#include "theorems/kth_retrieval/no_temperature_lemma.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace infoflow;
using mpfr::mpreal;

TEST_CASE("k-th largest by the sorting network matches std::sort, and arb encloses it", "[thm2]") {
  auto rng = test::rng_for("kth");
  for (int i = 0; i < 100 * test::multiplier(); ++i) {
    const int T = 1 + static_cast<int>(rng.uniform_index(12));
    std::vector<std::vector<double>> X(T, std::vector<double>(1));
    for (auto& x : X) x[0] = rng.uniform();
    std::vector<double> v;
    for (const auto& x : X) v.push_back(x[0]);
    std::sort(v.rbegin(), v.rend());
    for (int k = 1; k <= T; ++k) {
      REQUIRE(KthLargest{k}(X) == v[k - 1]);
      REQUIRE(KthLargest{k}(convert_sequence<ArbBall>(X, Precision{64})).contains(mpreal(v[k - 1], 64)));
    }
  }
  REQUIRE_THROWS_AS(KthLargest{4}(std::vector<std::vector<double>>(3, {0.5})), ContractError);
}

TEST_CASE("k = 1: certified bound holds on random and worst-case inputs up to T = 1024 in MPFR", "[thm2]") {
  auto rng = test::rng_for("argmax");
  for (int T : {1, 2, 3, 17, 256, 1024}) {
    for (double eps : {0.1, 1e-3, 1e-6}) {
      const OneHeadArgmaxConstruction c(T, eps);
      const ArgmaxCertificate cert = certify_argmax_retrieval(c.model(), T);
      INFO("T = " << T << ", eps = " << eps);
      REQUIRE(cert.hypotheses_ok);
      REQUIRE(cert.bound <= eps);
      REQUIRE(parameter_counts(c.model()).ffn == 0);
      const auto hp = convert_model<mpreal>(c.model(), Precision{160});
      std::vector<Sequence<mpreal>> inputs;
      for (int i = 0; i < 3; ++i) {
        Sequence<mpreal> X(T, Vec<mpreal>(1, mpreal(0, 160)));
        for (auto& x : X) x[0] = mpreal(rng.uniform(), 160);
        inputs.push_back(X);
      }
      const double g = gibbs_excess_worst_gap(T, ArbBall(c.beta(), 128)).mid();
      Sequence<mpreal> W(T, Vec<mpreal>(1, mpreal(1.0 - g, 160)));
      W[0][0] = mpreal(1, 160);
      inputs.push_back(W);
      const SampledError e = sampled_error(hp, kth_largest_target(1), inputs);
      INFO("worst input " << e.worst_input);
      REQUIRE(e.max_signed <= 1e-40);  // never above the maximum, up to rounding at 160 bits
      REQUIRE(e.max_abs <= cert.bound);
      if (T > 1) REQUIRE(e.max_abs >= cert.bound * (1 - 1e-9));  // the worst case attains S(T, beta)
    }
  }
}

TEST_CASE("k = 1: a broken weight or a low temperature fails the certification", "[thm2]") {
  const OneHeadArgmaxConstruction c(8, 0.01);
  Model m = c.model();
  m.params[ParamLayout(m.arch).layers()[0].heads[0].K] = 0.5;
  REQUIRE_FALSE(certify_argmax_retrieval(m, 8).hypotheses_ok);
  Model cold = c.model();
  cold.temperatures[0] /= 3;
  REQUIRE(certify_argmax_retrieval(cold, 8).bound > 0.01);
  REQUIRE_THROWS_AS(OneHeadArgmaxConstruction(0, 0.1), ContractError);
  REQUIRE_THROWS_AS(OneHeadArgmaxConstruction(4, 1.5), ContractError);
}

TEST_CASE("L3 on its family: bounded away from zero for non-decreasing scores, not for -x or -(x-v)^2", "[thm2][L3]") {
  std::vector<double> grid{0.0};
  for (int i = -3; i <= 4; ++i) grid.push_back(std::pow(10.0, i));
  for (auto [T, k, v] : {std::tuple{3, 2, 0.0}, {5, 3, 0.5}, {8, 2, 0.9}}) {
    const NoTemperatureCertificate c = certify_no_temperature(T, k, v, grid);
    REQUIRE(c.certified_infimum == Approx((1 - v) * (k - 1) / T).epsilon(1e-12));
    REQUIRE(c.grid_respects_infimum);
    REQUIRE(c.grid_min_linear >= c.certified_infimum * (1 - 1e-12));
    REQUIRE(c.grid_min_nonmonotone < 1e-6);
    // The whole class of non-decreasing scores, in one arb evaluation over z in [0, 1].
    // (arb keeps radii in 30-bit magnitudes, so the interval [0, 1] costs ~1e-8 relative.)
    REQUIRE(c.class_lower_bound == Approx(c.certified_infimum).epsilon(1e-6));
    REQUIRE(c.class_lower_bound <= c.certified_infimum * (1 + 1e-12));
    REQUIRE(c.piecewise_scores > 0);
    REQUIRE(c.piecewise_min_lower >= c.class_lower_bound * (1 - 1e-12));
    // A decreasing score is not in the class, and it does retrieve the k-th value.
    REQUIRE(c.grid_min_decreasing < c.certified_infimum / 100);
  }
  REQUIRE_THROWS_AS(certify_no_temperature(3, 1, 0.5, grid), ContractError);
  REQUIRE_THROWS_AS(certify_no_temperature(3, 4, 0.5, grid), ContractError);
}
