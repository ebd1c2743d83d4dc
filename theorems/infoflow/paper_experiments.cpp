#include "theorems/infoflow/paper_experiments.hpp"

#include "theorems/infoflow/intrinsic_construction.hpp"

#include "numerics/model/forward.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace infoflow {

IntrinsicDimensionTarget IntrinsicDimensionTarget::draw(int D, std::uint64_t seed) {
  if (D < 1) throw ContractError("IntrinsicDimensionTarget::draw", "D >= 1");
  SplitMix64 rng(derive_seed(seed, "intrinsic-dimension-A-D" + std::to_string(D)));
  IntrinsicDimensionTarget t;
  t.A.resize(D);
  for (auto& a : t.A)
    for (double& v : a) v = 0.5 * rng.normal();
  return t;
}

double IntrinsicDimensionTarget::operator()(const std::vector<std::vector<double>>& X) const {
  // y(s) = A_i x(t) for every t first, then each pair is one 4-term dot product: O(T² D) per sequence.
  double total = 0.0;
  std::vector<std::array<double, 4>> Ax(X.size());
  for (const auto& a : A) {
    for (std::size_t t = 0; t < X.size(); ++t)
      for (int r = 0; r < 4; ++r)
        Ax[t][r] = a[4 * r] * X[t][0] + a[4 * r + 1] * X[t][1] + a[4 * r + 2] * X[t][2] + a[4 * r + 3] * X[t][3];
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& xs : X)
      for (const auto& ax : Ax) best = std::max(best, xs[0] * ax[0] + xs[1] * ax[1] + xs[2] * ax[2] + xs[3] * ax[3]);
    total += best;
  }
  return total;
}

double triangle_centre_target(const std::vector<std::vector<double>>& X) {
  const std::size_t T = X.size();
  if (T < 3) throw ContractError("triangle_centre_target", "T >= 3");
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < T; ++a)
    for (std::size_t b = a + 1; b < T; ++b) {
      const double u0 = X[a][0] + X[b][0], u1 = X[a][1] + X[b][1];
      for (std::size_t c = b + 1; c < T; ++c) {
        const double v0 = u0 + X[c][0], v1 = u1 + X[c][1];
        best = std::min(best, v0 * v0 + v1 * v1);
      }
    }
  return std::sqrt(best);
}

double pair_sum_target(const std::vector<std::vector<double>>& X) {
  const std::size_t T = X.size();
  if (T < 2) throw ContractError("pair_sum_target", "T >= 2");
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < T; ++a)
    for (std::size_t b = a + 1; b < T; ++b) {
      const double u0 = X[a][0] + X[b][0], u1 = X[a][1] + X[b][1];
      best = std::min(best, u0 * u0 + u1 * u1);
    }
  return std::sqrt(best);
}

nlohmann::json ExperimentTraining::to_json() const {
  nlohmann::json j{{"train", train_samples}, {"valid", valid_samples}, {"steps", steps}, {"batch", batch},
          {"lr", learning_rate},    {"wd", weight_decay},     {"curve", curve_points}};
  // The schedule's and the selection's settings are named only when used, so that a run without them keeps its
  // settings (and its checkpoint's version) unchanged.
  if (warmup_steps > 0) j["warmup"] = warmup_steps;
  if (fresh_samples) j["fresh"] = true;
  if (!curriculum_T.empty()) j["curriculum_T"] = curriculum_T;
  if (log_temperatures) j["log_temperatures"] = true;
  if (gradient_clip > 0) j["gradient_clip"] = gradient_clip;
  if (restarts > 1) j["restarts"] = restarts, j["selection"] = selection_samples;
  return j;
}

namespace {
// The part of a cell's key (and data seed) that names its target.
std::string target_label(const ExperimentCell& c) {
  switch (c.kind) {
    case ExperimentKind::IntrinsicDimension:
      return "id-D" + std::to_string(c.D) + (c.target_families() != c.D ? "-F" + std::to_string(c.target_families()) : "");
    case ExperimentKind::TriangleCentre: return "tri";
    default: return "pair";
  }
}

// Restart k of a cell seeds its initialisation and minibatch order from this (restart 0 keeps the single run's seeds).
// The units are left out: a GeLU cell has the ReLU cell's shapes, so it starts from the same weights and sees the same
// minibatches, and the two compare paired (its key, and so its checkpoint, still names the units).
std::string restart_tag(ExperimentCell c, int restart) {
  c.ffn_activation = Activation::Relu;
  return c.key() + (restart == 0 ? "" : "-restart" + std::to_string(restart));
}

// The generator of a restart's initial weights, random or the construction's perturbation.
SplitMix64 init_generator(const ExperimentCell& c, std::uint64_t suite_seed, int restart) {
  return SplitMix64(derive_seed(suite_seed, "init-" + restart_tag(c, restart)));
}
}  // namespace

std::string ExperimentCell::key() const {
  const std::string what = target_label(*this);
  if (predictor != Predictor::Trained)
    return (predictor == Predictor::Constant ? "constant-" : "ridge-") + what + "-T" + std::to_string(T) + "-r" +
           std::to_string(replicate);
  // The trainer's FFN width (16 per family) is the key's default; another width is named.
  // ReLU units are the default too; GeLU is named.
  const std::string width = kind == ExperimentKind::IntrinsicDimension && ffn_per_family != 16
                                ? "-w" + std::to_string(ffn_per_family) : "";
  const std::string units = ffn_activation == Activation::Gelu ? "-gelu" : "";
  // The affine readout is the default; an FFN readout is named by its units.
  const std::string readout = readout_width > 0 ? "-ro" + std::to_string(readout_width) : "";
  return what + width + units + readout + (from_construction ? "-from-construction" : "") + "-T" + std::to_string(T) + "-h" + std::to_string(h1) + "," + std::to_string(h2) + "-E" +
         std::to_string(E) + "-r" + std::to_string(replicate);
}

std::string ExperimentCell::arch_label() const {
  std::string s = "(" + std::to_string(h1) + "," + std::to_string(h2);
  if (kind != ExperimentKind::IntrinsicDimension) s += "," + std::to_string(E);
  if (readout_width > 0) s += ",ro" + std::to_string(readout_width);
  return s + ")";
}

Architecture experiment_architecture(const ExperimentCell& c) {
  if (c.h1 < 1 || c.h2 < 1 || c.E < 1) throw ContractError("experiment_architecture", "h1, h2, E >= 1");
  Architecture a;
  const bool id = c.kind == ExperimentKind::IntrinsicDimension;
  a.d = id ? 4 : 2;
  a.E = c.E;
  a.positions = 0;
  a.encoder = MapShape{MapKind::Affine, a.d, c.E, 0};
  // Intrinsic dimension: a layer-1 head retrieves a whole token (keys and values of dimension 4, the bilinear score
  // x(t)ᵀA_i x(s) needs rank 4) and the FFN (ffn_per_family units per family) forms the partial max_s x(s)ᵀA_i x(t); a layer-2
  // head retrieves one number.
  // Triangle centre: the usual split of the state among the heads (head dimension E / h, at least 1).
  const HeadShape first = id ? HeadShape{4, 4} : HeadShape{std::max(1, c.E / c.h1), std::max(1, c.E / c.h1)};
  const HeadShape second = id ? HeadShape{2, 2} : HeadShape{std::max(1, c.E / c.h2), std::max(1, c.E / c.h2)};
  if (id && c.ffn_per_family < 1) throw ContractError("experiment_architecture", "ffn_per_family >= 1");
  a.layers = {LayerShape{std::vector<HeadShape>(c.h1, first), id ? c.ffn_per_family * std::max(1, c.D) : c.E,
                         c.ffn_activation},
              LayerShape{std::vector<HeadShape>(c.h2, second), 0}};
  if (c.readout_width < 0 || (id && c.readout_width > 0))
    throw ContractError("experiment_architecture", "readout_width >= 0, and 0 for the intrinsic dimension");
  a.readout = c.readout_width > 0 ? MapShape{MapKind::Ffn, c.E, 1, c.readout_width} : MapShape{MapKind::Affine, c.E, 1, 0};
  a.validate();
  return a;
}

void to_json(nlohmann::json& j, const CellResult& r) {
  j = {{"nmse", r.nmse},   {"nmse_lo", r.nmse_lo}, {"nmse_hi", r.nmse_hi}, {"valid_variance", r.valid_variance},
       {"parameters", r.parameters}, {"sq_err", r.sq_err}, {"curve", r.curve}, {"diverged", r.diverged}};
  if (r.restarts > 1) j["restart"] = r.restart, j["restarts"] = r.restarts;
  if (r.start_nmse >= 0) j["start_nmse"] = r.start_nmse;
}
void from_json(const nlohmann::json& j, CellResult& r) {
  j.at("nmse").get_to(r.nmse);
  j.at("nmse_lo").get_to(r.nmse_lo);
  j.at("nmse_hi").get_to(r.nmse_hi);
  j.at("valid_variance").get_to(r.valid_variance);
  j.at("parameters").get_to(r.parameters);
  j.at("sq_err").get_to(r.sq_err);
  j.at("curve").get_to(r.curve);
  j.at("diverged").get_to(r.diverged);
  r.restart = j.value("restart", 0);
  r.restarts = j.value("restarts", 1);
  r.start_nmse = j.value("start_nmse", -1.0);
}

double mean_of(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  return mean / static_cast<double>(v.size());
}

double population_variance(const std::vector<double>& v) {
  const double mean = mean_of(v);
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return var / static_cast<double>(v.size());
}

namespace {

// Mean and the half-width of its 95% normal interval.
std::pair<double, double> mean_and_half_width(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  const double mean = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, kNormal95 * std::sqrt(ss / (n - 1.0) / n)};
}

}  // namespace

std::vector<std::vector<double>> draw_experiment_sequence(ExperimentKind kind, int T, SplitMix64& rng) {
  const int d = kind == ExperimentKind::IntrinsicDimension ? 4 : 2;
  std::vector<std::vector<double>> X(T, std::vector<double>(d));
  for (auto& x : X) {
    if (kind == ExperimentKind::IntrinsicDimension) {
      for (double& v : x) v = rng.normal();
      continue;
    }
    // N(0, 2 I_2), then the norm clamped to [0.2, 4] (the direction kept).
    double norm = 0;
    for (double& v : x) {
      v = std::sqrt(2.0) * rng.normal();
      norm += v * v;
    }
    norm = std::sqrt(norm);
    const double clamped = std::clamp(norm, 0.2, 4.0);
    if (norm > 0)
      for (double& v : x) v *= clamped / norm;
    else
      x = {0.2, 0.0};
  }
  return X;
}

CellResult score_squared_errors(std::vector<double> sq_err, double valid_variance) {
  if (sq_err.size() < 2 || !(valid_variance > 0))
    throw ContractError("score_squared_errors", "two or more samples and a positive variance");
  CellResult r;
  r.valid_variance = valid_variance;
  r.sq_err = std::move(sq_err);
  const auto [mse, half] = mean_and_half_width(r.sq_err);
  r.nmse = mse / valid_variance;
  r.nmse_lo = std::max(0.0, mse - half) / valid_variance;
  r.nmse_hi = (mse + half) / valid_variance;
  if (!std::isfinite(r.nmse)) throw NumericError("score_squared_errors: a non-finite NMSE");
  return r;
}

namespace {

// The cell's target: the intrinsic dimension's matrices are drawn once per family count from the suite's seed.
IntrinsicDimensionTarget cell_intrinsic_target(const ExperimentCell& c, std::uint64_t suite_seed) {
  return c.kind == ExperimentKind::IntrinsicDimension ? IntrinsicDimensionTarget::draw(c.target_families(), suite_seed)
                                                      : IntrinsicDimensionTarget{};
}

// Appends n sequences of length T from the cell's input distribution, with their raw (not standardised) targets.
void draw_cell_samples(const ExperimentCell& c, const IntrinsicDimensionTarget& id_target, int T, int n,
                       SplitMix64& rng, Dataset& ds) {
  for (int i = 0; i < n; ++i) {
    auto X = draw_experiment_sequence(c.kind, T, rng);
    const double y = c.kind == ExperimentKind::IntrinsicDimension ? id_target(X)
                     : c.kind == ExperimentKind::TriangleCentre   ? triangle_centre_target(X)
                                                                  : pair_sum_target(X);
    ds.add(std::move(X), y);
  }
}

}  // namespace

// Targets are standardised with the training set's mean and standard deviation (NMSE does not change under it).
CellData draw_cell_data(const ExperimentCell& c, const ExperimentTraining& tr, std::uint64_t suite_seed) {
  SplitMix64 rng(derive_seed(suite_seed, target_label(c) + "-T" + std::to_string(c.T) + "-r" + std::to_string(c.replicate)));
  const IntrinsicDimensionTarget id_target = cell_intrinsic_target(c, suite_seed);
  const auto draw = [&](Dataset& ds, int n, SplitMix64& from) { draw_cell_samples(c, id_target, c.T, n, from, ds); };
  CellData data;
  draw(data.train, tr.train_samples, rng);
  draw(data.valid, tr.valid_samples, rng);
  // The selection set has its own stream: the training and validation samples do not depend on the restarts.
  if (tr.restarts > 1 && c.predictor == Predictor::Trained) {
    SplitMix64 selection_rng(derive_seed(suite_seed, target_label(c) + "-T" + std::to_string(c.T) + "-r" +
                                                         std::to_string(c.replicate) + "-selection"));
    draw(data.selection, tr.selection_samples, selection_rng);
  }
  const double mean = mean_of(data.train.y);
  const double sd = std::sqrt(population_variance(data.train.y));
  if (!(sd > 0)) throw ContractError("draw_cell_data", "the training targets of " + c.key() + " are constant");
  for (Dataset* ds : {&data.train, &data.valid, &data.selection})
    for (double& y : ds->y) y = (y - mean) / sd;
  data.mean = mean;
  data.sd = sd;
  return data;
}

std::pair<double, double> paired_difference_interval(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) throw ContractError("paired_difference_interval", "two samples of one size >= 2");
  std::vector<double> diff(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) diff[i] = b[i] - a[i];
  const auto [mean, half] = mean_and_half_width(diff);
  return {mean - half, mean + half};
}

namespace {

// Permutation-invariant features of a sequence: each coordinate's values sorted across the tokens, and the tokens'
// norms sorted, T(d + 1) numbers.
std::vector<double> sorted_features(const std::vector<std::vector<double>>& X) {
  std::vector<double> features;
  const std::size_t d = X.front().size();
  std::vector<double> column(X.size());
  for (std::size_t j = 0; j <= d; ++j) {
    for (std::size_t t = 0; t < X.size(); ++t) {
      double norm = 0;
      for (double v : X[t]) norm += v * v;
      column[t] = j < d ? X[t][j] : std::sqrt(norm);
    }
    std::sort(column.begin(), column.end());
    features.insert(features.end(), column.begin(), column.end());
  }
  return features;
}

}  // namespace

// Ridge regression of y on the standardised sorted features, with an intercept: the penalty λ·n·‖w‖² is chosen from
// 1e-4 .. 1e3 on the last fifth of the training set, then the model is refitted on all of it.
std::vector<double> sorted_ridge_predictions(const Dataset& train, const Dataset& valid) {
  if (train.X.size() < 2 || valid.X.empty() || train.X[0].empty())
    throw ContractError("sorted_ridge_predictions", "two or more training sequences and a validation set");
  const auto design = [](const Dataset& ds) {
    Eigen::MatrixXd Phi;
    for (std::size_t n = 0; n < ds.X.size(); ++n) {
      const std::vector<double> f = sorted_features(ds.X[n]);
      if (n == 0) Phi.resize(static_cast<Eigen::Index>(ds.X.size()), static_cast<Eigen::Index>(f.size()));
      Phi.row(static_cast<Eigen::Index>(n)) = Eigen::Map<const Eigen::RowVectorXd>(f.data(), static_cast<Eigen::Index>(f.size()));
    }
    return Phi;
  };
  const Eigen::MatrixXd Phi = design(train), Phi_valid = design(valid);
  const Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(train.y.data(), static_cast<Eigen::Index>(train.y.size()));
  const Eigen::RowVectorXd mean = Phi.colwise().mean();
  Eigen::RowVectorXd sd = ((Phi.rowwise() - mean).array().square().colwise().mean()).sqrt();
  sd = (sd.array() > 0).select(sd, 1.0);
  const auto standardise = [&](const Eigen::MatrixXd& M) -> Eigen::MatrixXd {
    return (M.rowwise() - mean).array().rowwise() / sd.array();
  };
  // One Gram matrix per design, then one solve per penalty: the penalty only moves the diagonal.
  struct Centred {
    Eigen::MatrixXd gram;
    Eigen::VectorXd moment;
    Eigen::RowVectorXd x_mean;
    double t_mean = 0;
    Eigen::Index rows = 0;
  };
  const auto centre = [](const Eigen::MatrixXd& X, const Eigen::VectorXd& t) {
    Centred c;
    c.t_mean = t.mean();
    c.x_mean = X.colwise().mean();
    const Eigen::MatrixXd Xc = X.rowwise() - c.x_mean;
    c.gram = Xc.transpose() * Xc;
    c.moment = Xc.transpose() * (t.array() - c.t_mean).matrix();
    c.rows = X.rows();
    return c;
  };
  const auto solve = [](const Centred& c, double lambda) {
    Eigen::MatrixXd G = c.gram;
    G.diagonal().array() += lambda * static_cast<double>(c.rows);
    const Eigen::VectorXd w = G.ldlt().solve(c.moment);
    return std::pair<Eigen::VectorXd, double>{w, c.t_mean - c.x_mean.dot(w)};
  };
  const Eigen::MatrixXd Z = standardise(Phi);
  const Eigen::Index n_fit = Z.rows() - Z.rows() / 5;
  double best_lambda = 1.0, best_error = std::numeric_limits<double>::infinity();
  if (n_fit < Z.rows()) {  // fewer than five sequences leave no held-out fifth: the penalty stays at 1
    const Centred head = centre(Z.topRows(n_fit), y.head(n_fit));
    for (double lambda = 1e-4; lambda <= 1e3 * 1.0001; lambda *= 10) {
      const auto [w, b] = solve(head, lambda);
      const double error = ((Z.bottomRows(Z.rows() - n_fit) * w).array() + b - y.tail(Z.rows() - n_fit).array()).square().sum();
      if (error < best_error) best_error = error, best_lambda = lambda;
    }
  }
  const auto [w, b] = solve(centre(Z, y), best_lambda);
  const Eigen::VectorXd predicted = (standardise(Phi_valid) * w).array() + b;
  return {predicted.data(), predicted.data() + predicted.size()};
}

namespace {

// A baseline cell: the constant predictor (0, the standardised training mean) or the sorted-feature ridge model.
CellResult run_baseline_cell(const ExperimentCell& c, const CellData& data) {
  std::vector<double> predicted(data.valid.y.size(), 0.0);
  if (c.predictor == Predictor::SortedRidge) predicted = sorted_ridge_predictions(data.train, data.valid);
  std::vector<double> sq_err;
  for (std::size_t i = 0; i < predicted.size(); ++i) sq_err.push_back((predicted[i] - data.valid.y[i]) * (predicted[i] - data.valid.y[i]));
  return score_squared_errors(std::move(sq_err), population_variance(data.valid.y));
}

// The construction arm's start (docs/experiments.md §5.3): the (D,D) construction at the cell's FFN width, its readout
// standardised like the cell's targets, its temperatures at kConstructionStartBeta (soft enough for the attention to
// pass gradients), and every weight moved by kConstructionStartNoise·N(0, 1).
constexpr double kConstructionStartBeta = 20.0, kConstructionStartNoise = 0.01, kConstructionStartRange = 7.0;

Model construction_start(const ExperimentCell& c, const CellData& data, std::uint64_t suite_seed, int restart) {
  SplitMix64 rng = init_generator(c, suite_seed, restart);
  if (c.kind != ExperimentKind::IntrinsicDimension || c.h1 != c.D || c.h2 != c.D || c.target_families() != c.D ||
      c.E != intrinsic_dimension_E(c.D) || !valid_construction_width(c.ffn_per_family) ||
      c.ffn_activation != Activation::Relu)
    throw ContractError("run_experiment_cell", "the construction arm needs a (D,D) cell on the D-family target with "
                                               "E = intrinsic_dimension_E(D) and an FFN of 16m ReLU units per family");
  IntrinsicConstructionParams p;
  p.width_per_family = c.ffn_per_family;
  p.range_multiplier = kConstructionStartRange;
  p.beta = kConstructionStartBeta;
  p.y_shift = data.mean;
  p.y_scale = data.sd;
  Model m = intrinsic_dimension_construction(IntrinsicDimensionTarget::draw(c.D, suite_seed), p);
  for (double& w : m.params) w += kConstructionStartNoise * rng.normal();
  return m;
}

}  // namespace

std::vector<int> curriculum_stage_lengths(const ExperimentCell& c, const ExperimentTraining& tr) {
  std::vector<int> stage_T;
  for (int T : tr.curriculum_T)
    if (T < c.T) stage_T.push_back(T);
  stage_T.push_back(c.T);
  return stage_T;
}

SampleDrawer experiment_sample_drawer(const ExperimentCell& c, const ExperimentTraining& tr, double mean, double sd,
                                     std::uint64_t suite_seed) {
  if (!(sd > 0) || tr.steps < 1) throw ContractError("experiment_sample_drawer", "sd > 0 and steps >= 1");
  const std::vector<int> stage_T = curriculum_stage_lengths(c, tr);
  const int steps = tr.steps;
  return [c, stage_T, steps, target = cell_intrinsic_target(c, suite_seed), mean, sd](
             int step, SplitMix64& rng, int count, Dataset& out) {
    const std::size_t stage = std::min(stage_T.size() - 1, static_cast<std::size_t>(std::max(step, 1) - 1) * stage_T.size() /
                                                               static_cast<std::size_t>(steps));
    const std::size_t first = out.y.size();
    draw_cell_samples(c, target, stage_T[stage], count, rng, out);
    for (std::size_t i = first; i < out.y.size(); ++i) out.y[i] = (out.y[i] - mean) / sd;
  };
}

TrainOptions experiment_train_options(const ExperimentCell& c, const ExperimentTraining& tr, std::uint64_t suite_seed,
                                      int restart) {
  TrainOptions o;
  o.steps = tr.steps;
  o.batch = tr.batch;
  o.learning_rate = tr.learning_rate;
  o.warmup_steps = tr.warmup_steps;
  o.weight_decay = tr.weight_decay;
  o.free_temperatures = true;
  o.log_temperatures = tr.log_temperatures;
  o.gradient_clip = tr.gradient_clip;
  o.eval_every = std::max(1, tr.steps / std::max(1, tr.curve_points));
  o.seed = derive_seed(suite_seed, "train-" + restart_tag(c, restart));
  o.threads = 1;
  return o;
}

Model random_cell_start(const ExperimentCell& c, std::uint64_t suite_seed, int restart) {
  const Architecture arch = experiment_architecture(c);
  SplitMix64 rng = init_generator(c, suite_seed, restart);
  Model start = make_model<double>(arch);
  initialise_weights(start, ParamLayout(arch), rng, 1.0, 1.0);
  return start;
}

CellResult run_experiment_cell(const ExperimentCell& c, const ExperimentTraining& tr, std::uint64_t suite_seed) {
  if (tr.restarts < 1 || (tr.restarts > 1 && tr.selection_samples < 2))
    throw ContractError("run_experiment_cell", "restarts >= 1, and two or more selection samples with several");
  const CellData data = draw_cell_data(c, tr, suite_seed);
  if (c.predictor != Predictor::Trained) return run_baseline_cell(c, data);
  const Architecture arch = experiment_architecture(c);
  const ParamLayout layout(arch);
  const double valid_variance = population_variance(data.valid.y);
  if (!(valid_variance > 0)) throw ContractError("run_experiment_cell", "constant validation targets in " + c.key());

  // Restart k starts from its own initialisation and minibatch order (restart 0 keeps the single run's seeds). A
  // diverged restart is never chosen; the cell diverged only if all did.
  std::optional<TrainResult> chosen;
  double chosen_selection_rmse = INFINITY, chosen_start_nmse = -1;
  int chosen_restart = 0;
  for (int k = 0; k < tr.restarts; ++k) {
    Model start = c.from_construction ? construction_start(c, data, suite_seed, k) : random_cell_start(c, suite_seed, k);
    const TrainOptions o = experiment_train_options(c, tr, suite_seed, k);
    TrainResult trained;
    try {
      trained = tr.fresh_samples ? train_model(start, experiment_sample_drawer(c, tr, data.mean, data.sd, suite_seed), data.valid, o)
                                 : train_model(start, data.train, data.valid, o);
    } catch (const NumericError&) {
      continue;  // a learning rate the user chose can make the loss overflow: this restart has no figures
    }
    const double selection_rmse = tr.restarts == 1 ? 0.0 : model_errors(trained.model, data.selection).rmse;
    if (!std::isfinite(selection_rmse)) continue;  // a model that is not finite on the selection set: as diverged
    if (!chosen || selection_rmse < chosen_selection_rmse) {
      chosen = std::move(trained);
      chosen_selection_rmse = selection_rmse;
      chosen_restart = k;
      // The construction arm keeps where it started, to show what the training did with it.
      if (c.from_construction) chosen_start_nmse = std::pow(model_errors(start, data.valid).rmse, 2) / valid_variance;
    }
  }
  CellResult scored;
  if (chosen) {
    std::vector<double> sq_err;
    sq_err.reserve(data.valid.y.size());
    for (std::size_t i = 0; i < data.valid.y.size(); ++i) {
      const double e = forward(chosen->model, layout, data.valid.X[i]).y - data.valid.y[i];
      sq_err.push_back(e * e);
    }
    scored = score_squared_errors(std::move(sq_err), valid_variance);
  } else {
    scored.valid_variance = valid_variance;
    scored.diverged = true;  // no figures, and no verdict rests on this cell
  }
  scored.parameters = layout.total_parameter_count();
  scored.restart = chosen_restart;
  scored.restarts = tr.restarts;
  scored.start_nmse = chosen_start_nmse;
  if (!chosen) return scored;
  // The trainer evaluates at every eval_every steps and at the end; when the last step is a multiple of eval_every,
  // the final evaluation repeats the last one.
  for (const auto& [step, rmse] : chosen->curve)
    if (scored.curve.empty() || scored.curve.back().first != step)
      scored.curve.emplace_back(step, rmse * rmse / scored.valid_variance);
  return scored;
}

}  // namespace infoflow
