#pragma once
// Enclosures of softmax weights over a box, shared by the forward pass on balls (forward.cpp) and the float64
// rounding analysis (numerics/certify/double_execution.cpp).
#include "numerics/scalar/arb_ball.hpp"

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

}  // namespace infoflow
