#include "numerics/fit/model_fitter.hpp"

#include "numerics/fit/single_layer_residual.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <ceres/ceres.h>
#include <omp.h>

#include <cmath>
#include <limits>

namespace infoflow {

namespace {

// Glorot-style scale per tensor, so wide FFNs do not start saturated; hidden biases start slightly
// positive so that few ReLUs are dead from the first step (dead units made restarts collapse to a constant).
void initialise(Model& m, const ParamLayout& layout, SplitMix64& rng, double scale, double temperature) {
  for (const auto& t : layout.tensors()) {
    const bool hidden_bias = t.is_vector && t.name.size() >= 3 && t.name.compare(t.name.size() - 3, 3, ".b1") == 0;
    const double s = t.is_vector ? 0.1 * scale : scale * std::sqrt(3.0 / std::max(1, t.cols));
    for (std::size_t i = 0; i < t.size(); ++i)
      m.params[t.offset + i] = hidden_bias ? rng.uniform(0.0, 2.0 * s) : rng.uniform(-s, s);
  }
  for (auto& b : m.temperatures) b = temperature;
}

}  // namespace

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

ModelFitResult fit_single_layer(const Architecture& arch, const Dataset& train, const Dataset& valid,
                                const ModelFitOptions& o) {
  if (train.y.empty()) throw InputError("training set", "expected at least one sample");
  if (o.restarts < 1) throw InputError("restarts", "expected at least one restart");
  const ParamLayout layout(arch);
  const SingleLayerGradient grad(layout);
  const int P = static_cast<int>(layout.size());

  std::vector<Model> models(o.restarts);
  std::vector<ErrorStats> valid_err(o.restarts), train_err(o.restarts);
  std::vector<int> iterations(o.restarts, 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, o.threads))
  for (int r = 0; r < o.restarts; ++r) {
    SplitMix64 rng(derive_seed(o.seed, "restart-" + std::to_string(r)));
    Model m = make_model<double>(arch);
    initialise(m, layout, rng, o.init_scale, o.temperature);
    ceres::Problem problem;
    for (std::size_t i = 0; i < train.y.size(); ++i)
      problem.AddResidualBlock(new SingleLayerResidual(grad, m.temperatures, train.X[i], train.y[i], P), nullptr, m.params.data());
    ceres::Solver::Options so;
    so.minimizer_type = ceres::TRUST_REGION;
    so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
    so.linear_solver_type = ceres::DENSE_NORMAL_CHOLESKY;
    so.max_num_iterations = o.max_iterations;
    so.num_threads = 1;
    so.logging_type = ceres::SILENT;
    so.minimizer_progress_to_stdout = false;
    so.function_tolerance = 1e-12;
    so.gradient_tolerance = 1e-14;
    so.parameter_tolerance = 1e-12;
    ceres::Solver::Summary summary;
    ceres::Solve(so, &problem, &summary);
    iterations[r] = static_cast<int>(summary.iterations.size());
    train_err[r] = model_errors(m, train);
    valid_err[r] = model_errors(m, valid.y.empty() ? train : valid);
    models[r] = std::move(m);
  }

  ModelFitResult out;
  for (int r = 0; r < o.restarts; ++r) {
    out.restart_valid_rmse.push_back(valid_err[r].rmse);
    if (!std::isfinite(valid_err[r].rmse)) continue;
    if (out.best_restart < 0 || valid_err[r].rmse < valid_err[out.best_restart].rmse) out.best_restart = r;
  }
  if (out.best_restart < 0) throw NumericError("every restart of the fit diverged (non-finite validation error)");
  out.model = models[out.best_restart];
  out.train = train_err[out.best_restart];
  out.valid = valid_err[out.best_restart];
  out.iterations = iterations[out.best_restart];
  return out;
}

}  // namespace infoflow
