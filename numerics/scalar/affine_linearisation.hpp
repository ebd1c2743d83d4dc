#pragma once
// The nonlinear functions of affine forms, written once for both form types (AffineForm: arb balls; DoubleAffineForm:
// doubles with a rounding-error radius). Internal to numerics/scalar: included by the two forms' .cpp files only.
//
// Each function computes its linearisation f(x) = Σ_s g_s·x_s + κ + e, |e| ≤ δ, over the ranges of its arguments in
// arb (from range(), an ArbBall), and hands the coefficients to the form type's one primitive
//     affine_combination(constant, g, args, image)  =  constant + Σ_s g_s·args_s, with hull `image`,
// where `constant` is the ball κ ± δ and g are balls: the form type decides how it carries a ball coefficient
// (AffineForm exactly in arb; DoubleAffineForm as the nearest double with the difference absorbed in its radius).
// A Form provides: explicit Form(const ArbBall&) (a constant), range(), prec(), is_constant(), unary minus, +, −,
// and narrow_hull(Form&, const ArbBall&).
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/scalar/gelu.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace infoflow::affine_detail {

// |b|'s upper bound as an exact ball (zero radius).
inline ArbBall magnitude(const ArbBall& b) {
  ArbBall m(b.prec());
  arb_get_abs_ubound_arf(arb_midref(m.raw()), b.raw(), b.prec());
  return m;
}

// a ∩ b, or an indeterminate ball when they do not meet (two enclosures of one quantity that are disjoint: one is
// wrong, and nothing may be concluded from either).
inline ArbBall intersection(const ArbBall& a, const ArbBall& b) {
  const long prec = std::max(a.prec(), b.prec());
  if (!a.is_finite()) return b;
  if (!b.is_finite()) return a;
  ArbBall r(prec);
  if (!arb_intersection(r.raw(), a.raw(), b.raw(), prec)) arb_indeterminate(r.raw());
  return r;
}

// The exact ends of a ball (zero radius), or false when it is not finite or has no width.
inline bool ends(const ArbBall& range, ArbBall& lo, ArbBall& hi) {
  if (!range.is_finite()) return false;
  lo = range.lower_end();
  hi = range.upper_end();
  return less(lo, hi) == Tribool::True;
}

// f(v) given f(x) = α·x + ζ + e with |e| ≤ |δ| for every x in v's range, and `image` ⊇ f(v's range): the form
// α·v + ζ ± |δ| with hull `image`.
template <class Form>
Form linear_image(const Form& v, const ArbBall& alpha, const ArbBall& zeta, const ArbBall& delta, const ArbBall& image) {
  ArbBall constant = zeta;
  arb_add_error(constant.raw(), delta.raw());
  return affine_combination(constant, std::vector<ArbBall>{alpha}, std::vector<const Form*>{&v}, image);
}

// The linearisation on [lo, hi] from the range [g_lo, g_hi] of f(x) − α·x there: ζ its midpoint, δ its half width.
template <class Form>
Form chebyshev_image(const Form& v, const ArbBall& alpha, const ArbBall& g_lo, const ArbBall& g_hi, const ArbBall& image) {
  const ArbBall half(0.5, v.prec());
  return linear_image(v, alpha, (g_hi + g_lo) * half, (g_hi - g_lo) * half, image);
}

// An enclosure of w p (2p − 1) over the box, for a softmax weight w and another's p (w + p ≤ 1) with p ∈ P: it is
// at most p(1 − p)|1 − 2p| in magnitude, whose largest value on P is at P's ends or at p = ½ ± 1/(2√3), and its sign
// is 2p − 1's where that is known.
inline ArbBall curvature_bound(const ArbBall& P) {
  const long prec = P.prec();
  const ArbBall one(1.0, prec), two(2.0, prec);
  const auto g = [&](const ArbBall& p) { return magnitude(p * (one - p) * (one - two * p)); };
  const ArbBall lo = max(P.lower_end(), ArbBall(0.0, prec)), hi = min(P.upper_end(), one);
  ArbBall top = max(g(lo), g(hi));
  const ArbBall offset = one / (two * sqrt(ArbBall(3.0, prec)));
  for (const ArbBall& critical : {ArbBall(0.5, prec) - offset, ArbBall(0.5, prec) + offset})
    if (!(critical.upper() < lo.lower() || critical.lower() > hi.upper())) top = max(top, g(critical));
  const ArbBall zero(0.0, prec);
  if (P.upper() <= 0.5) return ArbBall::interval(-top, zero);
  if (P.lower() >= 0.5) return ArbBall::interval(zero, top);
  return ArbBall::interval(-top, top);
}

template <class Form>
Form exp_form(const Form& a) {
  const ArbBall range = a.range();
  const ArbBall image = exp(range);
  ArbBall lo, hi;
  if (a.is_constant() || !ends(range, lo, hi)) return Form(image);
  // Convex: the secant slope α = (e^hi − e^lo)/(hi − lo); e^x − α·x is largest at both ends and smallest at x = log α.
  const ArbBall e_lo = exp(lo), e_hi = exp(hi);
  // Mutant: the min-range slope e^lo with the secant's remainder formulas, which then give a remainder of 0.
  const ArbBall alpha = mutated(Mutant::AffineExpMinRangeSlope) ? e_lo : (e_hi - e_lo) / (hi - lo);
  const ArbBall one(1.0, a.prec());
  const ArbBall g_max = e_lo - alpha * lo;
  const ArbBall g_min = alpha * (one - log(alpha));
  return chebyshev_image(a, alpha, g_min, g_max, image);
}

template <class Form>
Form sqrt_nonneg_form(const Form& a) {
  const long prec = a.prec();
  const ArbBall range = a.range();
  const ArbBall image = sqrt_nonneg(range);
  if (!range.is_finite() || a.is_constant()) return Form(image);
  const ArbBall zero(0.0, prec);
  if (range.upper() <= 0) return Form(zero);
  const ArbBall lo = max(range.lower_end(), zero), hi = range.upper_end();
  if (less(lo, hi) != Tribool::True) return Form(image);
  // Concave: secant slope α = 1/(√lo + √hi); √x − α·x equals √lo·√hi·α at both ends and peaks at 1/(4α).
  const ArbBall s_lo = sqrt(lo), s_hi = sqrt(hi);
  const ArbBall alpha = ArbBall(1.0, prec) / (s_lo + s_hi);
  const ArbBall g_end = s_lo * s_hi * alpha;
  const ArbBall g_top = ArbBall(0.25, prec) / alpha;
  return chebyshev_image(a, alpha, g_end, g_top, image);
}

template <class Form>
Form reciprocal_form(const Form& a, const ArbBall& known) {
  const long prec = a.prec();
  const ArbBall range = intersection(a.range(), known);
  const ArbBall one(1.0, prec);
  ArbBall lo, hi;
  if (a.is_constant() || !ends(range, lo, hi)) return Form(one / range);
  if (range.lower() <= 0 && range.upper() >= 0) return Form(one / range);  // indeterminate: 0 is in the range
  if (range.upper() < 0) return -reciprocal_form(-a, -known);
  // Convex and decreasing on lo > 0: secant slope −1/(lo·hi); 1/x + x/(lo·hi) is 1/lo + 1/hi at both ends and
  // 2/√(lo·hi) at x = √(lo·hi).
  const ArbBall product = lo * hi;
  const ArbBall alpha = -(one / product);
  const ArbBall g_max = one / lo + one / hi;
  const ArbBall g_min = ArbBall(2.0, prec) / sqrt(product);
  const ArbBall image = one / range;
  if (mutated(Mutant::AffineReciprocalRemainderHalved))
    return linear_image(a, alpha, (g_max + g_min) * ArbBall(0.5, prec), (g_max - g_min) * ArbBall(0.25, prec), image);
  return chebyshev_image(a, alpha, g_min, g_max, image);
}

template <class Form>
Form softmax_weight_form(const std::vector<Form>& z) {
  const long prec = z.empty() ? ArbBall::kDefaultPrec : z.front().prec();
  const ArbBall one(1.0, prec);
  if (z.empty()) return Form(one);
  // The ranges Z_s = [m_s − r_s, m_s + r_s] of the differences; every value the z take on the box is in their product.
  const std::size_t k = z.size();
  std::vector<ArbBall> m, r, lo, hi;
  for (const Form& zs : z) {
    const ArbBall range = zs.range();
    if (!range.is_finite()) {  // no linearisation: the weight's interval enclosure (0, 1]
      ArbBall sum = one;
      for (const Form& zu : z) sum += exp(zu.range());
      ArbBall w = one / sum;
      if (!w.is_finite()) w = ArbBall::interval(0.0, 1.0, prec);
      return Form(w);
    }
    ArbBall mid(prec), rad(prec);
    arf_set(arb_midref(mid.raw()), arb_midref(range.raw()));
    arb_get_rad_arb(rad.raw(), range.raw());
    m.push_back(mid), r.push_back(rad), lo.push_back(range.lower_end()), hi.push_back(range.upper_end());
  }
  // w and the other tokens' weights p_s = w·e^{z_s} over the z box, each monotone in every z_u (w decreasing;
  // p_s increasing in z_s, decreasing in the others), so their ranges come from the box's corners.
  std::vector<ArbBall> e_lo, e_hi;
  ArbBall sum_lo = one, sum_hi = one;
  for (std::size_t s = 0; s < k; ++s) {
    e_lo.push_back(exp(lo[s])), e_hi.push_back(exp(hi[s]));
    sum_lo += e_lo[s], sum_hi += e_hi[s];
  }
  const ArbBall w_box = ArbBall::interval(one / sum_hi, one / sum_lo);
  std::vector<ArbBall> p_box;
  for (std::size_t s = 0; s < k; ++s) {
    // p_s's least value: z_s at its lower end, the others at their upper ends; its greatest, the reverse.
    const ArbBall least = e_lo[s] / (sum_hi - e_hi[s] + e_lo[s]);
    const ArbBall most = e_hi[s] / (sum_lo - e_lo[s] + e_hi[s]);
    p_box.push_back(ArbBall::interval(least, most));
  }
  // Lagrange remainder of the tangent plane at m: ½ Σ_{s,u} ∂²w/∂z_s∂z_u(ξ) δ_s δ_u with |δ_s| ≤ r_s, where
  // ∂w/∂z_s = −w p_s and ∂²w/∂z_s∂z_u = 2 w p_s p_u − [s = u] w p_s. Interval evaluation of these is loose (w and p
  // move together), so each is also bounded through w + Σ_s p_s = 1: |w p_s (2p_s − 1)| ≤ p_s (1 − p_s)|1 − 2p_s|
  // (at most 1/(6√3)) and 2 w p_s p_u ≤ 2/27; a diagonal term whose sign is known (p_s on one side of ½) lies in
  // ½ H_ss·[0, r_s²] (δ_s² ≥ 0), whose midpoint moves into the constant, like a product's diagonal.
  const ArbBall half(0.5, prec), unit = ArbBall::interval(0.0, 1.0, prec);
  ArbBall remainder(0.0, prec), constant(0.0, prec);
  for (std::size_t s = 0; s < k; ++s)
    for (std::size_t u = 0; u < k; ++u) {
      if (s != u) {
        const ArbBall h = ArbBall(2.0, prec) * w_box * p_box[s] * p_box[u];
        remainder += min(magnitude(h), ArbBall(2.0, prec) / ArbBall(27.0, prec)) * r[s] * r[u];
        continue;
      }
      const ArbBall& p = p_box[s];
      ArbBall h = w_box * p * (ArbBall(2.0, prec) * p - one), bound = curvature_bound(p), both(prec);
      if (!arb_intersection(both.raw(), h.raw(), bound.raw(), prec)) both = bound;
      constant += half * both * r[s] * r[s] * unit;
    }
  remainder *= half;
  if (mutated(Mutant::AffineSoftmaxRemainderHalved)) remainder *= half, constant *= half;
  // The tangent plane: w(m) + Σ_s g_s (z_s − m_s) with g_s = −w(m) p_s(m), on the forms z_s.
  ArbBall sum_m = one;
  std::vector<ArbBall> e_m;
  for (std::size_t s = 0; s < k; ++s) e_m.push_back(exp(m[s])), sum_m += e_m.back();
  const ArbBall w_m = one / sum_m;
  constant += w_m;
  std::vector<ArbBall> g;
  std::vector<const Form*> args;
  for (std::size_t s = 0; s < k; ++s) {
    g.push_back(-(w_m * w_m * e_m[s]));
    constant -= g.back() * m[s];
    args.push_back(&z[s]);
  }
  arb_add_error(constant.raw(), remainder.raw());
  return affine_combination(constant, g, args, w_box);
}

template <class Form>
Form relu_form(const Form& a) {
  const long prec = a.prec();
  const ArbBall range = a.range();
  const ArbBall zero(0.0, prec);
  if (!range.is_finite() || a.is_constant()) return Form(max(range, zero));
  if (range.lower() >= 0) return a;
  if (range.upper() <= 0) return Form(zero);
  // Straddling 0: the chord α = hi/(hi − lo); ReLU(x) − α·x runs from 0 (at 0) to −α·lo (at both ends).
  const ArbBall lo = range.lower_end(), hi = range.upper_end();
  const ArbBall alpha = hi / (hi - lo);
  return chebyshev_image(a, alpha, zero, -(alpha * lo), max(range, zero));
}

// GeLU σ over the range [lo, hi]: the secant slope α = (σ(hi) − σ(lo))/(hi − lo), and the distance g(x) = σ(x) − α·x
// enclosed by Taylor's theorem at an exact point c of the range, r ≥ max(c − lo, hi − c):
//     g(x) = g(c) + (σ'(c) − α)(x − c) + ½σ''(ξ)(x − c)²  ∈  g(c) + (σ'(c) − α)·[−r, r] + ½σ''([lo, hi])·[0, r²],
// intersected with σ([lo, hi]) − α·[lo, hi] (a wide range, where the Taylor term is the larger). With the secant
// slope, σ'(c) − α = O(r²), so the remainder is O(r²) as for exp. (docs/certify.md §1 item 1e.)
template <class Form>
Form gelu_form(const Form& a) {
  const long prec = a.prec();
  const ArbBall range = a.range();
  const ArbBall image = gelu(range);
  ArbBall lo, hi;
  if (a.is_constant() || !ends(range, lo, hi)) return Form(image);
  const ArbBall half(0.5, prec);
  ArbBall c(prec);
  arb_get_mid_arb(c.raw(), ((lo + hi) * half).raw());  // exact
  const ArbBall r = magnitude(max(c - lo, hi - c));
  const ArbBall alpha = (gelu(hi) - gelu(lo)) / (hi - lo);
  ArbBall taylor = gelu(c) - alpha * c + (gelu_slope(c) - alpha) * ArbBall::interval(-r, r);
  if (!mutated(Mutant::AffineGeluCurvatureDropped))
    taylor += half * gelu_curvature(ArbBall::interval(lo, hi)) * ArbBall::interval(ArbBall(0.0, prec), r * r);
  const ArbBall distance = intersection(taylor, image - alpha * range);
  if (!distance.is_finite()) return Form(image);
  return chebyshev_image(a, alpha, distance.lower_end(), distance.upper_end(), image);
}

template <class Form>
Form max_form(const Form& a, const Form& b) {
  const ArbBall hull = max(a.range(), b.range());
  Form difference = a - b;
  const ArbBall order = difference.range();
  // Where the order is known on the box the max is one of the two: b + (a − b) would have a's coefficients but carry
  // b's remainder twice more (a min over many pairs piled those up: on the T = 2 construction near its maximiser they
  // were a quarter of the target's whole enclosure). "Known" up to a sliver of 2^-20 of the order's range: max(a, b)
  // = a + ReLU(b − a), and ReLU(b − a) ∈ [0, −lo] where a − b ≥ lo, so a sliver below 0 costs a remainder that small.
  // The sliver keeps the two forms' decisions alike where the order's end is 0 exactly (two quantities equal at a
  // corner the box shares with its neighbour), which each form's roundings would otherwise put on either side.
  if (order.is_finite()) {
    const double lo = order.lower(), hi = order.upper(), sliver = 0x1p-20 * (std::fabs(lo) + std::fabs(hi));
    const ArbBall zero(0.0, a.prec());
    if (lo >= -sliver) {
      // Mutant: the sliver's remainder left out, as if the order were known exactly.
      Form r = lo >= 0 || mutated(Mutant::AffineMaxSliverDropped) ? a : a + Form(ArbBall::interval(zero, -order.lower_end()));
      return narrow_hull(r, hull);
    }
    if (hi <= sliver) {
      Form r = hi <= 0 ? b : b + Form(ArbBall::interval(zero, order.upper_end()));
      return narrow_hull(r, hull);
    }
  }
  // max(a, b) = b + ReLU(a − b), exactly: the relation to the inputs survives a max (and min(a, b) = −max(−a, −b)).
  Form r = b + relu(difference);
  return narrow_hull(r, hull);
}

}  // namespace infoflow::affine_detail
