#include "theorems/aggregation_decoding/packing_bound.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <cmath>
#include <string>

namespace infoflow {

void validate_decoding_arguments(int T0, int d, int E, double eps) {
  if (T0 < 1) throw InputError("--T0", "expected T0 >= 1 aggregated tokens, got " + std::to_string(T0));
  if (d < 1) throw InputError("--d", "expected a token dimension d >= 1, got " + std::to_string(d));
  if (E < 1) throw InputError("--E", "expected a state dimension E >= 1, got " + std::to_string(E));
  if (!(eps > 0.0 && eps < 1.0 / 3.0)) throw InputError("--eps", "expected 0 < eps < 1/3, got " + std::to_string(eps));
}

PackingBound packing_bound(int T0, int d, int E, double eps, long prec) {
  validate_decoding_arguments(T0, d, E, eps);
  PackingBound b;
  b.grid_per_coordinate = std::floor(1.0 / (3.0 * eps));
  if (b.grid_per_coordinate < 2)
    throw InputError("--eps", "expected eps <= 1/6 so that the grid has at least two values per coordinate");
  const ArbBall g(b.grid_per_coordinate, prec);
  // N^{1/E} = exp(T0·d·ln g / E), all in balls.
  const ArbBall logN = ArbBall(static_cast<double>(T0 * d), prec) * log(g);
  b.log_N = logN.mid();
  const ArbBall root = exp(logN / ArbBall(static_cast<double>(E), prec));
  b.delta_N = ArbBall(2.0, prec) / (root - ArbBall(1.0, prec));
  if (mutated(Mutant::PackingDeltaDoubled)) b.delta_N = b.delta_N * ArbBall(2.0, prec);
  b.width = ArbBall(eps, prec) / (b.delta_N * sqrt(ArbBall(static_cast<double>(E), prec)));
  return b;
}

double packing_width_double(int T0, int d, int E, double eps) {
  const double g = std::floor(1.0 / (3.0 * eps));
  const double root = std::pow(g, static_cast<double>(T0 * d) / E);
  const double delta = 2.0 / (root - 1.0);
  return eps / (delta * std::sqrt(static_cast<double>(E)));
}

}  // namespace infoflow
