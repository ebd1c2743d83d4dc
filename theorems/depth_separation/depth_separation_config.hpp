#pragma once
// What Theorem 1's suite runs, per profile, after the command-line options are applied.
#include "theorems/suite.hpp"

#include <vector>

namespace infoflow {

struct DepthSeparationConfig {
  int d = 2;
  // Two-layer construction sweep.
  std::vector<int> construction_T;
  std::vector<double> eps;
  int samples_per_family = 6;
  long mpfr_bits = 128;
  // Single-layer fits.
  std::vector<int> fit_T;
  std::vector<int> widths;     // p
  std::vector<int> head_dims;  // n
  int fit_state_dim = 4;       // E of the single-layer models
  int train_samples = 800;
  int valid_samples = 400;
  int restarts = 3;
  int max_iterations = 150;
  // Witness search.
  int witness_candidates = 600;
  int witness_refine = 3;
};

/// Throws InputError naming the option (--d, --T, --eps, --fit-T, --p, --n) for bad values.
DepthSeparationConfig depth_separation_config(const SuiteContext& ctx);
std::vector<SuiteOption> depth_separation_options();

}  // namespace infoflow
