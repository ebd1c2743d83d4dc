#pragma once
// Affine arithmetic over arb balls: a relational enclosure for `certify` (docs/certify.md §1.2). On a box
// ∏_i [m_i − r_i, m_i + r_i] each input is x_i = m_i + r_i·ε_i with a noise symbol ε_i ∈ [−1, 1]; every quantity
// computed from the inputs is carried as
//     v(x) = c + Σ_i a_i ε_i(x),
// where the form holds balls C ∋ c and A_i ∋ a_i. The meaning (the containment rule of this type): for every x of
// the box there are reals c ∈ C and a_i ∈ A_i with v(x) = c + Σ_i a_i ε_i(x). The reals may depend on x, so every
// remainder (a product's quadratic part, a nonlinear function's distance from its linear approximation, arb's
// rounding) is absorbed into C's radius and no separate error term is needed; arb rounds every ball outward.
//
// Unlike an interval, the form keeps how a quantity depends on the inputs: q·(k_s − k_t) on a small box is nearly
// linearly). exp, 1/x and √x are linearised by their Chebyshev (secant-slope) approximations, ReLU by its chord;
// max(a, b) = b + ReLU(a − b), so min and max keep the relation too (and where the order of a and b is known, the max
// is the larger one). The linearisations are shared with the double
// form the search uses (affine_linearisation.hpp, double_affine_form.hpp); this type is the checker's.
//
// Each form also carries an interval `hull` of its quantity, propagated by plain ball arithmetic (and narrowed by any
// other enclosure a caller knows, e.g. a softmax weight's): range() is the form's range intersected with it, and every
// linearisation is taken over range(). On a small box the form is the tighter; on a wide one, where linearisations
// are poor, the hull is, and the result is never wider than interval arithmetic's.
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/scalar/scalar_traits.hpp"

#include <vector>

namespace infoflow {

struct AffineForm {
  ArbBall centre;
  std::vector<ArbBall> coef;  // a_i on noise symbol i; empty: no dependence on the inputs (weights, constants)
  ArbBall hull;               // every value on the box lies in it

  AffineForm() = default;
  explicit AffineForm(ArbBall c) : centre(c), hull(std::move(c)) {}
  /// Input i of n over the ball `side` (midpoint m, radius r): m + r·ε_i, exactly (the ball holds the box's side).
  static AffineForm variable(const ArbBall& side, std::size_t i, std::size_t n);
  /// An enclosure of every value the quantity takes on the box: (C ± Σ_i sup|A_i|) ∩ hull. Indeterminate when the
  /// two do not meet (one of them is then not an enclosure: nothing may be concluded).
  ArbBall range() const;
  long prec() const { return centre.prec(); }
  bool is_constant() const { return coef.empty(); }

  AffineForm& operator+=(const AffineForm& o);
  AffineForm& operator-=(const AffineForm& o);
  AffineForm& operator*=(const AffineForm& o);
  AffineForm& operator/=(const AffineForm& o);
  friend AffineForm operator+(AffineForm a, const AffineForm& b) { return a += b; }
  friend AffineForm operator-(AffineForm a, const AffineForm& b) { return a -= b; }
  friend AffineForm operator*(AffineForm a, const AffineForm& b) { return a *= b; }
  friend AffineForm operator/(AffineForm a, const AffineForm& b) { return a /= b; }
  friend AffineForm operator-(const AffineForm& a);
};

AffineForm exp(const AffineForm& a);
AffineForm sqrt_nonneg(const AffineForm& a);  // √a for a ≥ 0 (the negative part of the range is discarded)
AffineForm relu(const AffineForm& a);
AffineForm gelu(const AffineForm& a);  // by its secant over the range, with a Taylor bound on the distance (docs/certify.md §1 item 1e)
AffineForm max(const AffineForm& a, const AffineForm& b);
/// 1/a, where `known` is a second enclosure of a over the box (the linearisation uses range ∩ known).
AffineForm reciprocal(const AffineForm& a, const ArbBall& known);
/// The softmax weight 1/(1 + Σ_s e^{z_s}) of a token whose logit differences to the others are z (z_s = logit_s − its
/// own), linearised as one function of all of them: its tangent plane at the centre of the z's ranges, with the
/// Lagrange remainder bounded by the Hessian over those ranges. Composing exp and 1/x instead compounds two
/// linearisations, each poor where a logit range is a unit wide; with one difference of radius r this one's remainder
/// is at most r²/(12√3) ≈ 0.048·r², and it vanishes where the softmax saturates. Its hull is the weight's exact range over the z box (monotone in every z_s).
AffineForm softmax_weight(const std::vector<AffineForm>& z);
/// constant + Σ_s g_s·args_s with hull `image` (a caller's enclosure of that quantity): how a linearisation's ball
/// coefficients become a form (numerics/scalar/affine_linearisation.hpp).
AffineForm affine_combination(const ArbBall& constant, const std::vector<ArbBall>& g,
                              const std::vector<const AffineForm*>& args, const ArbBall& image);
/// The remainder named by a fresh noise symbol of the current scope (numerics/scalar/noise_symbols.hpp): with c, a_i
/// the balls' midpoints, C + Σ A_i ε_i becomes c + Σ a_i ε_i + R·η_k, R ≥ rad C + Σ rad A_i, so that every later use
/// of this quantity shares η_k. Nothing outside a scope, and nothing for a constant.
void remainder_to_fresh_symbol(AffineForm& form);
/// acc += a·b without temporaries when a or b is a constant (a weight times a state: every matrix-vector product).
void add_product(AffineForm& acc, const AffineForm& a, const AffineForm& b);
/// The form with its hull narrowed by `interval`, a second enclosure of the same quantity.
AffineForm& narrow_hull(AffineForm& form, const ArbBall& interval);

template <>
struct ScalarTraits<AffineForm> {
  static constexpr const char* name = "affine";
  static AffineForm from_double(double v, Precision p) { return AffineForm(ArbBall(v, p.bits)); }
  static AffineForm from_mpreal(const mpfr::mpreal& v, Precision p) { return AffineForm(ArbBall(v, p.bits)); }
  static double to_double(const AffineForm& v) { return v.centre.mid(); }
  static AffineForm relu(const AffineForm& v) { return infoflow::relu(v); }
  static AffineForm gelu(const AffineForm& v) { return infoflow::gelu(v); }
  static AffineForm max_of(const AffineForm& a, const AffineForm& b) { return infoflow::max(a, b); }
  static AffineForm exp_of(const AffineForm& a) { return infoflow::exp(a); }
  static bool is_finite(const AffineForm& v) { return v.range().is_finite(); }
  static AffineForm zero_like(const AffineForm& v) { return AffineForm(ArbBall(0.0, v.prec())); }
  static void add_product(AffineForm& acc, const AffineForm& a, const AffineForm& b) { infoflow::add_product(acc, a, b); }
};

}  // namespace infoflow
