#pragma once
// Lemma L3 for Theorem 2, certified on its adversarial family (docs/theory.md §4).
// Family member X_v: the top k − 1 tokens at value 1, the other T − k + 1 at value v < 1, so F_k(X_v) = v.
// For any score that is NON-DECREASING in the value, s(1) ≥ s(v), so for every β ≥ 0 the number
// z = exp(−β (s(1) − s(v))) lies in (0, 1], and one head's raw output is ŷ = v + (1 − v)·W_top with
//   W_top = (k − 1) / ((k − 1) + (T − k + 1) z) ≥ (k − 1)/T:
//   inf over every non-decreasing score and every β of |ŷ − F_k| ≥ (1 − v)(k − 1)/T > 0.
// The certificate evaluates W_top in arb with z the whole interval [0, 1]: one evaluation covers the
// whole class. For the score s(x) = x the infimum is attained at β = 0 and the limit β → ∞ is 1 − v.
// The hypothesis is needed: a DECREASING score s(x) = −x puts the weight on the tokens at v (z → ∞ as
// β → ∞), and so does the non-monotone s(x) = −(x − v)²; with either the error → 0. (A statement "for
// every monotone score" is false.)
#include <cstdint>
#include <vector>

namespace infoflow {

struct NoTemperatureCertificate {
  int T = 0, k = 0;
  double v = 0.0;
  double certified_infimum = 0.0;  // (1 − v)(k − 1)/T, rounded down: the closed form
  double class_lower_bound = 0.0;  // lower end of the arb enclosure over z ∈ [0, 1]: every non-decreasing score, every β
  double grid_min_linear = 0.0;    // min over the β grid of the error with s(x) = x (arb lower end)
  bool grid_respects_infimum = false;
  double limit_beta_infinity = 0.0;  // 1 − v
  double grid_min_nonmonotone = 0.0;  // min over the grid with s(x) = −(x − v)² (arb upper end)
  double nonmonotone_argmin_beta = 0.0;
  double grid_min_decreasing = 0.0;   // min over the grid with s(x) = −x (arb upper end)
  double decreasing_argmin_beta = 0.0;
  // Consistency: random non-decreasing piecewise-linear scores on the β grid, evaluated in arb.
  int piecewise_scores = 0;
  double piecewise_min_lower = 0.0;  // smallest arb lower end over them (must be ≥ class_lower_bound)
};

/// Throws ContractError for k < 2, k > T or v outside [0, 1). `seed` draws the piecewise-linear scores.
NoTemperatureCertificate certify_no_temperature(int T, int k, double v, const std::vector<double>& beta_grid,
                                                long prec = 128, std::uint64_t seed = 1);

}  // namespace infoflow
