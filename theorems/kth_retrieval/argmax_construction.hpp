#pragma once
// Theorem 2, k = 1 (docs/theory.md §4): one head with score β·x(t) and value x(t), linear readout, no FFN at all.
//   encoder u(t) = [x(t); 1], ĉ0 = [0; 1]; head Q = [0 1], K = [1 0], V = [1 0]; W_O writes slot 0 of the
//   CLS state (zero before); readout y = c[0].
// Error budget (L1, max form): ŷ is the Gibbs mean of the values with weights ∝ e^{βx}, so
//   0 ≤ F_1 − ŷ ≤ S(T, β) = W((T−1)/e)/β;  β = S(T, 1)/ε (rounded up) gives error ≤ ε with M_ffn = 0.
// The supremum is attained: one token at 1 and T − 1 at 1 − g*, g* = (1 + W((T−1)/e))/β.
#include "numerics/model/model.hpp"

#include <string>
#include <vector>

namespace infoflow {

class OneHeadArgmaxConstruction {
 public:
  /// Throws InputError for T < 1 or ε outside (0, 1).
  OneHeadArgmaxConstruction(int T, double eps);
  const Model& model() const { return model_; }
  double beta() const { return beta_; }

 private:
  Model model_;
  double beta_;
};

struct ArgmaxCertificate {
  bool hypotheses_ok = false;
  std::vector<std::string> violations;
  double bound = 0.0;         // S(T, β): 0 ≤ F_1 − ŷ ≤ bound over [0,1]^T
  double bound_simple = 0.0;  // (T − 1)/(eβ)
};

ArgmaxCertificate certify_argmax_retrieval(const Model& model, int T, long prec = 128);

}  // namespace infoflow
