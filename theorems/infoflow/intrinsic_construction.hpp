#pragma once
// An explicit (D,D) model for the intrinsic-dimension target (docs/experiments.md §2.1), in the trainer's architecture
// (experiment_architecture): what the architecture can represent, and so the floor a training of it could approach.
//   encoder: u(t) = x(t) in coordinates 0..3; the CLS state is e_0;
//   layer 1, head i: scores x(s)ᵀA_i x(t) (Q = A_i, K = V = the token), so at a large temperature it retrieves
//                    x(s*), s* = argmax_s x(s)ᵀA_i x(t), into slot i (coordinates 4+4i .. 7+4i);
//   token FFN:       p̂_i(t) ≈ x(s*)ᵀA_i x(t) = Σ_r ¼[(a_r·x(s*) + b_r·x(t))² − (a_r·x(s*) − b_r·x(t))²]
//                    (A_i = Σ_r σ_r U_r V_rᵀ, a_r = √σ_r U_r, b_r = √σ_r V_r), each square replaced by its piecewise
//                    linear interpolant on knots spread over [0, c·√σ_r]; written to coordinate 4+4D+i;
//   layer 2, head i: the CLS (coordinate 0 = 1) scores p̂_i(t) and retrieves max_t p̂_i(t); W_O sums the D heads into
//                    CLS coordinate 1; the readout standardises it.
// The FFN's width per family is 16m: 4 rank-one terms × 2 squares × m knots × 2 sides (|z| = ReLU(z) + ReLU(−z)).
#include "numerics/model/model.hpp"
#include "theorems/infoflow/paper_experiments.hpp"

#include <cstdint>
#include <vector>

namespace infoflow {

/// g(z) = Σ_j c_j (ReLU(z − k_j) + ReLU(−z − k_j)): the piecewise linear interpolant of z² at the knots
/// k_j = j·R/m (j = 0..m−1) and at R, continued linearly beyond ±R. Exact (g = z²) at every knot and at ±R.
struct SquareInterpolant {
  std::vector<double> knots, coefficients;
  static SquareInterpolant make(int knot_count, double range);
  double operator()(double z) const;
};

/// The widths the construction accepts: 16m per family, m >= 1.
bool valid_construction_width(int width_per_family);

/// The construction's shape: experiment_architecture's (D,D) cell with a token FFN of `width_per_family`·D units.
Architecture intrinsic_construction_architecture(int D, int width_per_family);

struct IntrinsicConstructionParams {
  int width_per_family = 16;
  double range_multiplier = 7.0;  // c: the knots of rank-one term r span [0, c·√σ_r]
  double beta = 1e4;              // both layers' temperatures
  double y_shift = 0.0;           // the readout gives (F̂ − y_shift) / y_scale
  double y_scale = 1.0;
};

/// The explicit weights above for the target's D families. Throws ContractError for an invalid width or scale.
Model intrinsic_dimension_construction(const IntrinsicDimensionTarget& target, const IntrinsicConstructionParams& p);

/// The same function read off the formula instead of the weights: Σ_i max_t p̂_i(t) with the argmax taken exactly
/// (the β → ∞ limit of the attention), unstandardised. A second route for the tests and the range's tuning.
double intrinsic_construction_direct(const IntrinsicDimensionTarget& target, const IntrinsicConstructionParams& p,
                                     const std::vector<std::vector<double>>& X);

/// The construction's sampled error on the experiment's input distribution (tokens N(0, I_4)) at one T and width.
struct ConstructionFloor {
  double range_multiplier = 0;   // chosen on the tuning sample (never the evaluation sample)
  CellResult result;             // on the evaluation sample: NMSE with its 95% interval; parameters = M_total
  Model model;                   // the exported weights (standardised readout)
};

/// Tunes c on `tuning_samples` sequences (direct route), then evaluates the exported model's forward pass on
/// `samples` fresh sequences. The readout's shift is the tuning sample's mean of F̂ minus the mean of F plus its mean
/// of F; its scale, the standard deviation of F there. Deterministic in `seed`.
ConstructionFloor intrinsic_construction_floor(int D, int T, int width_per_family, int tuning_samples, int samples,
                                               std::uint64_t target_seed, std::uint64_t sample_seed);

}  // namespace infoflow
