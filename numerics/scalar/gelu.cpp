#include "numerics/scalar/gelu.hpp"

#include "numerics/util/mutation.hpp"

#include <arb_hypgeom.h>

#include <cmath>

namespace infoflow {

namespace {

constexpr double kInvSqrt2Pi = 0.398942280401432677939946059934;  // 1/√(2π)

// Φ(x) = erfc(−x/√2)/2 and φ(x) on a ball, by arb's own enclosures (the natural interval extension).
ArbBall normal_cdf(const ArbBall& x) {
  const long prec = x.prec();
  ArbBall t(prec), r(prec);
  arb_set_ui(t.raw(), 2);
  arb_rsqrt(t.raw(), t.raw(), prec);
  arb_mul(t.raw(), t.raw(), x.raw(), prec);
  arb_neg(t.raw(), t.raw());
  arb_hypgeom_erfc(r.raw(), t.raw(), prec);
  arb_mul_2exp_si(r.raw(), r.raw(), -1);
  return r;
}
// x² over the ball from the ends of |x|: x·x of a ball around 0 reaches below 0 (ball arithmetic sees two independent
// factors), and e^{−x²/2} would then exceed 1.
ArbBall square(const ArbBall& x) {
  if (!x.is_finite()) return x * x;
  const ArbBall lo = x.lower_end(), hi = x.upper_end(), lo2 = lo * lo, hi2 = hi * hi;
  if (x.lower() >= 0) return ArbBall::interval(lo2, hi2);
  if (x.upper() <= 0) return ArbBall::interval(hi2, lo2);
  return ArbBall::interval(ArbBall(0.0, x.prec()), max(lo2, hi2));  // (arb's abs of such a ball reaches below 0)
}
ArbBall normal_density(const ArbBall& x) {
  const long prec = x.prec();
  ArbBall e = square(x);
  arb_mul_2exp_si(e.raw(), e.raw(), -1);
  e = exp(-e);
  ArbBall c(prec);
  arb_const_pi(c.raw(), prec);
  arb_mul_2exp_si(c.raw(), c.raw(), 1);
  arb_rsqrt(c.raw(), c.raw(), prec);
  return e * c;
}
ArbBall natural_gelu(const ArbBall& x) { return x * normal_cdf(x); }

}  // namespace

double gelu(double x) { return x * (0.5 * std::erfc(-x * M_SQRT1_2)); }

double gelu_and_slope(double x, double& slope) {
  const double cdf = 0.5 * std::erfc(-x * M_SQRT1_2);
  slope = cdf + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
  return x * cdf;
}

double gelu_slope(double x) {
  double slope;
  gelu_and_slope(x, slope);
  return slope;
}

mpfr::mpreal gelu(const mpfr::mpreal& x) {
  const mpfr::mpreal half(0.5, x.get_prec());
  return half * x * mpfr::erfc(-x / mpfr::sqrt(mpfr::mpreal(2, x.get_prec())));
}

ArbBall gelu(const ArbBall& x) {
  if (!x.is_finite() || x.rad() == 0) return natural_gelu(x);
  const ArbBall at_lo = natural_gelu(x.lower_end()), at_hi = natural_gelu(x.upper_end());
  // x* = −0.7517…: a ball above −0.75 is on the increasing side, one below −0.76 on the decreasing side. (The bounds
  // compared are rounded outward, so the sides are certain.)
  if (x.lower() >= kGeluIncreasingFrom) return ArbBall::interval(at_lo, at_hi);
  if (x.upper() <= kGeluDecreasingTo) return ArbBall::interval(at_hi, at_lo);
  const ArbBall ends = ArbBall::interval(at_lo, at_hi);
  if (mutated(Mutant::GeluHullMissesMinimum)) return ends;
  return ArbBall::interval(ends, ArbBall(kGeluMinimumBound, x.prec()));  // σ(x*) = −0.16997…
}

namespace {
// The natural extension intersected with the function's range over the whole line (the tighter on a wide ball). A NaN
// ball stays NaN; an unbounded one becomes the global range, which holds every real.
ArbBall within(const ArbBall& natural, double lo, double hi) {
  const long prec = natural.prec();
  if (std::isnan(natural.mid())) return natural;
  const ArbBall global = ArbBall::interval(lo, hi, prec);
  ArbBall r(prec);
  if (!natural.is_finite() || !arb_intersection(r.raw(), natural.raw(), global.raw(), prec)) return global;
  return r;
}
}  // namespace

ArbBall gelu_slope(const ArbBall& x) {
  return within(normal_cdf(x) + x * normal_density(x), kGeluSlopeLower, kGeluSlopeBound);
}

ArbBall gelu_curvature(const ArbBall& x) {
  return within(normal_density(x) * (ArbBall(2.0, x.prec()) - square(x)), kGeluCurvatureLower, kGeluCurvatureUpper);
}

}  // namespace infoflow
