#pragma once
// Theorem 1's hard side, certified for a whole class (docs/lower-bounds.md): every single-layer model of
// C1(h, n, R, L) with error ≤ ε on the completion family has L·R above a bound computed in arb; the
// two-layer construction's L·R (same definitions) stays near d; where the first exceeds the second the
// depth separation is certified (in readout L·R). Also the dilution bound for one head, checked against an
// explicit model that sits on it and against every fitted single-layer model.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "numerics/model/model.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/completion_family.hpp"
#include "theorems/depth_separation/depth_separation_config.hpp"
#include "theorems/suite.hpp"

#include <cmath>
#include <vector>

namespace infoflow {

/// One fitted (or given) single-layer model against the one-head dilution bound (docs/lower-bounds.md §4).
struct DilutionModelCheck {
  int T = 0;
  double lipschitz_upper = 0;  // readout L (certified upper bound)
  std::string lipschitz_method;
  double value_norm = 0;       // R on the family's tokens e1, e2 (certified upper bound)
  double family_error = 0;     // max |y − F| over the 2T+2 (or 4) dilution inputs (certified upper bound)
  double bound = 0;            // the class bound at that error
  double bound_previous = 0;   // with positions: the previous route's (1 − 2ε)(T − 2)/4, shown beside for one release
  bool positional = false;
  bool respects = true;        // L·R ≥ bound
  double lr = 0;               // L·R with R on e1, e2 (certified upper bound): what the dilution bound speaks of
  double ratio() const { return bound > 0 ? lr / bound : INFINITY; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DilutionModelCheck, T, lipschitz_upper, lipschitz_method, value_norm, family_error,
                                   bound, bound_previous, positional, respects, lr)

/// The dilution inputs for a model with token dimension d ≥ 2: all e1, all e2, and the same with the other
/// unit vector at position τ (τ = T − 1 only, or every τ when the model has positions), with their targets.
/// With `check_id`, the model's quantities are recorded as that check's own computation (numerics/util/mutation.hpp).
DilutionModelCheck check_model_against_dilution(const Model& model, int T, const std::string& check_id = "");

/// The explicit one-head model of docs/lower-bounds.md §4 (uniform attention, values ±(1/2, −1/2), a width-2
/// readout) whose error on the dilution family is 0 and whose L·R is exactly T/2: the bound is tight.
Model dilution_tight_model(int T);

/// The completion family for sequence length T (prefix m = T − 1) that the suite uses, certified in arb.
CompletionFamilyCertificate certified_completion_family(int T, std::uint64_t suite_seed);

/// The class-bound section of the Theorem 1 suite: families, bounds, slopes, crossover, dilution checks.
/// Runs as stages of its own (theorems/stage.hpp): the families, the bound, the sandwich, the depth separation, the
/// realisability gap, the dilution checks; `fitted` is the single-layer study's stage.
void run_class_lower_bound(const DepthSeparationConfig& cfg, const SuiteContext& ctx,
                           const Staged<SingleLayerStudy>& fitted, SuiteResult& r);

}  // namespace infoflow
