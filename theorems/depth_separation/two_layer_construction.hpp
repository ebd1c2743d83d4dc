#pragma once
// The explicit two-layer, one-head-per-layer transformer of docs/theory.md §3 for F(X) = min_{s,t} x(s)ᵀx(t).
//
// State slots (E = 2d + 2):  X = [0, d) the token,  R = [d, 2d) the layer-1 retrieval,
//                            G = 2d the approximate g(q) ≈ min_t x(q)ᵀx(t),  ONE = 2d + 1 the constant 1.
//   encoder     u(t) = [x(t); 0_d; 0; 1],  ĉ0 = [0_d; 0_d; 0; 1]             (affine, not an FFN)
//   layer 1     score −β1 x(q)ᵀx(t), value x(t), written into R:  r(q) = Σ_t w_t x(t) ∈ [0,1]^d
//   FFN_1       writes Σ_i ((x_i + r_i)² − (x_i − r_i)²)/4 into G, each square the L5 interpolant
//               with m pieces on [0, 2] and on [−1, 1]: width p1 = 2dm; each unit reads ½(x_i ± r_i) − ½t and
//               its output weight is doubled (ReLU is positively homogeneous), so every weight is in [−1, 1]
//   layer 2     CLS query reads ONE; score −β2 g(t), value g(t), written into the CLS's slot X[0]
//               (zero for the CLS state: nothing else writes there, and G of the CLS holds FFN junk)
//   readout     y = c[X0]                                                     (affine)
//
// Error budget (each line a lemma of docs/theory.md §2, combined in certify_two_layer_min_dot):
//   interpolation   |g(q) − x(q)ᵀr(q)| = |Σ_i (e_i+ − e_i−)|/4 ≤ d·h²/16, h = 2/m (L5: e± ∈ [0, h²/4], both overshoot)
//   layer 1         x(q)ᵀr(q) ∈ [g*(q), g*(q) + S(T, β1)], g*(q) = min_t x(q)ᵀx(t) (L1: Gibbs mean of scores)
//   layer 2         ŷ ∈ [min_t g(t), min_t g(t) + S(T, β2)]                        (L1)
//   total           −d h²/16 ≤ ŷ − F ≤ d h²/16 + S(T, β1) + S(T, β2)
// Choice for ε: m = ⌈2/h⌉ with h = √(16ε/(3d)) (interpolation ≤ ε/3), β1 = β2 = 3·S(T,1)/ε rounded up
// (each L1 term ≤ ε/3). For T = 1 every L1 term is 0 and β = 1. M_ffn = p1(E+1) + E(p1+1) ∝ ε^{−1/2}.
#include "numerics/model/model.hpp"

namespace infoflow {

struct MinDotSlots {
  int d;
  int x(int i) const { return i; }
  int r(int i) const { return d + i; }
  int g() const { return 2 * d; }
  int one() const { return 2 * d + 1; }
  int E() const { return 2 * d + 2; }
};

class TwoLayerMinDotConstruction {
 public:
  /// Throws ContractError for d < 1, T < 1 or ε outside (0, 1) (the suite validates them first).
  TwoLayerMinDotConstruction(int d, int T, double eps);

  /// The closed forms the construction uses, as functions of (d, ε) alone: they never read T.
  /// The widest FFN built (2dm units): beyond it the weights alone would take gigabytes and certification days.
  static constexpr double kMaxFfnWidth = 1e6;
  /// The smallest ε whose construction has at most kMaxFfnWidth FFN units: 3d³/kMaxFfnWidth² (from 2dm ≤ W with
  /// m = 2/h, ε = 3dh²/16), rounded up so that ε ≥ it always passes.
  static double smallest_eps(int d);
  static int pieces_for(int d, double eps);                   // m = ⌈2/h⌉, h = √(16ε/(3d))
  static std::size_t ffn_parameters_for(int d, double eps);   // M_ffn = p1(E+1) + E(p1+1), p1 = 2dm, E = 2d+2
  /// Every parameter of the construction (temperatures excluded), from its architecture, for any ε in (0, 1): also
  /// below smallest_eps(d), where the model is not built (a double; exact below 2^53).
  static double parameters_for(int d, double eps);
  /// The L5 lemma chain's bound on FFN_1's interpolation error at ε, for any ε in (0, 1) (also where the model is not
  /// built): d·h²/16 with h = 2/m, m = ⌈2/√(16ε/(3d))⌉, evaluated in arb and rounded up. A built model's certified
  /// interpolation error (certify_two_layer_min_dot, from its weights) never exceeds it.
  static double interpolation_chain(int d, double eps);

  const Model& model() const { return model_; }
  int d() const { return d_; }
  int T() const { return T_; }
  double eps() const { return eps_; }
  int pieces() const { return m_; }             // m
  int ffn_width() const { return 2 * d_ * m_; }  // p1
  double beta() const { return beta_; }

 private:
  int d_, T_;
  double eps_;
  int m_;
  double beta_;
  Model model_;
};

/// The same architecture with all weights zero (used by the certifier to check shapes).
Architecture two_layer_min_dot_architecture(int d, int ffn_width);

}  // namespace infoflow
