#pragma once
// Seed and effort for randomized tests: INFOFLOW_SEED replays a case, INFOFLOW_TEST_MULTIPLIER
// scales the number of random cases (CI uses 1; a nightly run more).
#include "numerics/model/architecture.hpp"
#include "numerics/util/rng.hpp"

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <cstdlib>
#include <string>

namespace infoflow::test {

inline std::uint64_t seed() {
  static const std::uint64_t s = [] {
    const char* env = std::getenv("INFOFLOW_SEED");
    const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : 20260529ull;
    std::fprintf(stderr, "randomized tests: INFOFLOW_SEED=%llu\n", static_cast<unsigned long long>(v));
    return v;
  }();
  return s;
}

inline int multiplier() {
  const char* env = std::getenv("INFOFLOW_TEST_MULTIPLIER");
  const int m = env ? std::atoi(env) : 1;
  return m > 0 ? m : 1;
}

/// A file name in the system's temporary directory, unique to this process (tests run in parallel under ctest).
inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("infoflow-test-" + std::to_string(::getpid()) + "-" + name)).string();
}

/// One layer with `heads` heads of key and value dimension 1, an affine encoder R^d -> R^E, no FFN, and the given
/// readout (affine E -> 1 by default): the smallest models the hand-made numeric cases are built on.
inline Architecture one_layer_architecture(int d, int E, int heads, MapShape readout = MapShape{}) {
  Architecture a;
  a.d = d, a.E = E;
  a.encoder = MapShape{MapKind::Affine, d, E, 0};
  a.layers = {LayerShape{std::vector<HeadShape>(heads, HeadShape{1, 1}), 0}};
  a.readout = readout.out == 0 ? MapShape{MapKind::Affine, E, 1, 0} : readout;
  return a;
}

/// A generator for one test case, derived from the global seed and the case's name.
inline SplitMix64 rng_for(const std::string& name) { return SplitMix64(derive_seed(seed(), name)); }

}  // namespace infoflow::test
