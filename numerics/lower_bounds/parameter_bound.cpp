#include "numerics/lower_bounds/parameter_bound.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {

void validate(const BoundedWeightClass& c) {
  if (c.d < 1 || c.d > 4096) throw InputError("--d", "expected 1 <= d <= 4096");
  if (c.T < 1 || c.T > 65536) throw InputError("--T", "expected 1 <= T <= 65536");
  if (c.heads < 1 || c.heads > 64) throw InputError("--heads", "expected 1 <= h <= 64");
  if (c.value_dim < 1 || c.value_dim > 4096) throw InputError("--n", "expected 1 <= n <= 4096");
}

}  // namespace

ParameterLowerBound least_parameters_for_lr(const BoundedWeightClass& cls, double lr_bound, long prec) {
  validate(cls);
  if (!(lr_bound >= 0) || !std::isfinite(lr_bound)) throw InputError("L*R bound", "expected a finite bound >= 0");
  ParameterLowerBound out;
  out.lr_bound = lr_bound;
  auto ball = [&](double v) { return ArbBall(v, prec); };
  const ArbBall B = ball(lr_bound), d = ball(cls.d), hn2 = ball(2.0 * cls.heads * cls.value_dim), n = ball(cls.value_dim);
  const ArbBall one = ball(1.0), two = ball(2.0);
  // FFN encoder of width p_e ≥ 1 (y = p_e(d + 1) + c, c = 1, or 2 with positions), any E ≥ 1:
  //   P ≥ a(y − c) + (E + 1)K/y + E(2 + 2hn) [+ TE],  a = (d + 1 + E)/(d + 1),  K = B/(nE²)
  //     ≥ 2√(a(E + 1)K) − ac + E(2 + 2hn) [+ TE]  ≥  2√(B/((d + 1)n)) + 2hn + 1 − 1/(d + 1),
  // using (d + 1 + E)(E + 1) ≥ E² and E ≥ 1 (the rest increases in E); with positions c = 2 and the TE term give
  // T − 2/(d + 1) in place of 1 − 1/(d + 1). The smallest such model
  // (E = 1, p_e = 1, affine readout) has d + 6 + 2hn parameters.
  // The additive constant: 1 − 1/(d + 1) without positions, T − 2/(d + 1) with them (E = 1); the smaller.
  const ArbBall constant = min(one - one / (d + one), ball(cls.T) - two / (d + one));
  const ArbBall ffn = two * sqrt_nonneg(B / ((d + one) * n)) + hn2 + constant;
  const double ffn_lower = std::max(ffn.lower(), cls.d + 6.0 + 2.0 * cls.heads * cls.value_dim);
  // Affine encoder (U = d + 1, or d + 2 with positions): P ≥ E(d + 2 + 2hn) + (E + 1)B/(nE²U) ≥ E(d + 2 + 2hn) + B/(nE(d + 2))
  //   ≥ 2√((d + 2 + 2hn)B/((d + 2)n)); the smallest such model has d + 4 + 2hn parameters.
  const ArbBall affine = two * sqrt_nonneg((d + two + hn2) * B / ((d + two) * n));
  const double affine_lower = std::max(affine.lower(), cls.d + 4.0 + 2.0 * cls.heads * cls.value_dim);
  const double least = std::min(ffn_lower, affine_lower);
  out.branch = ffn_lower <= affine_lower ? "FFN encoder" : "affine encoder";
  // A count is an integer: P ≥ x implies P ≥ ⌈x⌉.
  out.parameters = std::isfinite(least) ? std::ceil(least) : 0.0;
  return out;
}

double largest_lr_for_widths(const BoundedWeightClass& cls, const BoundedWeightWidths& w) {
  validate(cls);
  const double U = (w.encoder_width > 0 ? w.encoder_width * (cls.d + 1.0) + 1.0 : cls.d + 1.0) + (w.positions ? 1.0 : 0.0);
  const double f_r = w.readout_width > 0 ? w.readout_width : 1.0;
  return cls.value_dim * static_cast<double>(w.E) * w.E * f_r * U;
}

double counted_parameters(const BoundedWeightClass& cls, const BoundedWeightWidths& w) {
  validate(cls);
  const double E = w.E, d = cls.d, hn = static_cast<double>(cls.heads) * cls.value_dim;
  const double encoder = w.encoder_width > 0 ? w.encoder_width * (d + 1 + E) + E : E * (d + 1);
  const double readout = w.readout_width > 0 ? w.readout_width * (E + 2) + 1 : E + 1;
  return encoder + (w.positions ? cls.T * E : 0.0) + E /* CLS */ + 2 * hn * E /* V, W_O */ + readout;
}

}  // namespace infoflow
