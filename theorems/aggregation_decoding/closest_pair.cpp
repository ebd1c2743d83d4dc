#include "theorems/aggregation_decoding/closest_pair.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace infoflow {

namespace {
double dist(const std::vector<double>& p, int E, long a, long b) {
  double s = 0;
  for (int e = 0; e < E; ++e) {
    const double d = p[a * E + e] - p[b * E + e];
    s += d * d;
  }
  return std::sqrt(s);
}
bool better(const ClosestPair& a, const ClosestPair& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  return std::minmax(a.i, a.j) < std::minmax(b.i, b.j);  // deterministic tie-break
}
}  // namespace

ClosestPair closest_pair_brute_force(const std::vector<double>& p, int E) {
  const long N = static_cast<long>(p.size()) / E;
  if (N < 2) throw ContractError("closest_pair", "points: expected at least two points");
  ClosestPair best{0, 1, dist(p, E, 0, 1)};
  for (long a = 0; a < N; ++a)
    for (long b = a + 1; b < N; ++b) {
      const ClosestPair c{a, b, dist(p, E, a, b)};
      if (better(c, best)) best = c;
    }
  return best;
}

ClosestPair closest_pair(const std::vector<double>& p, int E, int threads, std::uint64_t seed) {
  const long N = static_cast<long>(p.size()) / E;
  if (N < 2) throw ContractError("closest_pair", "points: expected at least two points");
  // Upper bound: neighbours along a random direction.
  SplitMix64 rng(seed);
  std::vector<double> dir(E);
  for (auto& v : dir) v = rng.normal();
  std::vector<double> proj(N);
  for (long i = 0; i < N; ++i) {
    double s = 0;
    for (int e = 0; e < E; ++e) s += dir[e] * p[i * E + e];
    proj[i] = s;
  }
  std::vector<long> order(N);
  std::iota(order.begin(), order.end(), 0L);
  std::sort(order.begin(), order.end(), [&](long a, long b) { return proj[a] < proj[b] || (proj[a] == proj[b] && a < b); });
  ClosestPair best{order[0], order[1], dist(p, E, order[0], order[1])};
  for (long k = 1; k + 1 < N; ++k) {
    const ClosestPair c{order[k], order[k + 1], dist(p, E, order[k], order[k + 1])};
    if (better(c, best)) best = c;
  }
  if (best.distance == 0.0) return best;  // coincident images: nothing is closer
  // Grid hashing with side h = the upper bound: the true closest pair lies in adjacent cells.
  const double h = best.distance;
  double lo[8];
  for (int e = 0; e < E; ++e) {
    lo[e] = std::numeric_limits<double>::infinity();
    for (long i = 0; i < N; ++i) lo[e] = std::min(lo[e], p[i * E + e]);
  }
  auto cell_of = [&](long i, long* c) {
    for (int e = 0; e < E; ++e) c[e] = static_cast<long>(std::floor((p[i * E + e] - lo[e]) / h));
  };
  auto key = [&](const long* c) {
    std::uint64_t k = 1469598103934665603ull;
    for (int e = 0; e < E; ++e) k = (k ^ static_cast<std::uint64_t>(c[e])) * 1099511628211ull;
    return k;
  };
  std::unordered_map<std::uint64_t, std::vector<long>> cells;
  cells.reserve(static_cast<std::size_t>(N));
  std::vector<long> coord(static_cast<std::size_t>(N) * E);
  for (long i = 0; i < N; ++i) {
    cell_of(i, &coord[i * E]);
    cells[key(&coord[i * E])].push_back(i);
  }
  int neighbours = 1;
  for (int e = 0; e < E; ++e) neighbours *= 3;
#pragma omp parallel num_threads(threads > 0 ? threads : 1)
  {
    ClosestPair local = best;
#pragma omp for schedule(dynamic, 4096)
    for (long i = 0; i < N; ++i) {
      long c[8];
      for (int nb = 0; nb < neighbours; ++nb) {
        int r = nb;
        for (int e = 0; e < E; ++e) {
          c[e] = coord[i * E + e] + (r % 3) - 1;
          r /= 3;
        }
        const auto it = cells.find(key(c));
        if (it == cells.end()) continue;
        for (long j : it->second) {
          if (j <= i) continue;
          const ClosestPair cand{i, j, dist(p, E, i, j)};
          if (better(cand, local)) local = cand;
        }
      }
    }
#pragma omp critical
    if (better(local, best)) best = local;
  }
  if (mutated(Mutant::ClosestPairSecondBest) && N > 2) {
    // A pair that is not the closest: the first point and the last.
    double d2 = 0;
    for (int e = 0; e < E; ++e) d2 += (p[e] - p[(N - 1) * E + e]) * (p[e] - p[(N - 1) * E + e]);
    return ClosestPair{0, N - 1, std::sqrt(d2)};
  }
  return best;
}

}  // namespace infoflow
