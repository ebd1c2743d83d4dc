#pragma once
// The single-layer evidence machinery shared by Theorems 1 and 2 (docs/theory.md §3, §4): fit single-layer models
// of several widths with Ceres for each configuration, search witnesses on the widest model, certify
// them in arb, and turn the fits into error-vs-M series and apparent exponents κ = −1/slope.
// Widths of one configuration are fitted narrowest first, and each width's first restart starts from the
// previous width's best model embedded in the wider shape (the same function), so the sequence of fitted
// models is nested; configurations run in parallel and are the unit of checkpointing.
#include "numerics/fit/model_fitter.hpp"
#include "numerics/model/target.hpp"
#include "theorems/suite.hpp"

#include <functional>
#include <string>
#include <vector>

namespace infoflow {

/// One configuration of a study: a target variant (e.g. "k=2"), a sequence length, a head dimension.
struct StudyConfigKey {
  std::string variant;
  int T = 1;
  int n = 1;
  std::string key() const;  // "variant,T=..,n=.."
  bool operator==(const StudyConfigKey&) const = default;
};

struct SingleLayerStudySettings {
  std::string tag;  // prefixes seeds, checkpoint names and weight files, e.g. "thm1"
  int d = 1;
  int E = 4;
  std::vector<int> widths;
  int train_samples = 800;
  int valid_samples = 400;
  int restarts = 3;
  int max_iterations = 150;
  int adam_steps = 0;  // > 0: each restart also trains by AdamW for this many steps (ModelFitOptions::adam_steps)
  int witness_candidates = 600;
  int witness_refine = 3;
  /// True when every field is in range; otherwise false, with the first violation in *why.
  bool is_valid(std::string* why) const;
};

/// Makes `count` labelled samples for a configuration, deterministically from `seed`.
using DatasetMaker = std::function<Dataset(const StudyConfigKey&, int count, std::uint64_t seed)>;
using TargetFor = std::function<Target(const StudyConfigKey&)>;

/// One fitted width of one configuration.
struct WidthFit {
  std::string variant;
  int T = 0;
  int n = 0;
  int p = 0;
  std::size_t M_ffn = 0;
  std::size_t M_total = 0;
  double max_abs_weight = 0.0;
  double train_rmse = 0.0, train_max = 0.0;
  double valid_rmse = 0.0, valid_max = 0.0;  // valid_max: the sampled sup error on the validation set
  double valid_target_std = 0.0;             // what predicting the mean would score (RMSE)
  int best_restart = -1;
  bool warm_started = false;
  std::vector<double> restart_valid_rmse;
  int iterations = 0;       // LM iterations or AdamW steps of the kept candidate
  std::string termination;  // how it stopped (ModelFitResult::termination; "NO_CONVERGENCE": LM's iteration cap)
  std::string method;       // "levenberg-marquardt" or "adamw" (ModelFitOptions::adam_steps)
  double route_gap = 0.0;   // ModelFitResult::max_route_gap: the optimisers' own errors against the reference's
  std::string weights_file;
  nlohmann::json weights;  // the model in the weights format (docs/weights-format.md)

  StudyConfigKey config() const { return {variant, T, n}; }
};

/// The witness search on one configuration's widest model (L4; for that encoder and attention only).
struct WitnessRecord {
  std::string variant;
  int T = 0;
  int n = 0;
  int p = 0;
  double eps = 0.0;  // the model's sampled validation sup error
  bool found = false;
  bool certified = false;
  std::string reason;
  double target_gap_lower = 0.0;
  double state_distance_upper = 0.0;
  double width_lower_bound = 0.0;
  std::vector<std::vector<double>> X1, X2;

  StudyConfigKey config() const { return {variant, T, n}; }
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WidthFit, variant, T, n, p, M_ffn, M_total, max_abs_weight, train_rmse, train_max,
                                   valid_rmse, valid_max, valid_target_std, best_restart, warm_started,
                                   restart_valid_rmse, iterations, termination, method, route_gap, weights_file, weights)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(WitnessRecord, variant, T, n, p, eps, found, certified, reason, target_gap_lower,
                                   state_distance_upper, width_lower_bound, X1, X2)

struct SingleLayerStudy {
  std::vector<WidthFit> fits;            // one per (config, p)
  std::vector<WitnessRecord> witnesses;  // one per config, on its widest model
};

/// The single-layer architecture fitted: FFN encoder d→p→E, one head (n' = n), FFN readout E→p→1.
Architecture single_layer_fit_architecture(int d, int E, int n, int p);

SingleLayerStudy run_single_layer_study(const SingleLayerStudySettings& s, const std::vector<StudyConfigKey>& configs,
                                        const TargetFor& target_for, const DatasetMaker& make_dataset,
                                        const SuiteContext& ctx);

/// κ = −1/slope of log(err) on log(M), with the slope's interval mapped through (unbounded when the
/// slope interval reaches 0: then the error does not demonstrably fall with M).
Interval kappa_interval(const LineFit& f);

/// Fits of one configuration, sorted by width.
std::vector<WidthFit> fits_of(const SingleLayerStudy& study, const StudyConfigKey& c);
const WitnessRecord* witness_of(const SingleLayerStudy& study, const StudyConfigKey& c);

/// The validation sup error against M_ffn for one configuration, fitted in log-log.
Series error_vs_M_series(const SingleLayerStudy& study, const StudyConfigKey& c, const std::string& id,
                         const std::string& title, std::uint64_t seed);

/// κ against T from the per-T error-vs-M fits. T values whose error did not fall with M are left out.
/// With `banded`, the series passes when the slope's interval lies in (0, ∞) (κ rises with T) and every κ(T)
/// has a bounded interval; otherwise it is inconclusive. It never fails: fitted models bound the optimal
/// cost from above, so a flat or falling line says nothing against a lower bound (docs/spec-notes.md).
Series kappa_vs_T_series(const std::string& id, const std::string& title, const std::vector<std::pair<double, LineFit>>& per_T,
                         bool banded, std::uint64_t seed, const std::string& x_label = "T");

/// Check: every witness pair the search found re-verifies in arb (inconclusive when none was found).
Check witness_check(const SingleLayerStudy& study, const std::string& id);
/// Check: the widest model of every configuration beats predicting the mean (the fits learned something).
Check fits_learn_check(const SingleLayerStudy& study, const std::vector<int>& widths, const std::string& id);

/// Two routes to each fitted candidate's error must agree: the optimiser's own (Ceres's final cost, the trainer's
/// batched validation RMSE) and the reference forward pass's, within kRouteAgreement relative. Fails on any gap beyond
/// it (a non-finite one included): a defect in one of the three forward implementations, or an overflow in one.
Check fit_routes_agree_check(const SingleLayerStudy& study, const std::string& id);

/// Agreement required of two double-precision evaluations of one model's RMSE (ModelFitResult::max_route_gap: relative,
/// with a floor of 1e-8 of the targets' RMS): they differ only in the order of operations, by ~1e-14 on these models;
/// 1e-6 leaves room for ill-conditioned softmaxes (large logits) and still catches a defect that moves a prediction.
inline constexpr double kRouteAgreement = 1e-6;

}  // namespace infoflow
