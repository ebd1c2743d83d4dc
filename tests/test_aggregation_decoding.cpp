#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/aggregation_decoding/aggregation_maps.hpp"
#include "theorems/aggregation_decoding/closest_pair.hpp"
#include "theorems/aggregation_decoding/packing_bound.hpp"

#include <catch2/catch.hpp>

#include <cmath>

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
