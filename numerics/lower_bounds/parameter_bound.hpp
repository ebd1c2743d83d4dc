#pragma once
// From a certified lower bound on readout L·R to a certified lower bound on the parameter count, for single-layer
// models whose every weight lies in [−1, 1] (docs/lower-bounds.md §6).
//
// The class: token dimension d, state width E ≥ 1 (free), an encoder that is affine or a ReLU FFN of width p_e ≥ 1,
// optionally a positional table, a CLS vector, exactly h heads each of value dimension n (a model with mixed value
// dimensions is counted by its own row, not by the largest n) (queries and keys of any size, not
// counted: the bound holds whatever they are, so leaving them out keeps the count a lower bound), W_O, and a readout
// that is affine or a ReLU FFN of width p_r. Temperatures are free and not counted. With every weight in [−1, 1] and
// inputs in [0, 1]^d:
//   ‖u(x, t)‖ ≤ √E·U,  U = d + 1 (affine encoder) or p_e(d + 1) + 1 (FFN), one more with positions;
//   ‖W_O^(i) V_i‖ ≤ ‖W_O^(i)‖_F ‖V_i‖_F ≤ nE,  so R ≤ n E^{3/2} U;
//   L ≤ f_r √E,  f_r = 1 (affine) or p_r (Σ_k |w2_k|‖W1_k‖);
// hence L·R ≤ n E² f_r U, and a model above the class bound B needs f_r·U ≥ B/(nE²). Its parameter count is
//   P = enc + E (CLS) + 2hnE (V, W_O) + TE (positions, if any) + read,
//   enc = E(d + 1) or p_e(d + 1 + E) + E,  read = E + 1 or p_r(E + 2) + 1 ≥ (E + 1) f_r.
// The least P over every E ≥ 1 and every width has a closed-form lower bound (docs/lower-bounds.md §6, with its proof):
//   FFN encoder:    P ≥ 2√(B/((d + 1)n)) + 2hn + 1 − 1/(d + 1)     (AM–GM in the encoder's width, E ≥ 1)
//   affine encoder: P ≥ 2√((d + 2 + 2hn)B/((d + 2)n))              (AM–GM in E)
// each also at least the smallest model of its kind; the least of the two, in arb, rounded up to an integer.
// FFN parameters alone (M_ffn) have no such bound when E is free: an affine model with E ≥ √(B/(n(d + 1))) meets the
// L·R requirement with none. The total count is what the table reports.
#include <nlohmann/json.hpp>

namespace infoflow {

struct BoundedWeightClass {
  int d = 2;        // token dimension
  int T = 2;        // sequence length (the positional table has T rows)
  int heads = 1;    // h
  int value_dim = 1;  // n
};

struct ParameterLowerBound {
  double lr_bound = 0;     // B: the certified L·R every model of the class reaching ε needs
  double parameters = 0;   // certified: every such model with weights in [−1, 1] has at least this many parameters
  std::string branch;      // the encoder kind whose bound is the smaller: "FFN encoder" or "affine encoder"
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ParameterLowerBound, lr_bound, parameters, branch)

/// The least parameter count (rounded up to an integer, certified in arb) of any single-layer model of the class with
/// every weight in [−1, 1] and readout L·R ≥ lr_bound. Throws InputError for d, T, heads or value_dim < 1, or a bound
/// that is negative or not finite.
ParameterLowerBound least_parameters_for_lr(const BoundedWeightClass& cls, double lr_bound, long prec = 128);

/// A concrete architecture of the class: state width E, encoder width (0: affine), readout width (0: affine).
struct BoundedWeightWidths {
  int E = 1;
  int encoder_width = 0;
  int readout_width = 0;
  bool positions = false;
};

/// The largest readout L·R the inequality allows a model of these widths: n E² f_r U.
double largest_lr_for_widths(const BoundedWeightClass& cls, const BoundedWeightWidths& w);

/// The parameters the class counts for these widths (queries, keys and temperatures excluded).
double counted_parameters(const BoundedWeightClass& cls, const BoundedWeightWidths& w);

}  // namespace infoflow
