#include "numerics/lemmas/gibbs.hpp"
#include "numerics/lemmas/lipschitz_witness.hpp"
#include "numerics/lemmas/relu_square.hpp"
#include "numerics/model/random_model.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace infoflow;

TEST_CASE("S(T, beta) in arb matches a brute-force maximisation and the reference figures (docs/theory.md §2)", "[lemmas][L1]") {
  for (long T : {1L, 2L, 3L, 4L, 5L, 9L, 33L, 100L, 1024L}) {
    for (double beta : {0.5, 1.0, 37.0}) {
      const ArbBall S = gibbs_excess_sup(T, ArbBall(beta, 128));
      const double brute = gibbs_excess_sup_bruteforce(T, beta);
      INFO("T = " << T << ", beta = " << beta << ", S = " << S.to_string() << ", search = " << brute);
      REQUIRE(brute <= S.upper() + 1e-13);
      REQUIRE(brute >= S.lower() - 1e-9 / beta);
      REQUIRE(S.rad() < 1e-30);
    }
  }
  // docs/theory.md §2: beta*S = 0.46, 0.72, 1.04 at T = 3, 5, 9.
  REQUIRE(gibbs_excess_sup(3, ArbBall(1.0, 64)).mid() == Approx(0.46).margin(0.005));
  REQUIRE(gibbs_excess_sup(5, ArbBall(1.0, 64)).mid() == Approx(0.72).margin(0.005));
  REQUIRE(gibbs_excess_sup(9, ArbBall(1.0, 64)).mid() == Approx(1.04).margin(0.005));
  REQUIRE(gibbs_excess_sup(1, ArbBall(1.0, 64)).upper() == 0.0);
}

TEST_CASE("Gibbs excess of random vectors lies in [0, S(T, beta)] in MPFR", "[lemmas][L1]") {
  auto rng = test::rng_for("l1-random");
  for (int i = 0; i < 300 * test::multiplier(); ++i) {
    const int T = 1 + static_cast<int>(rng.uniform_index(40));
    const double beta = std::exp(rng.uniform(-2, 8));
    std::vector<mpfr::mpreal> b;
    for (int t = 0; t < T; ++t) b.emplace_back(rng.uniform(-1, 1), 200);
    const mpfr::mpreal ex = gibbs_mean_excess(b, mpfr::mpreal(beta, 200));
    INFO("T = " << T << ", beta = " << beta);
    REQUIRE(ex >= 0);
    REQUIRE(ex.toDouble() <= gibbs_excess_sup(T, ArbBall(beta, 128)).upper());
  }
}

TEST_CASE("The worst gap attains S(T, beta) and the simple bound dominates it", "[lemmas][L1]") {
  for (long T : {2L, 6L, 50L}) {
    const double beta = 11.0;
    const double g = gibbs_excess_worst_gap(T, ArbBall(beta, 128)).mid();
    std::vector<double> b(T, g);
    b[0] = 0.0;
    REQUIRE(gibbs_mean_excess(b, beta) == Approx(gibbs_excess_sup(T, ArbBall(beta, 128)).mid()).epsilon(1e-12));
    REQUIRE(less_equal(gibbs_excess_sup(T, ArbBall(beta, 128)), gibbs_excess_simple_bound(T, ArbBall(beta, 128))) ==
            Tribool::True);
  }
}

TEST_CASE("L3: softmax weight on the k-th largest is at most 1/k", "[lemmas][L3]") {
  auto rng = test::rng_for("l3");
  for (int i = 0; i < 200 * test::multiplier(); ++i) {
    std::vector<double> s(2 + rng.uniform_index(20));
    for (auto& v : s) v = rng.uniform(-2, 2);
    REQUIRE(softmax_rank_weight_excess(s, std::exp(rng.uniform(-3, 5))) <= 1e-15);
  }
  // Equal scores are the extreme case: the k-th weight is exactly 1/T <= 1/k.
  REQUIRE(softmax_rank_weight_excess({1.0, 1.0, 1.0}, 5.0) <= 1e-15);
}

TEST_CASE("L5: the interpolant's certified error equals (b-a)^2/(4m^2), and a broken weight shows", "[lemmas][L5]") {
  for (int m : {1, 2, 3, 10, 64}) {
    const ReluExpansion f = relu_square_interpolant(-1, 1, m);
    const ArbBall cert = certified_sup_error_vs_square(f, 1.0, -1, 1, 128);
    const double bound = 4.0 / (4.0 * m * m);
    REQUIRE(cert.upper() == Approx(bound).epsilon(1e-12));
    // Sampled error never exceeds the certified one.
    for (int k = 0; k <= 1000; ++k) {
      const double z = -1 + 2.0 * k / 1000;
      REQUIRE(std::fabs(f(z) - z * z) <= cert.upper());
    }
    ReluExpansion broken = f;
    broken.coeffs.front() += 0.01;
    REQUIRE(certified_sup_error_vs_square(broken, 1.0, -1, 1, 128).upper() > bound * 1.001);
  }
}

TEST_CASE("L4: a witness pair is certified in arb and gives the width bound eps/(A sqrt E)", "[lemmas][L4]") {
  auto rng = test::rng_for("l4");
  Architecture a = feature_complete_architecture(1, 4, 3);
  const Model m = random_model(a, rng, 0.5);
  const std::vector<std::vector<double>> X1{{0.1}, {0.2}, {0.3}}, X2{{0.1}, {0.2}, {0.31}};
  const double eps = 0.01;
  // Targets 0.0 and 0.05 differ by >= 3 eps: valid witness.
  const WitnessCertificate c = certify_witness(m, X1, X2, ArbBall(0.0, 128), ArbBall(0.05, 128), eps, 128);
  REQUIRE(c.valid);
  const auto s1 = forward(m, X1).cls_state, s2 = forward(m, X2).cls_state;
  double d2 = 0;
  for (std::size_t i = 0; i < s1.size(); ++i) d2 += (s1[i] - s2[i]) * (s1[i] - s2[i]);
  REQUIRE(c.state_distance_upper >= std::sqrt(d2) * (1 - 1e-12));
  REQUIRE(c.width_lower_bound == Approx(eps / (std::sqrt(d2) * 2.0)).epsilon(1e-9));
  // Targets only 2 eps apart: not a witness.
  REQUIRE_FALSE(certify_witness(m, X1, X2, ArbBall(0.0, 128), ArbBall(0.02, 128), eps, 128).valid);
}

TEST_CASE("L2: the off-arg-max weight bound holds", "[lemmas][L2]") {
  auto rng = test::rng_for("l2");
  for (int i = 0; i < 200 * test::multiplier(); ++i) {
    const int T = 2 + static_cast<int>(rng.uniform_index(10));
    const double beta = rng.uniform(0.1, 30), gap = rng.uniform(0.01, 1);
    std::vector<double> s(T);
    s[0] = 1.0;
    for (int t = 1; t < T; ++t) s[t] = 1.0 - gap - rng.uniform(0, 1);
    double den = 0;
    for (double v : s) den += std::exp(beta * (v - 1.0));
    REQUIRE(1.0 - 1.0 / den <= gap_retrieval_off_weight_bound(T, ArbBall(beta, 128), ArbBall(gap, 128)).upper() + 1e-15);
  }
}
