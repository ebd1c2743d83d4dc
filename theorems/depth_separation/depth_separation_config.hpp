#pragma once
// What Theorem 1's suite runs, per profile, after the command-line options are applied.
#include "theorems/common/single_layer_study.hpp"

#include <vector>

namespace infoflow {

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
};

/// Throws InputError naming the option (--d, --T, --eps, --fit-T, --p, --n) for bad values.
DepthSeparationConfig depth_separation_config(const SuiteContext& ctx);
std::vector<SuiteOption> depth_separation_options();

}  // namespace infoflow
