#include "theorems/kth_retrieval/no_temperature_lemma.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

namespace {
// |ŷ − v| for the family with the top group scoring s_top and the rest scoring s_rest, at temperature β.
ArbBall family_error(int T, int k, const ArbBall& v, const ArbBall& s_top, const ArbBall& s_rest, const ArbBall& beta) {
  const long p = v.prec();
  const ArbBall one(1.0, p);
  const ArbBall top = ArbBall(k - 1.0, p) * exp(beta * (mutated(Mutant::L3FamilyReversed) ? s_rest - s_top : s_top - s_rest));
  const ArbBall w_top = top / (top + ArbBall(static_cast<double>(T - k + 1), p));
  return abs((one - v) * w_top);
}

// W_top's lower end over every z ∈ [0, 1] at once (z = exp(−β(s(1) − s(v))) for any non-decreasing score).
ArbBall class_error(int T, int k, const ArbBall& v) {
  const long p = v.prec();
  const ArbBall z = ArbBall::interval(0.0, 1.0, p);
  const ArbBall km1(k - 1.0, p);
  return (ArbBall(1.0, p) - v) * km1 / (km1 + ArbBall(static_cast<double>(T - k + 1), p) * z);
}

// A non-decreasing piecewise-linear score on [0, 1]: breakpoints at i/pieces, non-negative random slopes
// (some zero: flat stretches are allowed). Returns s(1) − s(v) as an exact ball of its double value.
double piecewise_rise(SplitMix64& rng, double v, int pieces) {
  double rise = 0.0;
  for (int i = 0; i < pieces; ++i) {
    const double a = static_cast<double>(i) / pieces, b = static_cast<double>(i + 1) / pieces;
    const double slope = rng.uniform() < 0.25 ? 0.0 : rng.uniform(0.0, 5.0);
    const double lo = std::max(a, v), hi = b;
    if (hi > lo) rise += slope * (hi - lo);
  }
  return rise;
}

}  // namespace

NoTemperatureCertificate certify_no_temperature(int T, int k, double v, const std::vector<double>& beta_grid, long prec,
                                                std::uint64_t seed) {
  if (k < 2 || k > T)
    throw ContractError("certify_no_temperature", "k: L3 concerns 2 <= k <= T, got k = " + std::to_string(k) + " with T = " + std::to_string(T));
  if (!(v >= 0.0 && v < 1.0)) throw ContractError("certify_no_temperature", "v: expected the k-th value in [0, 1)");
  NoTemperatureCertificate c;
  c.T = T;
  c.k = k;
  c.v = v;
  const ArbBall V(v, prec), one(1.0, prec);
  const ArbBall inf = (one - V) * ArbBall(k - 1.0, prec) / ArbBall(static_cast<double>(T), prec);
  c.certified_infimum = inf.lower();
  c.class_lower_bound = class_error(T, k, V).lower();
  c.limit_beta_infinity = (one - V).mid();
  c.grid_min_linear = INFINITY;
  c.grid_min_nonmonotone = INFINITY;
  c.grid_min_decreasing = INFINITY;
  c.grid_respects_infimum = true;
  for (double b : beta_grid) {
    const ArbBall beta(b, prec);
    const ArbBall lin = family_error(T, k, V, one, V, beta);  // s(x) = x
    c.grid_min_linear = std::min(c.grid_min_linear, lin.lower());
    c.grid_respects_infimum &= less_equal(inf, lin) != Tribool::False && lin.lower() >= c.certified_infimum * (1 - 1e-12);
    const ArbBall d = one - V;
    const ArbBall non = family_error(T, k, V, -(d * d), ArbBall(0.0, prec), beta);  // s(x) = −(x − v)²
    if (non.upper() < c.grid_min_nonmonotone) {
      c.grid_min_nonmonotone = non.upper();
      c.nonmonotone_argmin_beta = b;
    }
    const ArbBall dec = family_error(T, k, V, -one, -V, beta);  // s(x) = −x
    if (dec.upper() < c.grid_min_decreasing) {
      c.grid_min_decreasing = dec.upper();
      c.decreasing_argmin_beta = b;
    }
  }
  SplitMix64 rng(seed);
  c.piecewise_min_lower = INFINITY;
  for (int i = 0; i < 64; ++i) {
    const double rise = piecewise_rise(rng, v, 1 + static_cast<int>(rng.uniform_index(8)));
    for (double b : beta_grid) {
      const ArbBall e = family_error(T, k, V, ArbBall(rise, prec), ArbBall(0.0, prec), ArbBall(b, prec));
      c.piecewise_min_lower = std::min(c.piecewise_min_lower, e.lower());
      ++c.piecewise_scores;
    }
  }
  return c;
}

}  // namespace infoflow
