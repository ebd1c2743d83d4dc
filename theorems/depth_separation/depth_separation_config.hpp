#pragma once
// What Theorem 1's suite runs, per profile, after the command-line options are applied.
#include "theorems/common/single_layer_study.hpp"

#include <vector>

namespace infoflow {

/// The certified class lower bound (docs/lower-bounds.md): where it is computed and the crossover grid.
struct ClassBoundConfig {
  std::vector<int> T;                  // sequence lengths (prefix m = T − 1); empty: the section is skipped
  std::vector<int> heads{1, 2};
  std::vector<int> value_dims{1, 2, 3};
  std::vector<double> eps;             // the bound's table and slope check
  std::vector<double> crossover_eps;   // the finer grid on which the crossover with the construction is sought
  int family_samples = 400;            // second-route samples per family
};

/// Single-layer fits in the class (every weight in [−1, 1], β free) with certified errors, and the sandwich
/// with the class bound (theorems/depth_separation/class_fits.hpp).
struct ClassFitConfig {
  std::vector<int> T;          // empty: the section is skipped
  std::vector<int> widths;     // FFN widths p (encoder and readout)
  int E = 4;
  int n = 1;
  int restarts = 16;
  int train_samples = 200;
  int valid_samples = 150;
  int max_iterations = 25;
  long certify_boxes = 2000;   // branch-and-bound budget per model (boxes: deterministic)
  double certify_gap = 1e-2;   // relative gap requested
  int certify_max_dims = 8;    // certify where T·d ≤ this; sample beyond
  int sampled_inputs = 2000;
};

struct DepthSeparationConfig {
  int d = 2;
  bool d1_control = false;  // d = 1 allowed as a labelled control (no separation exists there)
  // Two-layer construction sweep.
  std::vector<int> construction_T;
  std::vector<double> eps;
  int samples_per_family = 6;
  long mpfr_bits = 128;
  // Single-layer fits and witnesses.
  std::vector<int> fit_T;
  std::vector<int> head_dims;  // n
  SingleLayerStudySettings study;
  ClassBoundConfig class_bound;
  ClassFitConfig class_fits;
};

/// Throws InputError naming the option (--d, --T, --eps, --fit-T, --p, --n, --class-T, --class-fit-T,
/// --class-fit-p) for bad values.
DepthSeparationConfig depth_separation_config(const SuiteContext& ctx);
std::vector<SuiteOption> depth_separation_options();

}  // namespace infoflow
