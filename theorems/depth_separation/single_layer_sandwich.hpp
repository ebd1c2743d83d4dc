#pragma once
// Theorem 1's single-layer cost pinned from both sides (docs/lower-bounds.md §7–§9):
//   - the continuity floor: no continuous single-layer model of C1(h, n) reaches sup error below half a certified
//     family's range when that family has more than h(n+1) coordinates (Lebesgue's covering theorem), witnessed on
//     random and fitted models by the pair the theorem promises (continuity_floor.hpp);
//   - the upper side in readout L·R for the class with any encoder: the code model (code_model.hpp), L·R ≤ T·d·G^{T·d},
//     against the certified packing bound: (T−1)/(h(n+1)) − 1 ≤ k(T) ≤ T·d;
//   - the depth separation for continuous models: below the floor no single-layer model reaches ε at any size, while
//     the two-layer construction is built there and certified;
//   - the growth in T at fixed ε: the class bound rises with T, the construction's L·R does not.
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/completion_family.hpp"
#include "theorems/depth_separation/depth_separation_config.hpp"

#include <functional>
#include <map>

namespace infoflow {

struct SuiteContext;
struct SuiteResult;

/// The certified class bound the sandwich is held against: L·R at (T, h, n, ε), and its exponent.
struct ClassBoundAt {
  double lr_lower = 0;
  bool vacuous = true;
};

/// `families_by_m`: the tightened, certified completion families by prefix length m'.
/// The floor per (T, h, n) and the check `continuity-floor.witnessed` (random and fitted models of `study`).
void run_continuity_floor(const ClassBoundConfig& cb, const SuiteContext& ctx,
                          const std::map<int, CompletionFamilyCertificate>& families_by_m, const SingleLayerStudy& study,
                          SuiteResult& r);
/// The code model against built instances (`exponent.upper-construction`) and the sandwich of the exponent against
/// `class_bound(T, eps)`, the certified packing bound for one head with n = 1.
void run_upper_construction(const ClassBoundConfig& cb, const SuiteContext& ctx,
                            const std::function<ClassBoundAt(int T, double eps)>& class_bound, SuiteResult& r);
/// The two-layer construction built below the floor at every T (`depth-separation.continuous`).
void run_continuous_separation(const DepthSeparationConfig& cfg, const SuiteContext& ctx,
                               const std::map<int, CompletionFamilyCertificate>& families_by_m, SuiteResult& r);

}  // namespace infoflow
