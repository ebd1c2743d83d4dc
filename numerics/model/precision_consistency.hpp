#pragma once
// The same model evaluated at double, MPFR and arb must agree: the arb ball contains the MPFR value
// at higher precision, and double is close in relative terms. Used by tests and the lemmas suite.
#include "numerics/model/forward.hpp"

#include <string>

namespace infoflow {

struct PrecisionAgreement {
  double y_double = 0.0;
  std::string y_mpfr;       // at mpfr_bits, full digits
  std::string y_arb;        // ball at arb_bits
  double arb_radius = 0.0;
  bool arb_contains_mpfr = false;
  double double_relative_error = 0.0;  // |y_double − y_mpfr| / max(|y_mpfr|, 1e-300)
};

PrecisionAgreement compare_precisions(const Model& m, const std::vector<std::vector<double>>& X, long mpfr_bits,
                                      long arb_bits);

}  // namespace infoflow
