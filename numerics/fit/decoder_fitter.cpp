#include "numerics/fit/decoder_fitter.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/fit/restarts.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <ceres/ceres.h>

#include <cmath>
#include <limits>

namespace infoflow {

std::vector<double> FfnDecoder::evaluate(const double* th, const std::vector<double>& v, double* jac) const {
  const double* W1 = th;
  const double* b1 = W1 + p * E;
  const double* W2 = b1 + p;
  const double* b2 = W2 + out * p;
  std::vector<double> pre(p), h(p), y(out);
  for (int j = 0; j < p; ++j) {
    double s = b1[j];
    for (int e = 0; e < E; ++e) s += W1[j * E + e] * v[e];
    pre[j] = s;
    h[j] = s > 0 ? s : 0.0;
  }
  for (int o = 0; o < out; ++o) {
    double s = b2[o];
    for (int j = 0; j < p; ++j) s += W2[o * p + j] * h[j];
    y[o] = s;
  }
  if (jac) {
    const std::size_t n = size();
    std::fill(jac, jac + out * n, 0.0);
    for (int o = 0; o < out; ++o) {
      double* row = jac + o * n;
      for (int j = 0; j < p; ++j) {
        row[p * E + p + o * p + j] = h[j];  // ∂/∂W2[o][j]
        if (pre[j] <= 0) continue;
        const double g = W2[o * p + j];
        for (int e = 0; e < E; ++e) row[j * E + e] = g * v[e];  // ∂/∂W1[j][e]
        row[p * E + j] = g;                                      // ∂/∂b1[j]
      }
      row[p * E + p + out * p + o] = 1.0;  // ∂/∂b2[o]
    }
  }
  return y;
}

namespace {

class DecoderResidual : public ceres::CostFunction {
 public:
  DecoderResidual(const FfnDecoder& d, const std::vector<double>& v, const std::vector<double>& y) : d_(d), v_(v), y_(y) {
    set_num_residuals(d.out);
    mutable_parameter_block_sizes()->push_back(static_cast<int>(d.size()));
  }
  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    const auto yhat = d_.evaluate(parameters[0], v_, jacobians ? jacobians[0] : nullptr);
    for (int o = 0; o < d_.out; ++o) {
      residuals[o] = yhat[o] - y_[o];
      if (!std::isfinite(residuals[o])) return false;
    }
    return true;
  }

 private:
  const FfnDecoder& d_;
  const std::vector<double>& v_;
  const std::vector<double>& y_;
};

ErrorStats decoder_errors(const FfnDecoder& d, const DecoderData& data) {
  ErrorStats e;
  double sq = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < data.v.size(); ++i) {
    const auto y = d.evaluate(d.params.data(), data.v[i], nullptr);
    for (int o = 0; o < d.out; ++o) {
      const double r = y[o] - data.y[i][o];
      if (!std::isfinite(r)) return ErrorStats{NAN, NAN};
      sq += r * r;
      e.max_abs = std::max(e.max_abs, std::fabs(r));
      ++n;
    }
  }
  e.rmse = n ? std::sqrt(sq / static_cast<double>(n)) : 0.0;
  return e;
}

}  // namespace

DecoderFitResult fit_ffn_decoder(int E, int p, int out, const DecoderData& train, const DecoderData& valid,
                                 const ModelFitOptions& o) {
  if (train.v.empty()) throw ContractError("fit_ffn_decoder", "training set: expected at least one sample");
  std::vector<FfnDecoder> fits(o.restarts);
  std::vector<ErrorStats> tr(o.restarts), va(o.restarts);
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, o.threads))
  for (int r = 0; r < o.restarts; ++r) {
    FfnDecoder d{E, p, out, {}};
    d.params.assign(d.size(), 0.0);
    SplitMix64 rng(derive_seed(o.seed, "decoder-restart-" + std::to_string(r)));
    // Glorot-style weights, slightly positive hidden biases (as in the single-layer fitter).
    for (int i = 0; i < p * E; ++i) d.params[i] = rng.uniform(-1, 1) * o.init_scale * std::sqrt(3.0 / E);
    for (int j = 0; j < p; ++j) d.params[p * E + j] = rng.uniform(0.0, 0.2 * o.init_scale);
    for (int i = 0; i < out * p; ++i) d.params[p * E + p + i] = rng.uniform(-1, 1) * o.init_scale * std::sqrt(3.0 / p);
    ceres::Problem problem;
    for (std::size_t i = 0; i < train.v.size(); ++i)
      problem.AddResidualBlock(new DecoderResidual(d, train.v[i], train.y[i]), nullptr, d.params.data());
    const ceres::Solver::Options so = levenberg_marquardt_options(o.max_iterations);
    ceres::Solver::Summary summary;
    if (!mutated(Mutant::FitterSkipsSolve)) ceres::Solve(so, &problem, &summary);
    tr[r] = decoder_errors(d, train);
    va[r] = decoder_errors(d, valid.v.empty() ? train : valid);
    fits[r] = std::move(d);
  }
  DecoderFitResult out_fit;
  std::vector<double> rmse;
  for (const auto& e : va) rmse.push_back(e.rmse);
  out_fit.best_restart = best_restart(rmse, "decoder fit");
  out_fit.decoder = fits[out_fit.best_restart];
  out_fit.train = tr[out_fit.best_restart];
  out_fit.valid = va[out_fit.best_restart];
  return out_fit;
}

}  // namespace infoflow
