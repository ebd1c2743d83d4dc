#pragma once
// Fits single-layer models (docs/theory.md §1) by Levenberg–Marquardt (Ceres) with analytic Jacobians.
// Several restarts run in parallel under OpenMP, each with one Ceres thread; the restart with the
// lowest validation RMSE is kept (ties: the lower restart index, so the result is deterministic).
#include "numerics/model/model.hpp"
#include "numerics/util/rng.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace infoflow {

struct Dataset {
  std::vector<std::vector<std::vector<double>>> X;  // sequences of tokens
  std::vector<double> y;                             // targets
  void add(std::vector<std::vector<double>> x, double target) {
    X.push_back(std::move(x));
    y.push_back(target);
  }
};

struct ModelFitOptions {
  int restarts = 4;          // >= 1
  int max_iterations = 100;  // >= 1, per restart
  double init_scale = 0.5;   // > 0: initial weights uniform in ±init_scale/√fan_in-ish (see fitter)
  std::uint64_t seed = 1;
  int threads = 1;           // >= 1, over restarts
  double temperature = 1.0;  // > 0: fixed, or the start when free_temperatures
  /// When > 0, every weight is kept in [−weight_bound, weight_bound] (Ceres parameter bounds): the fitted model
  /// lives in the class the certified lower bounds speak about (docs/lower-bounds.md). Temperatures are not
  /// weights and stay unbounded above.
  double weight_bound = 0.0;
  /// Fit the temperatures too (kept ≥ kMinTemperature). With unbounded weights they are redundant with the scale
  /// of Q; with bounded weights they are the only way to sharpen attention.
  bool free_temperatures = false;
  /// When > 0, each restart's initial model is also trained by this many AdamW steps (numerics/train, learning rate
  /// adam_learning_rate, cosine schedule, batches of adam_batch), a second candidate beside Levenberg–Marquardt's
  /// from the same start; the fit keeps the candidate with the lowest validation RMSE. The LM candidates are exactly
  /// those of a fit without AdamW, so adding it never makes the validation error worse (docs/training.md: first-order
  /// training finds better minima at most points, LM the exact and sharp ones). Where a restart's LM fit is exact
  /// (validation RMSE at most 1e-6 of the targets' RMS) its AdamW candidate is not trained: AdamW could only match it
  /// to rounding there.
  int adam_steps = 0;
  double adam_learning_rate = 1e-2;
  /// Samples per AdamW step: 0 for the whole training set (full batch), else a minibatch of that many.
  int adam_batch = 0;
  /// When set, restart 0 starts from this narrower model embedded in the wider architecture (same function:
  /// the new hidden units have zero output weights), so a width sweep never loses what a narrower fit found.
  const Model* warm_start = nullptr;
  /// True when every field is in range; otherwise false, with the first violation in *why.
  bool is_valid(std::string* why) const;
};

/// The smallest temperature a fit with free temperatures may reach (the weights format requires β > 0).
inline constexpr double kMinTemperature = 1e-6;

struct ErrorStats {
  double rmse = 0.0;
  double max_abs = 0.0;
};

/// Which optimiser produced a fitted model.
enum class FitMethod { LevenbergMarquardt, AdamW };
/// "levenberg-marquardt" or "adamw", as the results name them.
const char* fit_method_name(FitMethod m);

struct ModelFitResult {
  Model model;
  ErrorStats train;
  ErrorStats valid;
  /// The kept candidate: restart r's LM fit is r, its AdamW fit (with adam_steps) R + r for R restarts.
  int best_restart = -1;
  std::vector<double> restart_valid_rmse;  // per candidate, in that order; NaN for one whose fit diverged, +∞ for an AdamW candidate not trained (its restart's LM fit was exact)
  /// LM iterations, or AdamW steps, of the kept candidate.
  int iterations = 0;
  /// How it stopped: Ceres's "CONVERGENCE", or "NO_CONVERGENCE" when it hit the iteration cap (then the fit is not a
  /// local minimum, and what it shows about the class is weaker still); "STEPS" for AdamW.
  std::string termination;
  FitMethod method = FitMethod::LevenbergMarquardt;
  /// The largest relative difference, over the candidates, between the error as the optimiser computed it and as the
  /// reference forward pass (numerics/model/forward) computes it for the same model: for LM the training RMSE from
  /// Ceres's final cost (the analytic-gradient code's forward sweep), for AdamW the batched engine's validation RMSE
  /// at the last step (for a diverged training: its non-finite training loss). Two routes to one number: 0 when both
  /// are non-finite, +∞ when only one is. Relative to the reference RMSE, or to 1e-8 of the targets' RMS when the fit
  /// is more exact than that (rounding, not a defect). An AdamW candidate that was not trained contributes 0.
  double max_route_gap = 0;
  /// The LM candidate with the lowest validation RMSE (the kept model when there are no AdamW candidates). A width
  /// sweep warm-starts the next width from it, so that its LM candidates stay exactly those of a sweep without AdamW
  /// and the AdamW candidates can only lower the error at every width. (When every LM candidate diverged, it is the
  /// kept AdamW model: a fit without AdamW would have failed there.)
  Model best_lm_model;
};

/// `small` embedded in `big` (same shapes but wider FFNs): shared entries copied, new hidden units with random
/// input weights (uniform ±scale/√fan_in, small positive biases) and zero output weights. Same function.
Model embed_in_wider(const Model& small, const Architecture& big, std::uint64_t seed, double scale);

/// Every weight of `m` drawn afresh, Glorot-style per tensor (uniform ±scale·√(3/fan_in); biases ±0.1·scale, hidden
/// biases in [0, 0.2·scale) so few ReLUs start dead), every temperature set to `temperature`: the fitter's restarts
/// and the trainer's experiments start here.
void initialise_weights(Model& m, const ParamLayout& layout, SplitMix64& rng, double scale, double temperature);

ErrorStats model_errors(const Model& m, const Dataset& data);

ModelFitResult fit_single_layer(const Architecture& arch, const Dataset& train, const Dataset& valid,
                                const ModelFitOptions& options);

}  // namespace infoflow
