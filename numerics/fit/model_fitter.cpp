#include "numerics/fit/model_fitter.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/fit/restarts.hpp"
#include "numerics/fit/single_layer_residual.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <ceres/ceres.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace infoflow {

namespace {

void clamp_weights(Model& m, double bound) {
  for (auto& w : m.params) w = std::clamp(w, -bound, bound);
}

}  // namespace

// Glorot-style scale per tensor, so wide FFNs do not start saturated; hidden biases start slightly
// positive so that few ReLUs are dead from the first step (dead units made restarts collapse to a constant).
void initialise_weights(Model& m, const ParamLayout& layout, SplitMix64& rng, double scale, double temperature) {
  for (const auto& t : layout.tensors()) {
    const bool hidden_bias = t.is_vector && t.name.size() >= 3 && t.name.compare(t.name.size() - 3, 3, ".b1") == 0;
    const double s = t.is_vector ? 0.1 * scale : scale * std::sqrt(3.0 / std::max(1, t.cols));
    for (std::size_t i = 0; i < t.size(); ++i)
      m.params[t.offset + i] = hidden_bias ? rng.uniform(0.0, 2.0 * s) : rng.uniform(-s, s);
  }
  for (auto& b : m.temperatures) b = temperature;
}

Model embed_in_wider(const Model& small, const Architecture& big, std::uint64_t seed, double scale) {
  const ParamLayout from(small.arch), to(big);
  if (from.tensors().size() != to.tensors().size())
    throw ContractError("embed_in_wider", "warm start: the narrower model's architecture does not embed in the wider one");
  Model m = make_model<double>(big);
  m.temperatures = small.temperatures;
  SplitMix64 rng(seed);
  for (std::size_t k = 0; k < to.tensors().size(); ++k) {
    const TensorSpec& a = from.tensors()[k];
    const TensorSpec& b = to.tensors()[k];
    if (a.name != b.name || a.rows > b.rows || a.cols > b.cols)
      throw ContractError("embed_in_wider", "warm start: tensor " + b.name + " of the wider model is smaller than the narrower one's");
    const bool hidden_bias = b.is_vector && b.name.size() >= 3 && b.name.compare(b.name.size() - 3, 3, ".b1") == 0;
    const bool input_weights = b.name.size() >= 3 && b.name.compare(b.name.size() - 3, 3, ".W1") == 0;
    for (int r = 0; r < b.rows; ++r)
      for (int c = 0; c < b.cols; ++c) {
        double& dst = m.params[b.index(r, c)];
        if (r < a.rows && c < a.cols) dst = small.params[a.index(r, c)];
        else if (input_weights) dst = rng.uniform(-1, 1) * scale * std::sqrt(3.0 / std::max(1, b.cols));
        else if (hidden_bias) dst = rng.uniform(0.0, 0.2 * scale);
        else dst = 0.0;  // output weights of new units (W2 columns) and nothing else: the function is unchanged
      }
  }
  return m;
}

ErrorStats model_errors(const Model& m, const Dataset& data) {
  const ParamLayout layout(m.arch);
  ErrorStats e;
  if (data.y.empty()) return e;
  double sq = 0.0;
  for (std::size_t i = 0; i < data.y.size(); ++i) {
    const double r = forward(m, layout, data.X[i]).y - data.y[i];
    if (!std::isfinite(r)) return ErrorStats{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    sq += r * r;
    e.max_abs = std::max(e.max_abs, std::fabs(r));
  }
  e.rmse = std::sqrt(sq / static_cast<double>(data.y.size()));
  return e;
}

bool ModelFitOptions::is_valid(std::string* why) const {
  const auto bad = [why](const std::string& field, double value, const char* expected) {
    *why = field + " = " + std::to_string(value) + ", expected " + expected;
    return false;
  };
  if (restarts < 1) return bad("restarts", restarts, ">= 1");
  if (max_iterations < 1) return bad("max_iterations", max_iterations, ">= 1");
  if (!(init_scale > 0 && std::isfinite(init_scale))) return bad("init_scale", init_scale, "finite and > 0");
  if (threads < 1) return bad("threads", threads, ">= 1");
  if (!(temperature > 0 && std::isfinite(temperature))) return bad("temperature", temperature, "finite and > 0");
  if (!(weight_bound >= 0 && std::isfinite(weight_bound))) return bad("weight_bound", weight_bound, "finite and >= 0 (0: unbounded)");
  if (adam_steps < 0) return bad("adam_steps", adam_steps, ">= 0");
  if (!(adam_learning_rate > 0 && std::isfinite(adam_learning_rate))) return bad("adam_learning_rate", adam_learning_rate, "finite and > 0");
  return true;
}

ModelFitResult fit_single_layer(const Architecture& arch, const Dataset& train, const Dataset& valid,
                                const ModelFitOptions& o) {
  if (std::string why; !o.is_valid(&why)) throw ContractError("fit_single_layer", "ModelFitOptions::" + why);
  if (train.y.empty()) throw ContractError("fit_single_layer", "training set: expected at least one sample");
  const ParamLayout layout(arch);
  const SingleLayerGradient grad(layout);
  const int P = static_cast<int>(layout.size());

  std::vector<Model> models(o.restarts);
  std::vector<ErrorStats> valid_err(o.restarts), train_err(o.restarts);
  std::vector<int> iterations(o.restarts, 0);
  std::vector<std::string> termination(o.restarts);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, o.threads))
  for (int r = 0; r < o.restarts; ++r) {
    SplitMix64 rng(derive_seed(o.seed, "restart-" + std::to_string(r)));
    Model m = make_model<double>(arch);
    if (r == 0 && o.warm_start) m = embed_in_wider(*o.warm_start, arch, derive_seed(o.seed, "embed"), o.init_scale);
    else initialise_weights(m, layout, rng, o.init_scale, o.temperature);
    if (o.weight_bound > 0) clamp_weights(m, o.weight_bound);  // a feasible start (warm starts included)
    if (o.adam_steps > 0) {
      TrainOptions t;
      t.steps = o.adam_steps;
      t.batch = static_cast<int>(train.y.size());
      t.learning_rate = o.adam_learning_rate;
      t.weight_bound = o.weight_bound;
      t.free_temperatures = o.free_temperatures;
      t.seed = derive_seed(o.seed, "adam-" + std::to_string(r));
      m = train_model(m, train, valid, t).model;
    }
    ceres::Problem problem;
    const int n_temperatures = static_cast<int>(m.temperatures.size());
    for (std::size_t i = 0; i < train.y.size(); ++i) {
      if (o.free_temperatures)
        problem.AddResidualBlock(new SingleLayerResidual(grad, train.X[i], train.y[i], P, n_temperatures), nullptr,
                                 m.params.data(), m.temperatures.data());
      else
        problem.AddResidualBlock(new SingleLayerResidual(grad, m.temperatures, train.X[i], train.y[i], P), nullptr,
                                 m.params.data());
    }
    if (o.weight_bound > 0 && !mutated(Mutant::ClassFitUnbounded))
      for (int k = 0; k < P; ++k) {
        problem.SetParameterLowerBound(m.params.data(), k, -o.weight_bound);
        problem.SetParameterUpperBound(m.params.data(), k, o.weight_bound);
      }
    if (o.free_temperatures)
      for (int k = 0; k < n_temperatures; ++k) problem.SetParameterLowerBound(m.temperatures.data(), k, kMinTemperature);
    const ceres::Solver::Options so = levenberg_marquardt_options(o.max_iterations);
    ceres::Solver::Summary summary;
    if (!mutated(Mutant::FitterSkipsSolve)) ceres::Solve(so, &problem, &summary);
    iterations[r] = static_cast<int>(summary.iterations.size());
    termination[r] = ceres::TerminationTypeToString(summary.termination_type);
    train_err[r] = model_errors(m, train);
    valid_err[r] = model_errors(m, valid.y.empty() ? train : valid);
    models[r] = std::move(m);
  }

  ModelFitResult out;
  for (int r = 0; r < o.restarts; ++r) out.restart_valid_rmse.push_back(valid_err[r].rmse);
  out.best_restart = best_restart(out.restart_valid_rmse, "fit");
  out.model = models[out.best_restart];
  out.train = train_err[out.best_restart];
  out.valid = valid_err[out.best_restart];
  out.iterations = iterations[out.best_restart];
  out.termination = termination[out.best_restart];
  return out;
}

}  // namespace infoflow
