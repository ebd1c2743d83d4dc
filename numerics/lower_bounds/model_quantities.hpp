#pragma once
// The quantities the class lower bounds speak of, computed with certified upper bounds from a single-layer
// model's actual weights (docs/lower-bounds.md §6): the readout's Lipschitz constant L on the CLS state and,
// per head i, R_i = sup ‖W_O^(i) V_i P(x, t)‖ over a set of tokens or over an input box.
#include "numerics/model/model.hpp"
#include "numerics/scalar/arb_ball.hpp"

#include <string>
#include <vector>

namespace infoflow {

struct LipschitzUpper {
  double value = 0;
  std::string method;  // "affine: row norm", "ffn: every activation pattern", "ffn: min(sum of rank-one norms, Frobenius)",
                       // "gelu ffn: every vertex of the slopes' box", "gelu ffn: 1.129 × min(...)"
};

/// A certified upper bound on the Euclidean Lipschitz constant of the readout R^E → R. For a ReLU FFN of width
/// p ≤ 16 it is the largest gradient norm over every activation pattern (exact for the patterns a model can
/// reach, an upper bound always); wider FFNs get min(Σ_k |W2_k|·‖W1_k‖, ‖W2‖_F·‖W1‖_F). GeLU units' slopes lie in
/// [−0.129, 1.129] (numerics/scalar/gelu.hpp): at p ≤ 16 every vertex of that box, wider ones 1.129 times the latter.
LipschitzUpper readout_lipschitz_upper(const ModelT<ArbBall>& model);

/// Per head of the (single) layer: a certified upper bound on sup ‖W_O^(i) V_i P(x, t)‖ over the given
/// tokens at every position t < T (t ranges over the positional table only when the model has one).
std::vector<double> head_value_norms_on_tokens(const ModelT<ArbBall>& model, const std::vector<std::vector<ArbBall>>& tokens,
                                               int T);

/// The same over the whole box [lo, hi]^d, by interval evaluation on `cells` equal cells per coordinate
/// (at most 4096 cells in all; fewer per coordinate when d is large).
std::vector<double> head_value_norms_on_box(const ModelT<ArbBall>& model, int T, double lo, double hi, int cells = 16);

/// A certified upper bound on max_X |model(X) − F(X)| over finitely many inputs whose targets are given as
/// balls (every input is evaluated in arb).
double family_error_upper(const ModelT<ArbBall>& model, const std::vector<std::vector<std::vector<ArbBall>>>& inputs,
                          const std::vector<ArbBall>& targets);

}  // namespace infoflow
