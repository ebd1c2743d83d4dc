#pragma once
// A rigorous bound on the rounding error of the double-precision forward pass (numerics/model/forward.cpp,
// ForwardPass<double>) over a whole input box: sup_x |forward_double(x) − forward_real(x)| ≤ bound, for every input x
// in [lo, hi]^{T·d} whose coordinates are doubles (docs/certify.md §2).
//
// Standard forward error analysis (Higham, Accuracy and Stability of Numerical Algorithms, §3.1): every intermediate
// quantity carries a bound M on its exact magnitude over the box and a bound E on |computed − exact|. A dot product of
// length n with perturbed inputs adds Σ|a|e_b + |b|e_a + e_a e_b for the inputs and γ_n Σ|â||b̂| for its own roundings,
// γ_n = nu/(1 − nu), u = 2^-53, whatever the summation order and whether or not FMA contracts it. Softmax is the
// shifted form the double code runs: its exponents are ≤ 0 in exact arithmetic and its denominators are ≥ 1 in exact
// and in floating-point arithmetic (the largest logit contributes exp(0) = 1 exactly), so the division is stable.
// Underflow is covered: every product, quotient and exp also adds the absolute error of a subnormal result.
// Assumptions, stated in the docs: IEEE binary64 with round-to-nearest (no flush-to-zero), and the C library's exp
// within 1 ulp. Every bound is computed in arb and rounded up; a bound that arb cannot make finite is +∞.
#include "numerics/model/model.hpp"

namespace infoflow {

struct DoubleExecutionBound {
  double output_error = 0;      // sup over the box of |ŷ_double − ŷ_real|
  double output_magnitude = 0;  // the bound on |ŷ_real| the analysis carried
};

/// Throws InputError for an empty or non-finite box, T < 1, or T beyond the model's positional table.
DoubleExecutionBound double_execution_error_bound(const Model& model, int T, double lo, double hi);

}  // namespace infoflow
