#pragma once
// The paper's two experiments (docs/experiments.md), trained with the project's own trainer (numerics/train):
//   intrinsic dimension: F = Σ_{i≤D} max_{s,t} x(s)ᵀA_i x(t), x ~ N(0, I_4), two layers with heads (h1, h2);
//   triangle centre:     F = min_{t1<t2<t3} ‖x(t1)+x(t2)+x(t3)‖, x ~ N(0, 2 I_2) with ‖x‖ clamped to [0.2, 4].
// One training run is one "cell": a target, a sequence length T, an architecture and a replicate seed. Its record
// holds the validation NMSE with a 95% interval, the per-sample squared errors (for paired comparisons between
// architectures trained on the same data), and the training curve.
#include "numerics/model/architecture.hpp"
#include "numerics/fit/model_fitter.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/rng.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace infoflow {

/// The intrinsic-dimension target with its D fixed matrices A_i (4×4, row-major), drawn once per D from `seed`
/// with i.i.d. N(0, 1/4) entries: the paper does not state its A_i (docs/experiments.md §1).
struct IntrinsicDimensionTarget {
  std::vector<std::array<double, 16>> A;
  static IntrinsicDimensionTarget draw(int D, std::uint64_t seed);
  double operator()(const std::vector<std::vector<double>>& X) const;
};

/// min over t1 < t2 < t3 of ‖x(t1)+x(t2)+x(t3)‖ (distinct tokens: the centre of a triangle); needs T >= 3.
double triangle_centre_target(const std::vector<std::vector<double>>& X);

/// The triangle centre's negative control: min over s < t of ‖x(s)+x(t)‖, an order-2 comparison that the planner
/// gives a bounded-cost plan (docs/experiments.md §5). Needs T >= 2.
double pair_sum_target(const std::vector<std::vector<double>>& X);

/// The training recipe shared by every cell: AdamW, a cosine schedule and weight decay as in the paper, the rest the
/// project's own choices (docs/experiments.md §2 lists where it differs from the paper).
struct ExperimentTraining {
  int train_samples = 2000;
  int valid_samples = 1000;
  int steps = 1500;
  int batch = 64;
  double learning_rate = 3e-3;
  double weight_decay = 1e-2;
  int curve_points = 15;  // validation evaluations along the run (the training curve)
  int warmup_steps = 0;   // linear warm-up before the cosine (TrainOptions::warmup_steps)
  /// Fresh samples at every step instead of the fixed training set (which then only standardises the targets and
  /// fits the baselines): a model never sees a sample twice.
  bool fresh_samples = false;
  /// A curriculum in T (with fresh samples): the steps are cut into equal stages, one per listed length below the
  /// cell's T, in the order listed, then a last one at the cell's T. The models have no positions, so their weights
  /// do not depend on T.
  std::vector<int> curriculum_T;
  bool log_temperatures = false;  // TrainOptions::log_temperatures
  double gradient_clip = 0.0;     // TrainOptions::gradient_clip (0: off)
  /// Trainings per cell from different initialisations; the one with the lowest NMSE on a separate selection set
  /// (never the validation set) is the cell's model.
  int restarts = 1;
  int selection_samples = 1000;  // drawn only when restarts > 1
  nlohmann::json to_json() const;
};

/// PairControl is the triangle centre's control (pair_sum_target on the triangle's inputs and architectures).
enum class ExperimentKind { IntrinsicDimension, TriangleCentre, PairControl };

/// What a cell evaluates: a trained two-layer model, or one of the retrieval-free baselines fitted to the same data
/// (docs/experiments.md §5.1): the constant predictor (the training mean) and ridge regression on the tokens'
/// coordinates sorted across the sequence (a permutation-invariant linear model).
enum class Predictor { Trained, Constant, SortedRidge };

struct ExperimentCell {
  ExperimentKind kind = ExperimentKind::IntrinsicDimension;
  int D = 0;   // intrinsic dimension: the architectures' D (0 for the triangle centre and its control)
  int T = 0;
  int h1 = 1, h2 = 1, E = 8;
  int replicate = 0;  // seed index: cells of one (kind, D, families, T, replicate) share their data
  /// Intrinsic dimension: the number of families in the target; 0 means D. The control has D − 1: the same
  /// architectures on a target they all have enough heads for.
  int families = 0;
  int target_families() const { return families == 0 ? D : families; }
  /// Intrinsic dimension: the token FFN's units per family (16m; the construction's squares get 2m units each).
  int ffn_per_family = 16;
  /// Intrinsic dimension: the token FFN's units, ReLU (the default, and the construction's) or GeLU.
  Activation ffn_activation = Activation::Relu;
  /// Triangle centre and its control: the units of a ReLU FFN readout (0: the affine readout, the default).
  int readout_width = 0;
  Predictor predictor = Predictor::Trained;  // a baseline ignores the architecture (h1, h2, E, ffn_per_family)
  /// Intrinsic dimension, (D,D) only: start the training from the explicit construction (intrinsic_construction.hpp)
  /// with a small perturbation instead of a random initialisation. A separate arm, never in the paper comparison.
  bool from_construction = false;
  std::string key() const;
  /// "(2,2)" for the intrinsic dimension, "(2,2,24)" for the triangle centre ("(2,2,24,ro96)" with an FFN readout).
  std::string arch_label() const;
};

/// The two-layer model trained for a cell (docs/experiments.md §2): affine encoder, layer 1 with h1 heads and a
/// token FFN, layer 2 with h2 heads, affine readout; no positions (both targets are permutation invariant).
Architecture experiment_architecture(const ExperimentCell& c);

struct CellResult {
  double nmse = 0, nmse_lo = 0, nmse_hi = 0;  // validation MSE / validation variance, with its 95% interval
  double valid_variance = 0;
  std::size_t parameters = 0;                  // M_total
  std::vector<double> sq_err;                  // per validation sample, in the standardised target's units
  std::vector<std::pair<int, double>> curve;   // (step, validation NMSE)
  bool diverged = false;                       // training stopped on a non-finite loss: no figures, no verdict
  int restart = 0;                             // the restart the selection set chose (0 with one restart)
  double start_nmse = -1;                      // the chosen restart's validation NMSE before training (-1: not kept)
  int restarts = 1;                            // trainings from which it was chosen
};
void to_json(nlohmann::json& j, const CellResult& r);
void from_json(const nlohmann::json& j, CellResult& r);

/// One sequence of T tokens from the kind's input distribution (docs/experiments.md §1).
std::vector<std::vector<double>> draw_experiment_sequence(ExperimentKind kind, int T, SplitMix64& rng);

/// The mean of a non-empty sample, and its variance with divisor n (the experiments' NMSE divides by it).
double mean_of(const std::vector<double>& v);
double population_variance(const std::vector<double>& v);

/// A result's figures from its per-sample squared errors: NMSE = mean / `valid_variance` with a 95% interval.
/// ContractError for fewer than two samples or a variance that is not positive; NumericError for a non-finite NMSE.
CellResult score_squared_errors(std::vector<double> sq_err, double valid_variance);

/// The sorted-feature ridge baseline (docs/experiments.md §5.1): fitted on `train`, its predictions on `valid`.
std::vector<double> sorted_ridge_predictions(const Dataset& train, const Dataset& valid);

/// A cell's data: the training, validation and (with restarts) selection sets, targets standardised by the training
/// set's mean and standard deviation. They depend on the kind, D, T and replicate only: every architecture of a
/// comparison sees the same samples. ContractError when the training targets are constant.
struct CellData {
  Dataset train, valid;
  Dataset selection;  // chooses among restarts; empty with one restart
  double mean = 0, sd = 1;  // of the raw training targets: the standardisation every set went through
};
CellData draw_cell_data(const ExperimentCell& c, const ExperimentTraining& training, std::uint64_t suite_seed);

/// The random initialisation of restart `restart` of a trained cell (what run_experiment_cell starts from).
Model random_cell_start(const ExperimentCell& c, std::uint64_t suite_seed, int restart);
/// The trainer's options for restart `restart` of a trained cell (one thread; its own minibatch-order seed).
TrainOptions experiment_train_options(const ExperimentCell& c, const ExperimentTraining& training, std::uint64_t suite_seed,
                                      int restart);

/// Draws the cell's data (shared by every architecture of the same kind, D, T and replicate), trains the cell's
/// model from a seeded initialisation and evaluates it on held-out data. Single-threaded (cells run in parallel).
CellResult run_experiment_cell(const ExperimentCell& c, const ExperimentTraining& training, std::uint64_t suite_seed);

/// The lengths of a cell's curriculum stages, in order: training.curriculum_T's lengths below the cell's T, then T.
std::vector<int> curriculum_stage_lengths(const ExperimentCell& c, const ExperimentTraining& training);

/// The fresh samples of a cell trained with ExperimentTraining::fresh_samples: sequences from the cell's input
/// distribution with targets standardised by the cell's training `mean` and `sd`. With a curriculum the steps are cut
/// into equal stages, one per length of training.curriculum_T below the cell's T, then one at the cell's T: the
/// minibatches of a stage have its length. ContractError unless sd > 0 and training.steps >= 1.
SampleDrawer experiment_sample_drawer(const ExperimentCell& c, const ExperimentTraining& training, double mean, double sd,
                                      std::uint64_t suite_seed);

/// The two-sided 95% quantile of the standard normal, for every interval of the experiments.
inline constexpr double kNormal95 = 1.959963984540054;

/// A 95% interval for the mean of paired differences b_n − a_n (normal approximation); ContractError if the sizes
/// differ or are < 2.
std::pair<double, double> paired_difference_interval(const std::vector<double>& a, const std::vector<double>& b);

// ---- The suite's configuration and checks (experiments_suite.cpp) ----

/// The state dimension of the intrinsic-dimension models: the framework suite's 24 (the paper does not state one), or
/// more when (D,D)'s construction needs it: a token state holds its own token, D retrieved ones and D partial maxima,
/// 5D + 4 numbers (intrinsic_construction.hpp).
inline int intrinsic_dimension_E(int D) { return std::max(24, 5 * D + 4); }

struct ExperimentsConfig {
  /// Train each experiment's negative control beside it (docs/experiments.md §5): the D − 1 family target on the
  /// intrinsic-dimension architectures, the pair target on the triangle architectures.
  bool controls = true;
  std::vector<int> D;
  int id_T = 16;
  int id_ffn_per_family = 16;             // the trained intrinsic-dimension models' token-FFN units per family
  Activation id_ffn_activation = Activation::Relu;  // and their units (--gelu)
  /// FFN units per family (16m) at which the (D,D) construction's error is sampled (intrinsic_construction.hpp).
  std::vector<int> construction_widths;
  int construction_tuning_samples = 300;  // for the knots' range
  int construction_samples = 1000;        // for the NMSE
  /// Train the (D,D) cells a second time from the construction (ExperimentCell::from_construction).
  bool construction_arm = true;
  /// Fit the retrieval-free baselines (constant, sorted-feature ridge) to every data cell (docs/experiments.md §5.1).
  bool baselines = true;
  int seeds = 3;  // replicate seeds per intrinsic-dimension cell
  std::vector<int> triangle_T;
  std::vector<std::array<int, 3>> triangle_archs;  // (h1, h2, E)
  int triangle_seeds = 1;
  int triangle_readout_width = 0;  // the trained triangle and pair models' readout FFN units (0: affine; --triangle-readout-width)
  ExperimentTraining id_training, triangle_training;
};

struct SuiteContext;
struct SuiteOption;
struct Check;
/// Throws InputError naming the option (--D, --id-T, --triangle-T, --seeds, --steps, --train-samples).
ExperimentsConfig experiments_config(const SuiteContext& ctx);
std::vector<SuiteOption> experiments_options();
/// The intrinsic-dimension cell of one table column: 0 = (D,D), 1 = (D−1,D), 2 = (D,D−1); `control` trains the
/// same architecture on the target with D − 1 families.
ExperimentCell intrinsic_dimension_cell(const ExperimentsConfig& c, int D, int column, int replicate, bool control = false);
/// The trained triangle-centre cell (or, with ExperimentKind::PairControl, its control) of architecture (h1, h2, E) =
/// `arch` at length T, with the configuration's readout.
ExperimentCell triangle_cell(const ExperimentsConfig& c, ExperimentKind kind, int T, const std::array<int, 3>& arch,
                             int replicate);
/// Every cell the configuration trains: per D and seed the three architectures (D,D), (D−1,D), (D,D−1) in that
/// order, then per triangle architecture, T and seed.
std::vector<ExperimentCell> experiment_cells(const ExperimentsConfig& c);

/// One replicate seed of one D: the three architectures' results, (D,D) first, then (D−1,D), (D,D−1).
struct IdReplicate {
  int replicate = 0;
  std::array<CellResult, 3> cell;
  /// The sorted-feature ridge baseline on the same data, when fitted: a pass then also needs (D,D) below it.
  std::optional<CellResult> ridge = std::nullopt;
};
/// Pass when (D,D) is better than both others on every seed (paired 95% intervals, >= 3 seeds), and better than the
/// ridge baseline where one was fitted; fail when one other is better on every seed; inconclusive otherwise, and
/// whenever a model does not beat the constant predictor.
Check intrinsic_dimension_check(int D, const std::vector<IdReplicate>& reps);

/// The same check with its control (docs/experiments.md §5): a pass also needs the effect as a ratio,
/// NMSE(other)/NMSE(D,D), above the same ratio on the control target (D − 1 families, the same architectures), for both
/// others: a Student-t 95% interval over at least kSeedsForSupport paired seeds of the log-ratio difference above 0;
/// and T = kPaperIntrinsicT. Otherwise a pass becomes inconclusive. `control_reps` are the control's cells, seed by seed.
Check intrinsic_dimension_check(int D, const std::vector<IdReplicate>& reps, const std::vector<IdReplicate>& control_reps,
                                int T);
/// The paper's intrinsic-dimension table is at T = 64: the check decides it there only.
inline constexpr int kPaperIntrinsicT = 64;
/// Seeds a fitted claim needs before it can be supported (a paired interval over seeds).
inline constexpr std::size_t kSeedsForSupport = 5;

/// One triangle architecture: its cells' results by T (ascending), each a list over replicate seeds.
struct TriangleSeries {
  std::array<int, 3> arch{};
  int readout_width = 0;  // the cells' readout FFN units (0: affine), named in the check's id
  std::vector<int> T;
  std::vector<std::vector<CellResult>> by_T;
};
/// Pass when the NMSE at the largest T is above the smallest T's and no step between consecutive T falls (95%
/// intervals over the pooled seeds); fail when the largest T's is below the smallest's, or a step falls;
/// inconclusive otherwise, and whenever the smallest T's NMSE is not below 1 (the models learnt nothing).
Check triangle_centre_check(const TriangleSeries& s);

/// The same check decided against a control (docs/experiments.md §5): besides the rise, the target's NMSE at the
/// largest T must exceed the control's (a bounded-plan target trained alike) by a 95% interval. Pass: the rise and
/// the separation both hold; fail: the NMSE falls with T, or the target is not harder than the control (the
/// difference's interval at or below 0); inconclusive otherwise. Run on the control itself (the same cells on both
/// sides, a difference of exactly 0), it fails: the control shows no effect beyond itself.
Check triangle_centre_check(const TriangleSeries& s, const TriangleSeries& control);

}  // namespace infoflow
