#include "theorems/depth_separation/adversarial_families.hpp"

#include "numerics/lemmas/gibbs.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {
using mpfr::mpreal;
Sequence<mpreal> zeros(int T, int d, long bits) { return Sequence<mpreal>(T, Vec<mpreal>(d, mpreal(0, bits))); }
// A T × d sequence whose every coordinate is drawn by `coordinate` (in token-major order).
template <class Draw>
Sequence<mpreal> draw_sequence(int T, int d, long bits, Draw coordinate) {
  auto X = zeros(T, d, bits);
  for (auto& x : X)
    for (auto& v : x) v = mpreal(coordinate(), bits);
  return X;
}
}  // namespace

InputFamily random_cube_family(int T, int d, int count, SplitMix64& rng, long bits) {
  InputFamily f{"random-cube", "tokens uniform in [0,1]^d", {}};
  for (int k = 0; k < count; ++k) f.inputs.push_back(draw_sequence(T, d, bits, [&] { return rng.uniform(); }));
  return f;
}

InputFamily near_tie_family(int T, int d, int count, SplitMix64& rng, long bits) {
  InputFamily f{"near-tie", "the minimising pair nearly tied: a small token and a copy moved by 1e-6..1e-30", {}};
  for (int k = 0; k < count; ++k) {
    auto X = draw_sequence(T, d, bits, [&] { return rng.uniform(0.3, 1.0); });
    const mpreal delta = mpfr::pow(mpreal(10, bits), mpreal(-rng.uniform(6.0, 30.0), bits));
    for (int i = 0; i < d; ++i) {
      X[0][i] = mpreal(rng.uniform(0.05, 0.3), bits);
      if (T > 1) {
        mpreal moved = X[0][i] + delta * mpreal(rng.uniform(-1.0, 1.0), bits);
        X[T - 1][i] = mpfr::fmin(mpfr::fmax(moved, mpreal(0, bits)), mpreal(1, bits));
      }
    }
    f.inputs.push_back(X);
  }
  return f;
}

InputFamily faces_corners_family(int T, int d, int count, SplitMix64& rng, long bits) {
  InputFamily f{"faces-corners", "every coordinate 0, 1 or uniform (faces, edges, corners of the cube)", {}};
  for (int k = 0; k < count; ++k)
    f.inputs.push_back(draw_sequence(T, d, bits, [&] {
      const auto c = rng.uniform_index(3);
      return c == 0 ? 0.0 : c == 1 ? 1.0 : rng.uniform();
    }));
  return f;
}

InputFamily l1_worst_case_family(int T, int d, double beta, int count, long bits) {
  InputFamily f{"l1-worst-case",
                "along e_1: one token at a, T-1 at 1, a(1-a) = gamma * g*(T, beta1), gamma in [0.5, 2]", {}};
  const double gstar = gibbs_excess_worst_gap(T, ArbBall(beta, 128)).mid();
  for (int k = 0; k < count; ++k) {
    const double gamma = count > 1 ? std::pow(4.0, static_cast<double>(k) / (count - 1)) / 2.0 : 1.0;
    const double gap = std::min(0.25, gamma * gstar);
    // The root of a(1 − a) = gap near 1, computed in MPFR.
    const mpreal a = (mpreal(1, bits) + mpfr::sqrt(mpreal(1, bits) - 4 * mpreal(gap, bits))) / 2;
    auto X = zeros(T, d, bits);
    X[0][0] = a;
    for (int t = 1; t < T; ++t) X[t][0] = mpreal(1, bits);
    f.inputs.push_back(X);
  }
  return f;
}

}  // namespace infoflow
