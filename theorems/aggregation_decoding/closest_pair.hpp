#pragma once
// The exact closest pair among N points of R^E (E small), by grid hashing: with a cell side h no smaller than
// the closest distance, the closest pair lies in neighbouring cells. h starts from an upper bound (consecutive
// points along a random projection), so cells stay sparse. Cells are scanned in parallel (OpenMP).
#include <cstdint>
#include <vector>

namespace infoflow {

struct ClosestPair {
  long i = -1, j = -1;
  double distance = 0.0;
};

/// points: N × E, row-major. Throws InputError for fewer than two points.
ClosestPair closest_pair(const std::vector<double>& points, int E, int threads, std::uint64_t seed = 1);
/// O(N²) reference for tests.
ClosestPair closest_pair_brute_force(const std::vector<double>& points, int E);

}  // namespace infoflow
