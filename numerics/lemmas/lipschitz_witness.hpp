#pragma once
// Lemma L4: an FFN of width p, input dimension E, 1-Lipschitz activation and weights in [−1, 1] is
// p·√E-Lipschitz. Two inputs whose targets differ by ≥ 3ε but whose pre-readout states lie within A
// force every such readout with error < ε to have width p ≥ ε/(A√E). A witness pair is certified
// here in arb for a concrete encoder and attention.
#include "numerics/model/forward.hpp"

#include <string>

namespace infoflow {

struct WitnessCertificate {
  bool valid = false;        // |F(X1) − F(X2)| ≥ 3ε was proven and A > 0
  double target_gap_lower = 0.0;
  double state_distance_upper = 0.0;  // A
  double width_lower_bound = 0.0;     // ε/(A√E), rounded down; 0 when not valid
  std::string reason;
};

/// L4 with A an upper bound of the state distance: the certified lower end of ε/(A√E).
ArbBall lipschitz_width_lower_bound(const ArbBall& eps, const ArbBall& A, int E);

/// Certifies a witness pair against the model's pre-readout states, all in arb at `prec` bits.
/// F1 and F2 are enclosures of the target at X1 and X2 (the caller computes them in arb).
WitnessCertificate certify_witness(const ModelT<double>& model, const std::vector<std::vector<double>>& X1,
                                   const std::vector<std::vector<double>>& X2, const ArbBall& F1, const ArbBall& F2,
                                   double eps, long prec);

}  // namespace infoflow
