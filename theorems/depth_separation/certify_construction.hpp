#pragma once
// Certified sup-error bound of a two-layer min-dot model over the whole domain [0,1]^{T·d} (docs/theory.md §3),
// computed from the model's actual weights: the hypotheses of every lemma are checked on the weights,
// the L5 errors of the FFN's actual ReLU expansions are bounded in arb over their intervals, and the L1
// terms come from the actual temperatures. It certifies the real-number function the weights define
// (the rounding of a floating-point evaluation is not part of the bound).
#include "numerics/model/model.hpp"

#include <string>
#include <vector>

namespace infoflow {

struct MinDotCertificate {
  bool hypotheses_ok = false;
  std::vector<std::string> violations;  // which hypothesis failed, on which weight
  double interpolation = 0.0;           // sup |g(q) − x(q)ᵀr(q)| (L5 pieces, arb), upper bound
  double layer1 = 0.0;                  // S(T, β1)
  double layer2 = 0.0;                  // S(T, β2)
  double total = 0.0;                   // interpolation + layer1 + layer2, rounded up
  double total_simple = 0.0;            // the same with (T−1)/(eβ) for S(T, β)
  double lower_deviation = 0.0;         // ŷ − F ≥ −lower_deviation (= interpolation)
};

MinDotCertificate certify_two_layer_min_dot(const Model& model, int T, long prec = 128);

}  // namespace infoflow
