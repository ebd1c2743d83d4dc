#include "theorems/infoflow/paper_experiments.hpp"

#include "numerics/model/forward.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
  return {{"train", train_samples}, {"valid", valid_samples}, {"steps", steps}, {"batch", batch},
          {"lr", learning_rate},    {"wd", weight_decay},     {"curve", curve_points}};
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
}  // namespace

std::string ExperimentCell::key() const {
  const std::string what = target_label(*this);
  return what + "-T" + std::to_string(T) + "-h" + std::to_string(h1) + "," + std::to_string(h2) + "-E" +
         std::to_string(E) + "-r" + std::to_string(replicate);
}

std::string ExperimentCell::arch_label() const {
  std::string s = "(" + std::to_string(h1) + "," + std::to_string(h2);
  if (kind != ExperimentKind::IntrinsicDimension) s += "," + std::to_string(E);
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
  // x(t)ᵀA_i x(s) needs rank 4) and the FFN (width 16 per family) forms the partial max_s x(s)ᵀA_i x(t); a layer-2
  // head retrieves one number.
  // Triangle centre: the usual split of the state among the heads (head dimension E / h, at least 1).
  const HeadShape first = id ? HeadShape{4, 4} : HeadShape{std::max(1, c.E / c.h1), std::max(1, c.E / c.h1)};
  const HeadShape second = id ? HeadShape{2, 2} : HeadShape{std::max(1, c.E / c.h2), std::max(1, c.E / c.h2)};
  a.layers = {LayerShape{std::vector<HeadShape>(c.h1, first), id ? 16 * std::max(1, c.D) : c.E},
              LayerShape{std::vector<HeadShape>(c.h2, second), 0}};
  a.readout = MapShape{MapKind::Affine, c.E, 1, 0};
  a.validate();
  return a;
}

void to_json(nlohmann::json& j, const CellResult& r) {
  j = {{"nmse", r.nmse},   {"nmse_lo", r.nmse_lo}, {"nmse_hi", r.nmse_hi}, {"valid_variance", r.valid_variance},
       {"parameters", r.parameters}, {"sq_err", r.sq_err}, {"curve", r.curve}, {"diverged", r.diverged}};
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
}

namespace {

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

// Mean and the half-width of its 95% normal interval.
std::pair<double, double> mean_and_half_width(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  const double mean = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, kNormal95 * std::sqrt(ss / (n - 1.0) / n)};
}

// One sequence of the cell's input distribution.
std::vector<std::vector<double>> draw_sequence(ExperimentKind kind, int T, SplitMix64& rng) {
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

struct CellData {
  Dataset train, valid;
};

// The data depend on the kind, D, T and replicate only: every architecture of a comparison sees the same samples.
// Targets are standardised with the training set's mean and standard deviation (NMSE does not change under it).
CellData draw_cell_data(const ExperimentCell& c, const ExperimentTraining& tr, std::uint64_t suite_seed) {
  SplitMix64 rng(derive_seed(suite_seed, target_label(c) + "-T" + std::to_string(c.T) + "-r" + std::to_string(c.replicate)));
  const IntrinsicDimensionTarget id_target = c.kind == ExperimentKind::IntrinsicDimension
                                                 ? IntrinsicDimensionTarget::draw(c.target_families(), suite_seed)
                                                 : IntrinsicDimensionTarget{};
  CellData data;
  for (Dataset* ds : {&data.train, &data.valid}) {
    const int n = ds == &data.train ? tr.train_samples : tr.valid_samples;
    for (int i = 0; i < n; ++i) {
      auto X = draw_sequence(c.kind, c.T, rng);
      const double y = c.kind == ExperimentKind::IntrinsicDimension ? id_target(X)
                       : c.kind == ExperimentKind::TriangleCentre   ? triangle_centre_target(X)
                                                                    : pair_sum_target(X);
      ds->add(std::move(X), y);
    }
  }
  const double mean = mean_of(data.train.y);
  const double sd = std::sqrt(population_variance(data.train.y));
  if (!(sd > 0)) throw ContractError("draw_cell_data", "the training targets of " + c.key() + " are constant");
  for (Dataset* ds : {&data.train, &data.valid})
    for (double& y : ds->y) y = (y - mean) / sd;
  return data;
}

}  // namespace

std::pair<double, double> paired_difference_interval(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) throw ContractError("paired_difference_interval", "two samples of one size >= 2");
  std::vector<double> diff(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) diff[i] = b[i] - a[i];
  const auto [mean, half] = mean_and_half_width(diff);
  return {mean - half, mean + half};
}

CellResult run_experiment_cell(const ExperimentCell& c, const ExperimentTraining& tr, std::uint64_t suite_seed) {
  const CellData data = draw_cell_data(c, tr, suite_seed);
  const Architecture arch = experiment_architecture(c);
  Model start = make_model<double>(arch);
  SplitMix64 init_rng(derive_seed(suite_seed, "init-" + c.key()));
  initialise_weights(start, ParamLayout(arch), init_rng, 1.0, 1.0);

  TrainOptions o;
  o.steps = tr.steps;
  o.batch = tr.batch;
  o.learning_rate = tr.learning_rate;
  o.weight_decay = tr.weight_decay;
  o.free_temperatures = true;
  o.eval_every = std::max(1, tr.steps / std::max(1, tr.curve_points));
  o.seed = derive_seed(suite_seed, "train-" + c.key());
  o.threads = 1;
  CellResult r;
  r.valid_variance = population_variance(data.valid.y);
  if (!(r.valid_variance > 0)) throw ContractError("run_experiment_cell", "constant validation targets in " + c.key());
  r.parameters = parameter_counts(start).total;
  TrainResult trained;
  try {
    trained = train_model(start, data.train, data.valid, o);
  } catch (const NumericError&) {
    // A learning rate the user chose can make the loss overflow: that cell has no figures, and decides nothing.
    r.diverged = true;
    return r;
  }
  const ParamLayout layout(arch);
  r.sq_err.reserve(data.valid.y.size());
  for (std::size_t i = 0; i < data.valid.y.size(); ++i) {
    const double e = forward(trained.model, layout, data.valid.X[i]).y - data.valid.y[i];
    r.sq_err.push_back(e * e);
  }
  const auto [mse, half] = mean_and_half_width(r.sq_err);
  r.nmse = mse / r.valid_variance;
  r.nmse_lo = std::max(0.0, mse - half) / r.valid_variance;
  r.nmse_hi = (mse + half) / r.valid_variance;
  if (!std::isfinite(r.nmse)) throw NumericError("run_experiment_cell: non-finite validation NMSE in " + c.key());
  // The trainer evaluates at every eval_every steps and at the end; when the last step is a multiple of eval_every,
  // the final evaluation repeats the last one.
  for (const auto& [step, rmse] : trained.curve)
    if (r.curve.empty() || r.curve.back().first != step) r.curve.emplace_back(step, rmse * rmse / r.valid_variance);
  return r;
}

}  // namespace infoflow
