#pragma once
// Theorem 2's target (docs/theory.md §4): scalar tokens x(t) ∈ [0,1], F_k(X) = the k-th largest of x(1..T).
// Computed by a sorting network of max/min, so it is exact in double and MPFR and an enclosure in arb.
#include "numerics/model/target.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/errors.hpp"

#include <string>

namespace infoflow {

struct KthLargest {
  int k = 1;
  template <class S>
  S operator()(const Sequence<S>& X) const {
    if (k < 1 || k > static_cast<int>(X.size()))
      throw ContractError("KthLargest", "k: expected 1 <= k <= T, got k = " + std::to_string(k) + " with T = " + std::to_string(X.size()));
    std::vector<S> v;
    for (const auto& x : X) v.push_back(x[0]);
    // Bubble passes move the k largest to the front in decreasing order.
    for (int i = 0; i < k; ++i)
      for (std::size_t j = v.size() - 1; j > static_cast<std::size_t>(i); --j) {
        const S hi = ScalarTraits<S>::max_of(v[j - 1], v[j]);
        const S lo = -ScalarTraits<S>::max_of(-v[j - 1], -v[j]);
        v[j - 1] = hi;
        v[j] = lo;
      }
    if (mutated(Mutant::KthOffByOne)) return v[std::min<std::size_t>(k, v.size() - 1)];
    return v[k - 1];
  }
};

inline Target kth_largest_target(int k) {
  return make_target("k-th largest (k=" + std::to_string(k) + ")", [k](const auto& X) { return KthLargest{k}(X); });
}

}  // namespace infoflow
