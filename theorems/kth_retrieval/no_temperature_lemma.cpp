#include "theorems/kth_retrieval/no_temperature_lemma.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"

#include <cmath>
#include <string>

namespace infoflow {

namespace {
// |ŷ − v| for the family with the top group scoring s_top and the rest scoring s_rest, at temperature β.
ArbBall family_error(int T, int k, const ArbBall& v, const ArbBall& s_top, const ArbBall& s_rest, const ArbBall& beta) {
  const long p = v.prec();
  const ArbBall one(1.0, p);
  const ArbBall top = ArbBall(k - 1.0, p) * exp(beta * (s_top - s_rest));
  const ArbBall w_top = top / (top + ArbBall(static_cast<double>(T - k + 1), p));
  return abs((one - v) * w_top);
}
}  // namespace

NoTemperatureCertificate certify_no_temperature(int T, int k, double v, const std::vector<double>& beta_grid, long prec) {
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
  c.limit_beta_infinity = (one - V).mid();
  c.grid_min_linear = INFINITY;
  c.grid_min_nonmonotone = INFINITY;
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
  }
  return c;
}

}  // namespace infoflow
