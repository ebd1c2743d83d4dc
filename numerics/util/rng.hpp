#pragma once
// A small, fully specified generator. std::uniform_*_distribution differ between standard
// libraries, which would break "same seed, same report"; these mappings do not.
#include <cmath>
#include <cstdint>
#include <string>

namespace infoflow {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform on {0, .., n−1}, by rejection (no modulo bias).
  std::size_t uniform_index(std::size_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t v;
    do v = next();
    while (v >= limit);
    return static_cast<std::size_t>(v % n);
  }
  /// Standard normal by Box–Muller.
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * uniform());
  }

 private:
  std::uint64_t s_;
};

/// A seed derived from a base seed and a label (e.g. a sweep point's key): FNV-1a, then mixed.
inline std::uint64_t derive_seed(std::uint64_t base, const std::string& label) {
  std::uint64_t h = 1469598103934665603ull ^ base;
  for (unsigned char c : label) h = (h ^ c) * 1099511628211ull;
  return SplitMix64(h).next();
}

}  // namespace infoflow
