#pragma once
// Lemma L3 for Theorem 2, certified on its adversarial family (docs/theory.md §4).
// Family member X_v: the top k − 1 tokens at value 1, the other T − k + 1 at value v < 1, so F_k(X_v) = v.
// For any score that is nondecreasing in the value, the top k − 1 tokens get at least the average weight,
// so one head's raw output is ŷ = v + (1 − v)·W_top with W_top ≥ (k − 1)/T at every temperature:
//   inf_β |ŷ(β) − F_k| ≥ (1 − v)(k − 1)/T > 0.
// For the score s(x) = x the infimum is attained at β = 0 (ŷ increases with β) and the limit β → ∞ is 1 − v.
// A non-monotone score s(x) = −(x − v)² puts the weight on the tokens at v, and the error → 0 as β → ∞:
// L3 needs monotonicity.
#include <vector>

namespace infoflow {

struct NoTemperatureCertificate {
  int T = 0, k = 0;
  double v = 0.0;
  double certified_infimum = 0.0;  // (1 − v)(k − 1)/T, rounded down (arb): bound for every monotone score and β
  double grid_min_linear = 0.0;    // min over the β grid of the error with s(x) = x (arb lower end)
  bool grid_respects_infimum = false;
  double limit_beta_infinity = 0.0;  // 1 − v
  double grid_min_nonmonotone = 0.0;  // min over the grid with s(x) = −(x − v)² (arb upper end)
  double nonmonotone_argmin_beta = 0.0;
};

/// Throws InputError for k < 2, k > T or v outside [0, 1).
NoTemperatureCertificate certify_no_temperature(int T, int k, double v, const std::vector<double>& beta_grid, long prec = 128);

}  // namespace infoflow
