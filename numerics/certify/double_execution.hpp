#pragma once
// A rigorous bound on the rounding error of the double-precision forward pass (numerics/model/forward.cpp,
// ForwardPass<double>) over a whole input box: sup_x |forward_double(x) − forward_real(x)| ≤ bound, for every input x
// in [lo, hi]^{T·d} whose coordinates are doubles (docs/certify.md §2.1).
//
// Standard forward error analysis (Higham, Accuracy and Stability of Numerical Algorithms, §3.1): every intermediate
// quantity carries an enclosure of its exact value over the box (an arb ball, the natural interval extension) and a
// bound E on |computed − exact|. A dot product of length n with perturbed inputs adds Σ|a|e_b + |b|e_a + e_a e_b for
// the inputs and γ_n Σ|â||b̂| for its own roundings, γ_n = nu/(1 − nu), u = 2^-53, whatever the summation order and
// whether or not FMA contracts it. Three places use more than magnitudes:
// - a ReLU layer whose neuron is known active or inactive on the box (its exact value and its error keep one sign)
//   is affine there, so its input error propagates through the composite W2·D·W1 (plus the identity of a residual),
//   not through |W2|·|W1|;
// - softmax is the shifted form the double code runs: its exponents are ≤ 0 and its denominators ≥ 1 in exact and in
//   floating-point arithmetic (the largest logit contributes exp(0) = 1 exactly), and the analysis is relative: the
//   output is a convex combination, so value errors enter once (not T times) and weight errors times the spread of
//   the values; a token whose logit is far below the largest has a tiny weight and a tiny weight error;
// - the box is split where the bound is largest (the bound is a maximum over sub-boxes), so the enclosures that
//   supply the magnitudes narrow.
// Underflow is covered: every product, quotient and exp also adds the absolute error of a subnormal result.
// Assumptions, stated in the docs: IEEE binary64 with round-to-nearest (no flush-to-zero), and the C library's exp
// within 1 ulp. Every bound is computed in arb and rounded up; a bound that arb cannot make finite is +∞.
#include "numerics/model/model.hpp"

#include <cstdint>
#include <vector>

namespace infoflow {

/// Throws InputError (naming --execution) when the model has GeLU units: the analysis assumes of the C library only exp's
/// accuracy, and GeLU needs erfc, whose accuracy no C library states.
void require_float64_analysable(const Architecture& a);

struct DoubleExecutionBound {
  double output_error = 0;      // sup over the box of |ŷ_double − ŷ_real|
  double output_magnitude = 0;  // the bound on |ŷ_real| the analysis carried
  long boxes = 0;               // sub-boxes evaluated
};

/// How far the bound is refined: the sub-box with the largest bound is bisected along its widest coordinate (in
/// fixed batches, evaluated in parallel: the result does not depend on the thread count) until `max_boxes` sub-boxes
/// have been evaluated or the bound is at most `stop_below`. max_boxes = 1 evaluates the whole box only.
struct RoundingRefinement {
  long max_boxes = 1;
  double stop_below = 0;
  int threads = 1;
};

/// The bound over [lo, hi]^{T·d}. Throws InputError for an empty or non-finite box, T < 1, T beyond the model's
/// positional table, max_boxes < 1 or threads outside 1..256.
DoubleExecutionBound double_execution_error_bound(const Model& model, int T, double lo, double hi,
                                                  const RoundingRefinement& refine = {});
/// The same over the box ∏_i [lo[i], hi[i]], coordinate i being token i / d, coordinate i % d.
DoubleExecutionBound double_execution_error_bound(const Model& model, int T, const std::vector<double>& lo,
                                                  const std::vector<double>& hi, const RoundingRefinement& refine = {});

/// The other side: the largest |ForwardPass<double>(x) − ForwardPass<MPFR 256 bits>(x)| found at double inputs x of
/// [lo, hi]^{T·d}. A sampled lower bound on the worst rounding, the reference the certified bound is measured
/// against: the corners (up to 64), seeded uniform inputs, then a (1+1) local search from the four worst. Its moves:
/// steps from the box's width down to single ulps, and ties (a coordinate copied from another token, then moved by
/// a few ulps), where sharp softmaxes round worst.
/// `evaluations` bounds the MPFR forward passes; a NaN or infinite double output counts as an infinite rounding.
struct ObservedRounding {
  double largest = 0;
  std::vector<double> at;  // the input attaining it, flattened token by token
  long evaluations = 0;
};
ObservedRounding observed_double_rounding(const Model& model, int T, double lo, double hi, long evaluations,
                                          std::uint64_t seed);
/// The same over the box ∏_i [lo[i], hi[i]].
ObservedRounding observed_double_rounding(const Model& model, int T, const std::vector<double>& lo,
                                          const std::vector<double>& hi, long evaluations, std::uint64_t seed);

}  // namespace infoflow
