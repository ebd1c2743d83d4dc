#include "numerics/model/precision_consistency.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

PrecisionAgreement compare_precisions(const Model& m, const std::vector<std::vector<double>>& X, long mpfr_bits,
                                      long arb_bits) {
  PrecisionAgreement a;
  const ParamLayout layout(m.arch);
  a.y_double = forward(m, layout, X).y;
  const Precision pm{mpfr_bits}, pa{arb_bits};
  const mpfr::mpreal ym = forward(convert_model<mpfr::mpreal>(m, pm), layout, convert_sequence<mpfr::mpreal>(X, pm)).y;
  const ArbBall ya = forward(convert_model<ArbBall>(m, pa), layout, convert_sequence<ArbBall>(X, pa)).y;
  a.y_mpfr = ym.toString(static_cast<int>(mpfr_bits * 0.30103) + 2);
  a.y_arb = ya.to_string(static_cast<long>(arb_bits * 0.30103));
  a.arb_radius = ya.rad();
  a.arb_contains_mpfr = ya.contains(ym);
  const double ref = ym.toDouble();
  a.double_relative_error = std::fabs(a.y_double - ref) / std::max(std::fabs(ref), 1e-300);
  return a;
}

}  // namespace infoflow
