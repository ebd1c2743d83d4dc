#pragma once
// Theorem 2 for continuous single-layer models (docs/lower-bounds.md §7 applied to §5's order-statistic family): with
// r = min(k, T − k + 1) > h(n+1), no single-layer model of C1(h, n) whose encoder, scores and values are continuous in
// the token retrieves the k-th largest below sup error (1 − 1e-9)/(2r), at any size. For k = 2 (and T − 1) the method
// is silent: the k-th largest of P⊕Z depends on a prefix P only through its two largest (smallest) values, so no
// completion family reveals more than two numbers of a prefix, and one head of value dimension 1 carries two.
#include "theorems/depth_separation/continuity_floor.hpp"
#include "theorems/suite.hpp"

#include <vector>

namespace infoflow {

/// The order-statistic family (order_statistic_bound.hpp) as a revealing family: r coordinates, each the offset of one
/// order statistic in its interval of width (1 − 1e-9)/r; completion j reveals the (j+1)-th (mirrored for k > T−k+1).
RevealingFamily order_statistic_revealing_family(int T, int k);

/// The floor for one head of value dimension n at (T, k), 0 when r = min(k, T−k+1) <= n + 1.
double kth_continuity_floor(int T, int k, int heads, int n);

/// The suite section: the floor per (T, k) and the check `class-bound.kth-continuity-floor` (the pair the theorem
/// promises, found on random continuous models, every readout's error there in arb, against the floor).
void run_kth_continuity_floor(const std::vector<int>& Ts, const SuiteContext& ctx, SuiteResult& r);

/// The separation between k = 1 and the k the floor decides, in parameters: `kth-separation.continuous` (the k = 1 head
/// built below the floor and certified from its weights, against the floor).
void run_kth_continuous_separation(const std::vector<int>& Ts, SuiteResult& r);

}  // namespace infoflow
