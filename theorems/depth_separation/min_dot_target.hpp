#pragma once
// Theorem 1's retrieval target (docs/theory.md §3): F(X) = min over all pairs s, t (s = t included) of x(s)ᵀx(t).
#include "numerics/model/target.hpp"
#include "numerics/util/mutation.hpp"

namespace infoflow {

struct MinPairwiseDot {
  template <class S>
  S operator()(const Sequence<S>& X) const {
    const bool skip_diagonal = mutated(Mutant::TargetSkipsDiagonal) && X.size() > 1;
    S best = skip_diagonal ? dot(X[0], X[1]) : dot(X[0], X[0]);
    for (std::size_t s = 0; s < X.size(); ++s)
      for (std::size_t t = skip_diagonal ? s + 1 : s; t < X.size(); ++t)
        best = -ScalarTraits<S>::max_of(-best, -dot(X[s], X[t]));
    return best;
  }
  template <class S>
  static S dot(const Vec<S>& a, const Vec<S>& b) {
    S acc = a[0] * b[0];
    for (std::size_t i = 1; i < a.size(); ++i) acc += a[i] * b[i];
    return acc;
  }
};

inline Target min_pairwise_dot_target() {
  return make_target("min_{s,t} x(s).x(t)", [](const auto& X) { return MinPairwiseDot{}(X); });
}

}  // namespace infoflow
