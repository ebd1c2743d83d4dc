#pragma once
// Theorem 2's fitted evidence (docs/theory.md §4): single-layer fits for k ∈ {1, 2, 3}, T and n, through the shared
// study; κ(T, k) beside the stated (T − k − 1)/(n + 1); witnesses; and the shape of the fitted scores
// (monotone or not), which is what L3 turns on.
#include "theorems/kth_retrieval/kth_retrieval_config.hpp"

namespace infoflow {

void run_kth_fits(const KthRetrievalConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
