#pragma once
// Affine arithmetic in doubles: the same relational enclosure as AffineForm (docs/certify.md §1.2), about ten times
// cheaper, for the branch-and-bound's search (the checker re-encloses every leaf with AffineForm, in arb: an
// independent route). On a box each input is x_i = m_i + r_i·ε_i with a noise symbol ε_i ∈ [−1, 1]; a quantity is
// carried as
//     v(x) = c + Σ_i a_i ε_i(x) + e(x),   |e(x)| ≤ radius,
// with c and a_i doubles. The containment rule: for every x of the box some e with |e| ≤ radius makes the equation
// hold. Every operation computes c and a_i in round-to-nearest and adds to the radius an upper bound of the rounding
// errors it made (the standard model |fl(x ∘ y) − x ∘ y| ≤ u·|fl(x ∘ y)| + η, u = 2^-53, η = 2^-1074 for an
// underflow), of the quadratic remainders and of the linearisations' remainders, each sum of such bounds inflated
// for its own rounding (RadiusSum). A value that overflows makes the radius infinite or NaN, and the form then
// encloses nothing useful: range() is indeterminate, never a finite wrong interval.
//
// The nonlinear functions are AffineForm's (numerics/scalar/affine_linearisation.hpp): their coefficients are
// computed in arb from range() and reach the form as the nearest doubles, the difference absorbed in the radius.
// Like AffineForm it carries an interval `hull` (lo, hi, rounded outward), narrowed by other enclosures.
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/scalar/scalar_traits.hpp"

#include <vector>

namespace infoflow {

struct DoubleAffineForm {
  /// The arb precision at which its linearisations are computed (the form itself is double).
  static constexpr long kLinearisationPrec = 128;

  double centre = 0.0;
  double radius = 0.0;        // an upper bound of |e(x)| on the box; +inf or NaN: indeterminate
  std::vector<double> coef;   // a_i on noise symbol i; empty: no dependence on the inputs
  double hull_lo = 0.0, hull_hi = 0.0;  // every value on the box lies in [hull_lo, hull_hi]

  DoubleAffineForm() = default;  // the exact zero
  /// The constant ball b: its midpoint rounded to double, the rest in the radius (exact for a double ball).
  explicit DoubleAffineForm(const ArbBall& b);
  /// Input i of n over the ball `side`: m + r·ε_i with m the double nearest its midpoint and r covering the side.
  static DoubleAffineForm variable(const ArbBall& side, std::size_t i, std::size_t n);
  /// An enclosure of every value on the box, (c ± (Σ|a_i| + radius)) ∩ hull, as a ball; indeterminate when it is not
  /// finite or the two do not meet.
  ArbBall range() const;
  /// The same enclosure as two doubles [lo, hi]; false (and no enclosure) where range() would be indeterminate.
  bool bounds(double& lo, double& hi) const;
  long prec() const { return kLinearisationPrec; }
  bool is_constant() const { return coef.empty(); }

  DoubleAffineForm& operator+=(const DoubleAffineForm& o);
  DoubleAffineForm& operator-=(const DoubleAffineForm& o);
  DoubleAffineForm& operator*=(const DoubleAffineForm& o);
  DoubleAffineForm& operator/=(const DoubleAffineForm& o);
  friend DoubleAffineForm operator+(DoubleAffineForm a, const DoubleAffineForm& b) { return a += b; }
  friend DoubleAffineForm operator-(DoubleAffineForm a, const DoubleAffineForm& b) { return a -= b; }
  friend DoubleAffineForm operator*(DoubleAffineForm a, const DoubleAffineForm& b) { return a *= b; }
  friend DoubleAffineForm operator/(DoubleAffineForm a, const DoubleAffineForm& b) { return a /= b; }
  friend DoubleAffineForm operator-(DoubleAffineForm a);
};

DoubleAffineForm exp(const DoubleAffineForm& a);
DoubleAffineForm sqrt_nonneg(const DoubleAffineForm& a);
DoubleAffineForm relu(const DoubleAffineForm& a);
DoubleAffineForm gelu(const DoubleAffineForm& a);  // AffineForm's linearisation (affine_linearisation.hpp's gelu_form)
DoubleAffineForm max(const DoubleAffineForm& a, const DoubleAffineForm& b);
DoubleAffineForm reciprocal(const DoubleAffineForm& a, const ArbBall& known);
DoubleAffineForm softmax_weight(const std::vector<DoubleAffineForm>& z);
DoubleAffineForm affine_combination(const ArbBall& constant, const std::vector<ArbBall>& g,
                                    const std::vector<const DoubleAffineForm*>& args, const ArbBall& image);
void add_product(DoubleAffineForm& acc, const DoubleAffineForm& a, const DoubleAffineForm& b);
DoubleAffineForm& narrow_hull(DoubleAffineForm& form, const ArbBall& interval);
/// The radius named by a fresh noise symbol of the current scope (numerics/scalar/noise_symbols.hpp): e(x) with
/// |e(x)| ≤ radius becomes radius·η_k, exactly, so that every later use of this quantity shares η_k. Nothing outside
/// a scope, and nothing for a constant (as AffineForm's, so that the two forms number their symbols alike).
void remainder_to_fresh_symbol(DoubleAffineForm& form);
/// The form with `radius` (≥ 0, e.g. a weight's decimal rounding) added to its radius, rounded up.
void add_error(DoubleAffineForm& form, const ArbBall& radius);

template <>
struct ScalarTraits<DoubleAffineForm> {
  static constexpr const char* name = "double-affine";
  static DoubleAffineForm from_double(double v, Precision) { return DoubleAffineForm(ArbBall(v, 53)); }
  static DoubleAffineForm from_mpreal(const mpfr::mpreal& v, Precision p) { return DoubleAffineForm(ArbBall(v, p.bits)); }
  static double to_double(const DoubleAffineForm& v) { return v.centre; }
  static DoubleAffineForm relu(const DoubleAffineForm& v) { return infoflow::relu(v); }
  static DoubleAffineForm gelu(const DoubleAffineForm& v) { return infoflow::gelu(v); }
  static DoubleAffineForm max_of(const DoubleAffineForm& a, const DoubleAffineForm& b) { return infoflow::max(a, b); }
  static DoubleAffineForm exp_of(const DoubleAffineForm& a) { return infoflow::exp(a); }
  static bool is_finite(const DoubleAffineForm& v) { return v.range().is_finite(); }
  static DoubleAffineForm zero_like(const DoubleAffineForm&) { return DoubleAffineForm(); }
  static void add_product(DoubleAffineForm& acc, const DoubleAffineForm& a, const DoubleAffineForm& b) {
    infoflow::add_product(acc, a, b);
  }
};

}  // namespace infoflow
