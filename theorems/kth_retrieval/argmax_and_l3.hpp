#pragma once
// Theorem 2's certified parts: the k = 1 construction swept over (T, ε) up to T = 1024 (certified,
// exported, sampled in MPFR, the supremum attained), and lemma L3 certified on its family for k ≥ 2.
#include "theorems/kth_retrieval/kth_retrieval_config.hpp"

namespace infoflow {

void run_argmax_sweep(const KthRetrievalConfig& cfg, const SuiteContext& ctx, SuiteResult& r);
void run_no_temperature_checks(const KthRetrievalConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
