#pragma once
// First-order training of models with any number of layers (docs/training.md): minibatch AdamW with a cosine
// learning-rate schedule and an optional linear warm-up, on a fixed training set or on fresh samples drawn at every
// step; optional gradient clipping, free temperatures (stepped as they are or in log space) and projection of every
// weight to [−b, b] after each step (the class fits of docs/certify.md §6). Gradients come from BatchedSingleLayer (one
// layer) or BatchedModel (more); a minibatch is cut into fixed chunks of samples whose gradients are summed in chunk
// order, so the result depends on the seed only, not on the thread count.
#include "numerics/fit/model_fitter.hpp"
#include "numerics/util/rng.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace infoflow {

struct TrainOptions {
  int steps = 2000;              // >= 1
  int batch = 64;                // samples per step, >= 1 (capped at the training set's size)
  double learning_rate = 1e-2;   // > 0, the peak of the cosine schedule
  int warmup_steps = 0;          // in [0, steps): the rate rises linearly to its peak over these steps, then the cosine
  double weight_decay = 0.0;     // >= 0, decoupled (AdamW); never applied to temperatures
  double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-8;
  double weight_bound = 0.0;     // > 0: every weight projected to [−b, b] after each step
  bool free_temperatures = false;
  /// With free temperatures: Adam steps log β instead of β (the gradient β·∂L/∂β), so that a temperature moves by a
  /// factor per step, not by an amount: β from 1 to 50 takes as many steps as from 0.02 to 1.
  bool log_temperatures = false;
  double gradient_clip = 0.0;    // > 0: the minibatch's mean gradient (weights and stepped temperatures) is scaled down
                                 // to this Euclidean norm when longer, before Adam
  int eval_every = 0;            // >= 0: validation RMSE recorded every k steps (0: at the end only)
  double target_valid_rmse = 0;  // > 0: stop at the first evaluation that reaches it (for time-to-target benchmarks)
  std::uint64_t seed = 1;
  int threads = 1;               // 1..256
  /// A non-finite loss stops the training. By default train_model then throws NumericError; with this set it returns
  /// instead, with TrainResult::diverged_at_step and the model whose loss was not finite.
  bool return_on_divergence = false;
  /// True when every field is in range; otherwise false, with the first violation in *why.
  bool is_valid(std::string* why) const;
};

struct TrainResult {
  Model model;
  ErrorStats train, valid;
  int steps_run = 0;
  bool reached_target = false;
  std::vector<std::pair<int, double>> curve;  // (step, validation RMSE)
  int diverged_at_step = 0;  // > 0: the step whose loss was not finite (TrainOptions::return_on_divergence)
  // Wall time of the steps and their validation evaluations: what bench/pytorch_train.py times on its side (not the
  // setup, not the final reference errors above). For benchmarks only; never in a report.
  double loop_seconds = 0;
};

/// Trains `start` on `train`, evaluating on `valid` (on `train` when `valid` is empty). Throws ContractError for
/// invalid options, InputError for ragged data.
TrainResult train_model(const Model& start, const Dataset& train, const Dataset& valid, const TrainOptions& options);

/// Fresh training samples: appends `count` samples to `out`, drawn with `rng`, for the minibatch of `step` (1-based;
/// the sequence length may change with the step, a curriculum in T, for models without positions). Called from
/// several threads at once, each with its own `rng` and `out`: it must not write shared state.
using SampleDrawer = std::function<void(int step, SplitMix64& rng, int count, Dataset& out)>;

/// Trains `start` on fresh samples: every step's minibatch of `options.batch` samples is drawn anew by `draw` (no
/// sample is seen twice), chunk by chunk, each chunk with its own generator seeded from (seed, step, chunk), so the
/// result depends on the seed only. Evaluates on `valid` (non-empty); TrainResult::train is measured on
/// valid.y.size() samples drawn for the last step. Throws as the other overload, and ContractError for an empty
/// `valid` or a drawer that returns another count.
TrainResult train_model(const Model& start, const SampleDrawer& draw, const Dataset& valid, const TrainOptions& options);

}  // namespace infoflow
