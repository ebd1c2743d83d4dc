#pragma once
// Fits an FFN decoder R^E → R^out (width p, ReLU) to (state, targets) pairs by Levenberg–Marquardt with
// analytic Jacobians, restarts in parallel under OpenMP, best kept by validation RMSE (Theorem 3, docs/theory.md §5).
#include "numerics/fit/model_fitter.hpp"

#include <vector>

namespace infoflow {

struct DecoderData {
  std::vector<std::vector<double>> v;  // states
  std::vector<std::vector<double>> y;  // targets
};

struct FfnDecoder {
  int E = 1, p = 1, out = 1;
  std::vector<double> params;  // W1 (p×E), b1 (p), W2 (out×p), b2 (out)
  std::size_t size() const { return static_cast<std::size_t>(p) * (E + 1) + static_cast<std::size_t>(out) * (p + 1); }
  /// ŷ(v); with `jac` (out × size(), row-major), also ∂ŷ/∂θ.
  std::vector<double> evaluate(const double* theta, const std::vector<double>& v, double* jac) const;
};

struct DecoderFitResult {
  FfnDecoder decoder;
  ErrorStats train, valid;  // over every output coordinate
  int best_restart = -1;
};

DecoderFitResult fit_ffn_decoder(int E, int p, int out, const DecoderData& train, const DecoderData& valid,
                                 const ModelFitOptions& options);

}  // namespace infoflow
