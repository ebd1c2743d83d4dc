#include "theorems/depth_separation/two_layer_construction.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/lemmas/gibbs.hpp"
#include "numerics/lemmas/relu_square.hpp"
#include "numerics/util/errors.hpp"

#include <cmath>
#include <string>

namespace infoflow {

Architecture two_layer_min_dot_architecture(int d, int ffn_width) {
  const MinDotSlots s{d};
  Architecture a;
  a.d = d;
  a.E = s.E();
  a.positions = 0;
  a.encoder = MapShape{MapKind::Affine, d, s.E(), 0};
  a.layers = {LayerShape{{HeadShape{d, d}}, ffn_width}, LayerShape{{HeadShape{1, 1}}, 0}};
  a.readout = MapShape{MapKind::Affine, s.E(), 1, 0};
  return a;
}

double TwoLayerMinDotConstruction::smallest_eps(int d) {
  return std::nextafter(3.0 * d * d * d / (kMaxFfnWidth * kMaxFfnWidth), INFINITY);
}

int TwoLayerMinDotConstruction::pieces_for(int d, double eps) {
  // L5's product rule: the d products' errors are within d·h²/16 (both squares overshoot), so h²·d/16 ≤ ε/3.
  const double h = std::sqrt(16.0 * eps / (3.0 * d));
  const double m = std::ceil(2.0 / h);
  // Callers refuse ε below smallest_eps(d) (exit 2); here a width beyond the limit is a bug, never a wrapped int.
  if (!(m >= 1 && 2.0 * d * m <= kMaxFfnWidth))
    throw ContractError("TwoLayerMinDotConstruction::pieces_for", "eps = " + std::to_string(eps) + " needs " +
                                                                     std::to_string(m) + " pieces, beyond the widest FFN built");
  return static_cast<int>(m);
}

std::size_t TwoLayerMinDotConstruction::ffn_parameters_for(int d, double eps) {
  const std::size_t p1 = 2 * static_cast<std::size_t>(d) * pieces_for(d, eps), E = 2 * static_cast<std::size_t>(d) + 2;
  return p1 * (E + 1) + E * (p1 + 1);
}

double TwoLayerMinDotConstruction::parameters_for(int d, double eps) {
  if (d < 1 || !(eps > 0.0 && eps < 1.0)) throw ContractError("parameters_for", "expected d >= 1 and 0 < eps < 1");
  const double m = std::ceil(2.0 / std::sqrt(16.0 * eps / (3.0 * d)));  // pieces_for without the width limit
  const double p1 = 2.0 * d * m, E = 2.0 * d + 2;
  // Everything but FFN_1 from the architecture itself; FFN_1 is W1 (p1 × E), b1, W2 (E × p1), b2.
  return static_cast<double>(ParamLayout(two_layer_min_dot_architecture(d, 0)).size()) + p1 * (E + 1) + E * (p1 + 1);
}

double TwoLayerMinDotConstruction::interpolation_chain(int d, double eps) {
  if (d < 1 || !(eps > 0.0 && eps < 1.0)) throw ContractError("interpolation_chain", "expected d >= 1 and 0 < eps < 1");
  const double m = std::ceil(2.0 / std::sqrt(16.0 * eps / (3.0 * d)));  // pieces_for without the width limit
  const ArbBall h = ArbBall(2.0, 128) / ArbBall(m, 128);
  return (ArbBall(static_cast<double>(d), 128) * h * h / ArbBall(16.0, 128)).upper();
}

TwoLayerMinDotConstruction::TwoLayerMinDotConstruction(int d, int T, double eps) : d_(d), T_(T), eps_(eps) {
  if (d < 1) throw ContractError("TwoLayerMinDotConstruction", "d: expected a token dimension d >= 1, got " + std::to_string(d));
  if (T < 1) throw ContractError("TwoLayerMinDotConstruction", "T: expected a sequence length T >= 1, got " + std::to_string(T));
  if (!(eps > 0.0 && eps < 1.0)) throw ContractError("TwoLayerMinDotConstruction", "eps: expected 0 < eps < 1, got " + std::to_string(eps));

  m_ = pieces_for(d, eps) + (mutated(Mutant::ConstructionExtraPiece) ? 1 : 0);
  // β = 3 S(T,1)/ε, taken from the upper end of the arb enclosure and nudged up, so S(T, β) ≤ ε/3.
  const double s1 = gibbs_excess_sup(T, ArbBall(1.0, 128)).upper();
  beta_ = T == 1 ? 1.0 : std::nextafter(3.0 * s1 / eps * (1.0 + 1e-12), INFINITY);
  if (mutated(Mutant::ConstructionBetaHalved)) beta_ /= 2;

  const MinDotSlots s{d};
  const int E = s.E();
  model_ = make_model<double>(two_layer_min_dot_architecture(d, ffn_width()));
  const ParamLayout L(model_.arch);
  auto& p = model_.params;
  auto at = [&](std::size_t off, int cols, int r, int c) -> double& { return p[row_major_index(off, cols, r, c)]; };

  for (int i = 0; i < d; ++i) at(L.encoder().W, d, s.x(i), i) = 1.0;
  p[L.encoder().b + s.one()] = 1.0;
  p[L.cls0() + s.one()] = 1.0;

  // Layer 1: score β1 (Q u_q)ᵀ(K u_t) = −β1 x(q)ᵀx(t); value x(t) into R.
  const LayerOffsets& l1 = L.layers()[0];
  for (int i = 0; i < d; ++i) {
    at(l1.heads[0].Q, E, i, s.x(i)) = -1.0;
    at(l1.heads[0].K, E, i, s.x(i)) = 1.0;
    at(l1.heads[0].V, E, i, s.x(i)) = 1.0;
    at(l1.W_O, d, s.r(i), i) = 1.0;
  }
  model_.temperatures[l1.heads[0].temperature] = beta_;

  // FFN_1: for each i, m units on x_i + r_i ∈ [0, 2] (coefficient +1/4) and m on x_i − r_i ∈ [−1, 1] (−1/4). By ReLU's
  // positive homogeneity each unit is written as ½·(x_i ± r_i) − ½·t with its output weight doubled: the same
  // function exactly (×½ and ×2 are exact), and every weight lands in [−1, 1] (the knots t reach 2 − h).
  const ReluExpansion plus = relu_square_interpolant(0.0, 2.0, m_), minus = relu_square_interpolant(-1.0, 1.0, m_);
  const MapOffsets& f = l1.ffn;
  int unit = 0;
  double bias = 0.0;
  for (int i = 0; i < d; ++i) {
    for (int sign : {+1, -1}) {
      const ReluExpansion& e = sign > 0 ? plus : minus;
      for (int j = 0; j < m_; ++j, ++unit) {
        at(f.W1, E, unit, s.x(i)) = 0.5;
        at(f.W1, E, unit, s.r(i)) = 0.5 * sign;
        p[f.b1 + unit] = -0.5 * e.knots[j];
        at(f.W2, f.width, s.g(), unit) = 2.0 * sign * 0.25 * e.coeffs[j];
        if (mutated(Mutant::L5PieceDropped) && i == 0 && sign > 0 && j == m_ / 2) at(f.W2, f.width, s.g(), unit) = 0.0;
      }
      bias += sign * 0.25 * e.bias;
    }
  }
  p[f.b2 + s.g()] = bias;

  // Layer 2 (CLS query): score β2 (Q c)ᵀ(K u_t) = β2 · 1 · (−g(t)); value g(t) into the CLS's X[0].
  const LayerOffsets& l2 = L.layers()[1];
  at(l2.heads[0].Q, E, 0, s.one()) = 1.0;
  at(l2.heads[0].K, E, 0, s.g()) = -1.0;
  at(l2.heads[0].V, E, 0, s.g()) = 1.0;
  at(l2.W_O, 1, s.x(0), 0) = 1.0;
  model_.temperatures[l2.heads[0].temperature] = beta_;

  at(L.readout().W, E, 0, mutated(Mutant::ReadoutWrongSlot) ? s.g() : s.x(0)) = 1.0;
  if (mutated(Mutant::ConstructionWeightPerturbed)) at(f.W1, E, 0, s.x(0)) += 1e-3;
}

}  // namespace infoflow
