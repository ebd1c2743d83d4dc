#include "numerics/lemmas/relu_square.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

double ReluExpansion::operator()(double z) const {
  double y = bias;
  for (std::size_t j = 0; j < knots.size(); ++j) y += coeffs[j] * std::max(0.0, z - knots[j]);
  return y;
}

ReluExpansion relu_square_interpolant(double a, double b, int m) {
  if (m < 1) throw ContractError("relu_square_interpolant", "m: expected at least one piece");
  if (!(b > a)) throw ContractError("relu_square_interpolant", "interval: expected a < b");
  ReluExpansion f;
  f.bias = a * a;
  const double h = (b - a) / m;
  double prev_slope = 0.0;
  for (int k = 0; k < m; ++k) {
    const double zk = a + k * h, zk1 = a + (k + 1) * h;
    const double slope = zk + zk1;  // secant of z² on [z_k, z_{k+1}]
    f.knots.push_back(zk);
    f.coeffs.push_back(slope - prev_slope);
    prev_slope = slope;
  }
  return f;
}

ArbBall relu_square_error_bound(double a, double b, int m, long prec) {
  const ArbBall w = ArbBall(b, prec) - ArbBall(a, prec);
  return w * w / ArbBall((mutated(Mutant::L5BoundHalved) ? 8.0 : 4.0) * m * m, prec);
}

ArbBall certified_sup_error_vs_square(const ReluExpansion& f, double c, double a, double b, long prec) {
  if (f.knots.size() != f.coeffs.size()) throw NumericError("ReLU expansion: knots and coefficients differ in count");
  std::vector<double> cuts{a, b};
  for (double t : f.knots)
    if (t > a && t < b) cuts.push_back(t);
  std::sort(cuts.begin(), cuts.end());
  const ArbBall C(c, prec);
  ArbBall worst(0.0, prec);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double l = cuts[i], r = cuts[i + 1];
    if (!(r > l)) continue;
    // On [l, r] every knot is ≤ l (unit active) or ≥ r (inactive): f = α + γ z exactly.
    ArbBall alpha(f.bias, prec), gamma(0.0, prec);
    for (std::size_t j = 0; j < f.knots.size(); ++j) {
      if (f.knots[j] <= l) {
        const ArbBall cj(f.coeffs[j], prec);
        gamma += cj;
        alpha -= cj * ArbBall(f.knots[j], prec);
      }
    }
    auto err_at = [&](const ArbBall& z) { return abs(alpha + gamma * z - C * z * z); };
    worst = max(worst, err_at(ArbBall(l, prec)));
    worst = max(worst, err_at(ArbBall(r, prec)));
    if (c != 0.0) {
      const ArbBall vertex = gamma / (ArbBall(2.0, prec) * C);
      // Include the vertex value whenever the vertex may lie in the piece (this can only enlarge the bound).
      if (vertex.upper() >= l && vertex.lower() <= r) worst = max(worst, abs(alpha + gamma * gamma / (ArbBall(4.0, prec) * C)));
    }
  }
  return worst;
}

ErrorRange certified_error_range_vs_square(const ReluExpansion& f, double c, double a, double b, long prec) {
  if (f.knots.size() != f.coeffs.size()) throw NumericError("ReLU expansion: knots and coefficients differ in count");
  std::vector<double> cuts{a, b};
  for (double t : f.knots)
    if (t > a && t < b) cuts.push_back(t);
  std::sort(cuts.begin(), cuts.end());
  const ArbBall C(c, prec);
  bool first = true;
  ErrorRange range{ArbBall(0.0, prec), ArbBall(0.0, prec)};
  auto include = [&](const ArbBall& v) {
    if (first) range.lowest = v, range.highest = v, first = false;
    else range.lowest = min(range.lowest, v), range.highest = max(range.highest, v);
  };
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double l = cuts[i], r = cuts[i + 1];
    if (!(r > l)) continue;
    // On [l, r], f = α + γ z exactly, and f − c z² is a quadratic: its extremes are at the ends or the vertex.
    ArbBall alpha(f.bias, prec), gamma(0.0, prec);
    for (std::size_t j = 0; j < f.knots.size(); ++j)
      if (f.knots[j] <= l) {
        const ArbBall cj(f.coeffs[j], prec);
        gamma += cj;
        alpha -= cj * ArbBall(f.knots[j], prec);
      }
    auto err_at = [&](const ArbBall& z) { return alpha + gamma * z - C * z * z; };
    include(err_at(ArbBall(l, prec)));
    include(err_at(ArbBall(r, prec)));
    if (c != 0.0) {
      const ArbBall vertex = gamma / (ArbBall(2.0, prec) * C);
      if (vertex.upper() >= l && vertex.lower() <= r) include(alpha + gamma * gamma / (ArbBall(4.0, prec) * C));
    }
  }
  return range;
}

}  // namespace infoflow
