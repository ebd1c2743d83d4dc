#pragma once
// Theorem 1's single-layer side (SPEC §3): no finite computation proves the lower bound, so this
// gathers evidence. (1) Fits: single-layer models of width p fitted with Ceres for each T; per T the
// apparent cost exponent κ(T) = −1/slope of log(err) on log(M_ffn); then the slope of κ against T.
// (2) Witnesses: for each T, a pair of inputs with targets ≥ 3ε apart whose pre-readout states are
// close, certified in arb, giving L4's lower bound on the readout width for that encoder and attention.
#include "numerics/model/architecture.hpp"
#include "theorems/depth_separation/construction_sweep.hpp"

namespace infoflow {

void run_single_layer_evidence(const DepthSeparationConfig& cfg, const SuiteContext& ctx,
                               const ConstructionSweepSummary& two_layer, SuiteResult& r);

/// The single-layer architecture fitted here: FFN encoder d→p→E, one head (n' = n), FFN readout E→p→1.
Architecture single_layer_fit_architecture(int d, int E, int n, int p);

}  // namespace infoflow
