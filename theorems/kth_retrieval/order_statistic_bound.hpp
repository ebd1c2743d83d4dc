#pragma once
// Theorem 2's hard side for a whole class (docs/lower-bounds.md §5): the completion-packing bound of
// numerics/lower_bounds/completion_packing.hpp with an order-statistic family. With r = min(k, T − k + 1),
// a prefix of T − r + 1 tokens carries r free order statistics p_1 ≥ … ≥ p_r (p_i in [1 − i/r, 1 − i/r + (1 − 1e-9)/r],
// apart by 1e-9/r so rounding never reorders them; the other prefix tokens 0), and the r completions of r − 1 tokens (a ones, r − 1 − a zeros, a = 0..r−1)
// reveal F_k = p_{k−a}: every order statistic of the prefix up to the r-th. For k > T − k + 1 the family is
// mirrored (x ↦ 1 − x maps F_k to 1 − F_{T−k+1}). Certified exponent of L·R: r/(h(n+1)) − 1.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "reports/result.hpp"
#include "theorems/suite.hpp"

#include <vector>

namespace infoflow {

/// r = min(k, T − k + 1): how many order statistics the completions reveal.
int revealed_order_statistics(int T, int k);

/// The packing data of the family: r coordinates, r completions, range 1/r per coordinate, target range 1.
PackingFamily order_statistic_packing_family(int T, int k);

/// One family input: the prefix with grid indices `index` (each in 0..G−1) followed by completion a, and the
/// family's formula for F_k on it.
struct OrderStatisticInput {
  std::vector<std::vector<double>> X;
  double value = 0;
};
OrderStatisticInput order_statistic_input(int T, int k, long G, const std::vector<long>& index, int a);

/// Theorem 2 suite section: the bound per (T, k, n), its slope, a second-route sample of the family and the
/// symmetry k ↔ T − k + 1.
void run_order_statistic_bound(const std::vector<int>& Ts, const std::vector<int>& head_dims, const SuiteContext& ctx,
                               SuiteResult& r);

/// The separation between k = 1 and a middle k in readout L·R: `kth-separation.lr`, the certified class bound for the
/// k-th largest (one head, n = 1, any encoder) against the k = 1 head built at the same eps, its L·R from its weights.
void run_kth_lr_separation(const std::vector<int>& Ts, SuiteResult& r);

}  // namespace infoflow
