#pragma once
// Theorem 1's two-layer side: for every (T, ε) of the sweep, build TwoLayerMinDotConstruction, certify
// it, export its weights, and measure its error in MPFR on the adversarial families. Adds the checks
// and the M_ffn-vs-1/ε series (derived slope 1/2, band [0.4, 0.6]) to the result.
#include "theorems/depth_separation/depth_separation_config.hpp"

#include <map>
#include <set>

namespace infoflow {

struct ConstructionSweepSummary {
  std::map<int, double> fitted_slope_by_T;  // slope of log M_ffn on log(1/ε), per T
};

ConstructionSweepSummary run_construction_sweep(const DepthSeparationConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
