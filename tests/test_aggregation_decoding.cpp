#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/aggregation_decoding/aggregation_maps.hpp"
#include "theorems/aggregation_decoding/closest_pair.hpp"
#include "theorems/aggregation_decoding/packing_bound.hpp"
#include "theorems/aggregation_decoding/snake_decoder.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

using namespace infoflow;

TEST_CASE("The closest pair by grid hashing equals brute force", "[thm3]") {
  auto rng = test::rng_for("closest-pair");
  for (int rep = 0; rep < 20 * test::multiplier(); ++rep) {
    const int E = 1 + static_cast<int>(rng.uniform_index(3));
    const int N = 2 + static_cast<int>(rng.uniform_index(400));
    std::vector<double> p(static_cast<std::size_t>(N) * E);
    for (auto& v : p) v = rng.uniform(-1, 1);
    if (rep % 4 == 0) p[E] = p[0];  // an exact duplicate
    const ClosestPair fast = closest_pair(p, E, 2, rep), slow = closest_pair_brute_force(p, E);
    INFO("E = " << E << ", N = " << N);
    REQUIRE(fast.distance == slow.distance);
  }
  // On the images of small grids, for every map.
  for (auto [T0, E, eps] : {std::tuple{2, 1, 1.0 / 24}, {3, 2, 1.0 / 12}, {2, 2, 1.0 / 30}}) {
    const GridSpec g = make_grid(T0, 1, eps);
    const RandomLinearMap lin(T0, E, 3);
    const PositionalAverageMap pos(T0, 1, E, 4);
    const LatticePackingMap lat(g, E);
    for (const AggregationMap* m : std::initializer_list<const AggregationMap*>{&lin, &pos, &lat}) {
      std::vector<double> pts;
      for (long k = 0; k < static_cast<long>(g.count()); ++k) {
        const auto v = m->apply(g, k);
        pts.insert(pts.end(), v.begin(), v.end());
        double n2 = 0;
        for (double x : v) n2 += x * x;
        REQUIRE(n2 <= 1.0 + 1e-12);  // inside the unit ball
        const auto a = m->apply_arb(g, k, 128);
        for (int e = 0; e < E; ++e) REQUIRE(std::fabs(a[e].mid() - v[e]) <= 1e-12);  // two routes agree
      }
      REQUIRE(closest_pair(pts, E, 1).distance == closest_pair_brute_force(pts, E).distance);
    }
  }
}

TEST_CASE("Packing: N random points in the unit ball always have a pair within delta_N", "[thm3]") {
  auto rng = test::rng_for("packing");
  for (int rep = 0; rep < 30 * test::multiplier(); ++rep) {
    const int E = 1 + static_cast<int>(rng.uniform_index(3));
    const int N = 2 + static_cast<int>(rng.uniform_index(300));
    std::vector<double> p;
    while (static_cast<int>(p.size()) < N * E) {
      std::vector<double> v(E);
      double n2 = 0;
      for (auto& x : v) {
        x = rng.uniform(-1, 1);
        n2 += x * x;
      }
      if (n2 <= 1) p.insert(p.end(), v.begin(), v.end());
    }
    const double deltaN = 2.0 / (std::pow(N, 1.0 / E) - 1.0);
    REQUIRE(closest_pair(p, E, 1).distance <= deltaN);
  }
}

TEST_CASE("The packing bound in arb agrees with a double computation", "[thm3]") {
  for (auto [T0, d, E] : {std::tuple{1, 1, 1}, {2, 1, 1}, {4, 1, 2}, {3, 2, 2}, {2, 1, 3}})
    for (double eps : {0.1, 1e-3, 1e-6}) {
      const PackingBound b = packing_bound(T0, d, E, eps);
      const double dbl = packing_width_double(T0, d, E, eps);
      INFO("T0 " << T0 << " d " << d << " E " << E << " eps " << eps << ": arb " << b.width.to_string() << ", double " << dbl);
      REQUIRE(b.width.rad() < 1e-20 * std::fabs(b.width.mid()));
      REQUIRE(b.width.mid() == Approx(dbl).epsilon(1e-10));
    }
}

TEST_CASE("A linear map with T0 d > E has a kernel direction", "[thm3]") {
  const RandomLinearMap m(4, 2, 9);
  const auto w = m.kernel_direction();
  REQUIRE(w.size() == 4);
  for (int e = 0; e < 2; ++e) {
    double s = 0;
    for (int j = 0; j < 4; ++j) s += m.matrix()[e * 4 + j] * w[j];
    REQUIRE(std::fabs(s) < 1e-12);
  }
  REQUIRE(RandomLinearMap(2, 2, 9).kernel_direction().empty());
}

TEST_CASE("Bad decoding arguments are InputErrors", "[thm3]") {
  REQUIRE_THROWS_WITH(packing_bound(0, 1, 1, 0.1), Catch::Contains("--T0"));
  REQUIRE_THROWS_WITH(packing_bound(1, 1, 0, 0.1), Catch::Contains("--E"));
  REQUIRE_THROWS_WITH(packing_bound(1, 1, 1, 0.4), Catch::Contains("--eps"));
  REQUIRE_THROWS_WITH(packing_bound(1, 1, 1, 0.0), Catch::Contains("--eps"));
}

TEST_CASE("The snake order: the closed form equals the enumeration, one digit moves by one per step", "[thm3]") {
  for (auto [r, g] : {std::pair{1, 5L}, {2, 2L}, {2, 3L}, {3, 3L}, {2, 4L}, {3, 5L}, {4, 2L}}) {
    const auto seq = snake_sequence(r, g);
    REQUIRE(static_cast<long>(seq.size()) == static_cast<long>(std::pow(g, r)));
    std::set<std::vector<long>> seen;
    for (std::size_t k = 0; k < seq.size(); ++k) {
      INFO("r = " << r << ", g = " << g << ", rank " << k);
      REQUIRE(snake_digits(static_cast<long>(k), r, g) == seq[k]);
      seen.insert(seq[k]);
      if (k == 0) continue;
      long moved = 0;
      for (int j = 0; j < r; ++j) moved += std::labs(seq[k][j] - seq[k - 1][j]);
      REQUIRE(moved == 1);
    }
    REQUIRE(static_cast<long>(seen.size()) == static_cast<long>(seq.size()));  // every configuration once
  }
}

TEST_CASE("The snake decoder: weights in [-1, 1], width as the closed form, every configuration decoded", "[thm3]") {
  // Uneven blocks (3, 1, 2), (5, 1, 2); E = 3 and 6, where 1/sqrt(E) in double would put the state outside the ball.
  for (auto [T0, d, E, g] : {std::tuple{2, 1, 1, 4L}, {4, 1, 2, 3L}, {3, 2, 2, 2L}, {3, 1, 2, 5L}, {2, 1, 2, 6L},
                             {5, 1, 2, 3L}, {6, 1, 3, 3L}, {3, 1, 3, 4L}, {6, 1, 6, 2L}}) {
    INFO("T0 = " << T0 << ", d = " << d << ", E = " << E << ", g = " << g);
    const SnakeCode code = make_snake_code({T0, d, E}, g);
    const FfnDecoder dec = build_snake_decoder(code);
    REQUIRE(dec.p == snake_width_formula(code));
    const SnakeCertificate cert = certify_snake_decoder(code, dec);
    REQUIRE(cert.weights_in_unit_box);
    REQUIRE(cert.block_structure);
    REQUIRE(cert.order_is_bijection);
    REQUIRE(cert.state_in_unit_ball);
    REQUIRE(cert.lattice_error_upper < 1e-12);
    // A second route: the dense double forward pass (FfnDecoder::evaluate) at every one of the g^C configurations,
    // encoded from the configuration's digits by the block ranks (inverted by search over the closed form).
    const int C = T0 * d;
    long N = 1;
    for (int i = 0; i < C; ++i) N *= g;
    std::vector<std::map<std::vector<long>, long>> rank_of(E);
    for (int e = 0; e < E; ++e)
      for (long k = 0; k < code.block_points[e]; ++k) rank_of[e][snake_digits(k, code.block_digits[e], g)] = k;
    double worst = 0;
    for (long n = 0; n < N; ++n) {
      std::vector<long> digits(C);
      for (long rest = n, j = 0; j < C; ++j, rest /= g) digits[j] = rest % g;
      std::vector<double> v(E);
      for (int e = 0; e < E; ++e) {
        const auto first = digits.begin() + code.block_start(e);
        v[e] = snake_coordinate(code, e, rank_of[e].at(std::vector<long>(first, first + code.block_digits[e])));
      }
      const auto y = dec.evaluate(dec.params.data(), v, nullptr);
      for (int j = 0; j < C; ++j) worst = std::max(worst, std::fabs(y[j] - snake_grid_value(code, digits[j])));
    }
    REQUIRE(worst < 1e-12);
  }
}

TEST_CASE("The snake decoder's width grows as (2 eps)^(-2(r-1)) and stays above the packing bound", "[thm3]") {
  for (auto [T0, E] : {std::pair{4, 2}, {6, 2}, {2, 1}}) {
    const int r = T0 / E;
    for (long g : {4L, 6L}) {
      const SnakeCode code = make_snake_code({T0, 1, E}, g);
      const double W = static_cast<double>(snake_width_formula(code));
      const double bound = std::sqrt(static_cast<double>(E)) * std::pow(static_cast<double>(g), 2 * (r - 1)) * E +
                           2.0 * std::pow(static_cast<double>(g), r - 1) * E;
      INFO("T0 = " << T0 << ", E = " << E << ", g = " << g);
      REQUIRE(W <= bound);
      // Theorem 3's packing bound at the construction's error: no decoder below it.
      REQUIRE(W >= packing_bound(T0, 1, E, code.eps()).width.upper());
    }
  }
}

TEST_CASE("Snake construction arguments are InputErrors", "[thm3]") {
  REQUIRE_THROWS_AS(make_snake_code({1, 1, 2}, 4), InputError);  // T0 d < E
  REQUIRE_THROWS_AS(make_snake_code({2, 1, 1}, 1), InputError);
  REQUIRE_THROWS_AS(make_snake_code({40, 1, 1}, 3), InputError);  // 3^40 values on one coordinate
}

TEST_CASE("The snake encoder's scale keeps the state in the unit ball for every E", "[thm3]") {
  for (int E = 1; E <= 64; ++E) {
    const double s = snake_scale(E);
    INFO("E = " << E);
    REQUIRE((ArbBall(E, 128) * ArbBall(s, 128) * ArbBall(s, 128)).upper() <= 1.0);
    REQUIRE(s > (1.0 - 1e-15) / std::sqrt(static_cast<double>(E)));  // no more than rounding below 1/sqrt(E)
  }
  // A decoder too wide to build is refused before anything is allocated.
  REQUIRE_THROWS_AS(build_snake_decoder(make_snake_code({19, 1, 1}, 2)), InputError);
}
