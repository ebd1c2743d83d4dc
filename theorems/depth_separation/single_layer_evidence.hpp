#pragma once
// Theorem 1's single-layer side (docs/theory.md §3): no finite computation proves the lower bound, so this
// gathers evidence with the shared study (theorems/common/single_layer_study.hpp): fits per T, the
// apparent exponent κ(T), the slope of κ against T, M_single/M_two at matched ε, and certified witnesses.
// The certified lower bound for the whole class is theorems/depth_separation/class_lower_bound.hpp.
#include "theorems/depth_separation/construction_sweep.hpp"

namespace infoflow {

/// Returns the study (fits and witnesses) for the class-bound section's checks on fitted models.
/// Uniform samples with a quarter of near-ties and a quarter of face/corner inputs (where a retrieval target is
/// hardest), labelled by the exact target min_{s,t} x(s)·x(t); deterministic from `seed`.
Dataset min_dot_dataset(int T, int d, int count, std::uint64_t seed);

/// The fits and witnesses, with their self-checks: the single-layer study the later stages read.
SingleLayerStudy run_single_layer_fits(const DepthSeparationConfig& cfg, const SuiteContext& ctx, SuiteResult& r);
/// The descriptive series built on the study: error against M_ffn per T, kappa(T), M_single/M_two at matched eps (it
/// builds the two-layer construction), the witnesses' width bounds. A stage apart from the fits, so that a mutant of the
/// construction does not rerun them.
void run_single_layer_series(const DepthSeparationConfig& cfg, const SuiteContext& ctx, const SingleLayerStudy& study,
                             SuiteResult& r);

}  // namespace infoflow
