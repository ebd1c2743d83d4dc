#pragma once
// Enclosures of softmax weights over a box, shared by the forward pass on balls (forward.cpp) and the float64
// rounding analysis (numerics/certify/double_execution.cpp).
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"

#include <algorithm>
#include <vector>

namespace infoflow {

/// w_t = 1/(1 + Σ_{s≠t} e^{z_s}) ∈ (0, 1], z_s = logit_s − logit_t, decreasing in every z_s: enclosed from the ends
/// of each z_s (a ball around a wide exp(z) would reach below 0 and make 1/denominator useless).
inline ArbBall softmax_weight_from_differences(const std::vector<ArbBall>& z, const ArbBall& one) {
  const long prec = one.prec();
  ArbBall denom_lo = one, denom_hi = one;
  for (const ArbBall& zs : z) {
    denom_lo += exp(zs.lower_end());
    denom_hi += exp(zs.upper_end());
  }
  if (!denom_lo.is_finite() || !denom_hi.is_finite()) return ArbBall::interval(0.0, 1.0, prec);
  return ArbBall::interval(one / denom_hi, one / denom_lo);
}

/// `v` narrowed to its intersection with `hull` (a convex combination lies in its terms' hull); unchanged when
/// the two do not meet (an indeterminate ball).
inline void intersect_with(ArbBall& v, const ArbBall& hull) {
  ArbBall both(v.prec());
  if (arb_intersection(both.raw(), v.raw(), hull.raw(), v.prec())) v = both;
}

/// The set {Σ_t w_t v_t : w_t ∈ weights[t], w_t ≥ 0, Σ_t w_t = 1, v_t ∈ values[t]}, enclosed: softmax weights are one
/// block constrained to the simplex, not T independent intervals. Its supremum is the largest Σ_t w_t b_t over such w
/// (b_t the upper end of v_t), and for every λ (weak duality; [l_t, h_t] = weights[t] ∩ [0, 1])
///   Σ_t w_t b_t = λ + Σ_t w_t (b_t − λ) ≤ λ + Σ_t [h_t (b_t − λ)₊ − l_t (λ − b_t)₊].
/// The bound holds for every λ, so λ may be chosen by any means, here in doubles: the right side is convex and
/// piecewise linear in λ, and at the b_t of the item where the weights, raised from their lower ends in decreasing
/// order of b_t (the greedy of a fractional knapsack), reach mass 1, it equals the supremum. Evaluated there in arb,
/// it is rigorous and, up to rounding, exact. The infimum likewise with the lower ends a_t. Where the weights are
/// undetermined ([0, 1] each) this is the values' hull (up to rounding); where they are not it is tighter (a weight
/// known to be ≥ 0.9 keeps the combination within a tenth of the hull's width from that value). O(T log T).
/// docs/certify.md §1.
inline ArbBall convex_combination_range(const std::vector<ArbBall>& weights, const std::vector<ArbBall>& values) {
  if (values.empty() || weights.size() != values.size())
    throw ContractError("convex_combination_range", "as many weights as values, at least one");
  const std::size_t T = values.size();
  ArbBall hull = values.front();
  for (std::size_t t = 1; t < T; ++t) hull = ArbBall::interval(hull, values[t]);
  for (std::size_t t = 0; t < T; ++t)
    if (!weights[t].is_finite() || !values[t].is_finite()) return hull;
  const long prec = hull.prec();
  const ArbBall zero(0.0, prec), one(1.0, prec);
  std::vector<ArbBall> l, h, a, b;
  for (std::size_t t = 0; t < T; ++t) {
    l.push_back(max(weights[t].lower_end(), zero));
    h.push_back(min(weights[t].upper_end(), one));
    a.push_back(values[t].lower_end());
    b.push_back(values[t].upper_end());
  }
  // The greedy's critical item, in doubles (only where λ sits, never what the bound is): the weights start at their
  // lower ends and the rest of the mass goes to the largest c_t (sign +1) or the smallest (sign −1) first.
  const auto critical = [&](const std::vector<ArbBall>& c, double sign) {
    std::vector<std::size_t> order(T);
    for (std::size_t t = 0; t < T; ++t) order[t] = t;
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return sign * c[x].mid() > sign * c[y].mid(); });
    double mass = 1;
    for (std::size_t t = 0; t < T; ++t) mass -= l[t].mid();
    for (std::size_t t : order) {
      mass -= h[t].mid() - l[t].mid();
      if (mass <= 0) return t;
    }
    return order.back();
  };
  // λ + Σ_t [more_t (c_t − λ)₊ − less_t (λ − c_t)₊], an enclosure of its value.
  const auto dual = [&](const ArbBall& lambda, const std::vector<ArbBall>& c, const std::vector<ArbBall>& more,
                        const std::vector<ArbBall>& less) {
    ArbBall d = lambda;
    for (std::size_t t = 0; t < T; ++t) d += more[t] * max(c[t] - lambda, zero) - less[t] * max(lambda - c[t], zero);
    return d;
  };
  const ArbBall upper = dual(b[critical(b, 1.0)], b, h, l).upper_end();
  const ArbBall lower = dual(a[critical(a, -1.0)], a, l, h).lower_end();
  // Within the hull in exact arithmetic, and up to a rounding when λ was chosen off by one. Intersecting with the hull
  // here was tried: the intersection re-rounds arb's radius and made two quick-profile bounds looser by 5e-10.
  return ArbBall::interval(lower, upper);
}

}  // namespace infoflow
