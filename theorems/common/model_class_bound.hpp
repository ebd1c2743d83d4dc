#pragma once
// `infoflow-verify bound` (docs/lower-bounds.md §10): one single-layer model against the certified class
// bounds. From its weights: certified upper bounds on the readout's Lipschitz constant L and the value norms
// R (on the family's tokens and over the whole input box); its error on the family's inputs, certified in arb
// (only the family's inputs enter the bound); the class bound at that error. The model must satisfy
// L·R ≥ bound: a model that does not would refute the derivation (or expose a bug), so this is a
// falsifiable check on real models. A sampled error over random inputs is reported beside it, labelled.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "numerics/model/model.hpp"
#include "theorems/depth_separation/class_lower_bound.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace infoflow {

struct ModelBoundRequest {
  std::string target = "min-dot";  // "min-dot" (Theorem 1) or "kth" (Theorem 2, with k)
  int k = 0;
  int T = 0;
  long max_family_inputs = 20000;  // the largest grid family evaluated in arb
  int random_samples = 2000;       // the sampled error's inputs
  std::uint64_t seed = 20260529;
  /// When a check holds the model against the bound: the model's own quantities (L, R, its family error) are recorded
  /// as that check's computation (numerics/util/mutation.hpp); the class bound is computed outside it.
  std::string check_id = {};
};

struct PackingEvaluation {
  long grid = 0;                 // G of the best grid evaluated (0: none)
  long family_inputs = 0;
  double family_error = 0;       // certified upper bound of max |y − F| over the family's inputs
  double bound = 0;              // certified class bound on L·R at that error (0: no grid has g > 2·error)
  double trivial = 0;
  double exponent = 0;
  bool vacuous = true;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PackingEvaluation, grid, family_inputs, family_error, bound, trivial, exponent, vacuous)

struct ModelBoundReport {
  std::string target;
  int T = 0, k = 0;
  int heads = 0, value_dim = 0;
  bool positional = false;
  double lipschitz_upper = 0;
  std::string lipschitz_method;
  double value_norm_family = 0;  // max over heads, on the family's tokens
  double value_norm_box = 0;     // max over heads, over the whole box [0,1]^d
  double lr_family = 0;          // L·R with R on the family's tokens (what the bound is compared with)
  PackingEvaluation packing;
  std::optional<DilutionModelCheck> dilution;  // one head, min-dot only
  double sampled_error = 0;      // max |y − F| over random inputs (sampled, not certified)
  bool respects = true;          // every applicable bound ≤ L·R
  std::string note;              // why a bound was not evaluated, if one was not
};
void to_json(nlohmann::json& j, const ModelBoundReport& r);

/// Throws InputError (exit 2) for a model with more than one layer, a target it cannot be compared with
/// (token dimension, T outside 3..12 for min-dot or the positional table, k outside 1..T) or a bad request.
ModelBoundReport bound_single_layer_model(const Model& model, const ModelBoundRequest& request);

/// A table for people.
std::string model_bound_table(const ModelBoundReport& r);

}  // namespace infoflow
