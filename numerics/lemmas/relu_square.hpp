#pragma once
// Lemma L5: a ReLU network of width m interpolates z² on [a, b] with sup error (b − a)²/(4m²).
// Also the rigorous sup error of any one-variable ReLU expansion against c·z², computed piece by
// piece in arb from the actual (rounded) weights: this is what certification uses.
#include "numerics/scalar/arb_ball.hpp"

#include <vector>

namespace infoflow {

/// f(z) = bias + Σ_j coeff_j · ReLU(z − knot_j).
struct ReluExpansion {
  double bias = 0.0;
  std::vector<double> knots;
  std::vector<double> coeffs;
  double operator()(double z) const;
};

/// The piecewise-linear interpolant of z² at a + k(b − a)/m, k = 0..m, as m ReLUs (valid on [a, b]).
ReluExpansion relu_square_interpolant(double a, double b, int m);

/// L5's bound (b − a)²/(4m²), as an enclosure.
ArbBall relu_square_error_bound(double a, double b, int m, long prec);

/// A rigorous upper bound (as a ball whose upper end bounds it) of sup_{z∈[a,b]} |f(z) − c z²|.
/// On each piece between knots f is affine, so |f − c z²| peaks at an end or at the vertex.
ArbBall certified_sup_error_vs_square(const ReluExpansion& f, double c, double a, double b, long prec);

/// The signed range of f(z) − c z² over [a, b]: balls whose lower/upper ends bound its inf and sup. Sums of such
/// ranges give the product rule of L5 its sharper form (both squares overshoot, so their errors partly cancel).
struct ErrorRange {
  ArbBall lowest, highest;
};
ErrorRange certified_error_range_vs_square(const ReluExpansion& f, double c, double a, double b, long prec);

}  // namespace infoflow
