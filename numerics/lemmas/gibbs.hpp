#pragma once
// Lemmas L1-L3 of docs/theory.md §2: how far a softmax (Gibbs) average of scores sits from their minimum or
// maximum, how much weight a score gap leaves off the arg-max, and why no temperature isolates a
// score that is not the largest.
#include "numerics/scalar/scalar_traits.hpp"

#include <cstddef>
#include <vector>

namespace infoflow {

/// L1: Σ_t w_t b_t − min_t b_t with w_t ∝ exp(−β b_t), evaluated stably. In [0, S(T, β)].
template <class S>
S gibbs_mean_excess(const std::vector<S>& b, const S& beta) {
  using Tr = ScalarTraits<S>;
  S lo = b[0];
  for (const auto& v : b) lo = -Tr::max_of(-lo, -v);
  S num = Tr::zero_like(lo), den = Tr::zero_like(lo);
  for (const auto& v : b) {
    const S gap = v - lo;
    const S w = Tr::exp_of(-(beta * gap));
    num += w * gap;
    den += w;
  }
  return num / den;
}

/// L1's paper-style bound (T − 1)/(e β), an enclosure.
ArbBall gibbs_excess_simple_bound(long T, const ArbBall& beta);

/// The exact supremum S(T, β) of the Gibbs-mean excess over all score vectors of length T, as a
/// rigorous enclosure. Derivation (docs/lemmas.md): the supremum is attained with the T − 1
/// non-minimal scores at one common gap g; f(g) = (T−1) g / (e^{βg} + T − 1) has one critical point,
/// where e^{βg}(βg − 1) = T − 1, and there f = g − 1/β. With s = βg − 1, s e^s = (T−1)/e, so
/// β·S(T, β) = W((T − 1)/e), W the principal Lambert W.
ArbBall gibbs_excess_sup(long T, const ArbBall& beta);

/// The gap g at which the supremum is attained: g = (1 + W((T−1)/e))/β.
ArbBall gibbs_excess_worst_gap(long T, const ArbBall& beta);

/// S(T, β) by a dense search over the gap in double: the test oracle for gibbs_excess_sup.
double gibbs_excess_sup_bruteforce(long T, double beta);

/// L2: weight left off the arg-max when the top score exceeds every other by Δ (upper bound).
ArbBall gap_retrieval_off_weight_bound(long T, const ArbBall& beta, const ArbBall& gap);

/// L3: for scores sorted decreasingly, softmax weights are ordered the same way, so the weight on
/// the k-th largest is at most 1/k. Returns the largest violation w_(k) − 1/k over k (≤ 0 when L3 holds).
double softmax_rank_weight_excess(const std::vector<double>& scores, double beta);

}  // namespace infoflow
