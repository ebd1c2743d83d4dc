#pragma once
// One least-squares residual ŷ(X) − y of a single-layer model, with the analytic gradient as its
// Jacobian row: the cost function the fitter hands to Ceres (and the one the gradient test checks).
#include "numerics/fit/single_layer_gradient.hpp"

#include <ceres/ceres.h>

#include <cmath>

namespace infoflow {

class SingleLayerResidual : public ceres::CostFunction {
 public:
  SingleLayerResidual(const SingleLayerGradient& g, const std::vector<double>& temperatures,
                      const std::vector<std::vector<double>>& X, double y, int n_params)
      : g_(g), temps_(temperatures), X_(X), y_(y) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(n_params);
  }
  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    const double yhat = g_.evaluate(parameters[0], temps_, X_, jacobians ? jacobians[0] : nullptr);
    residuals[0] = yhat - y_;
    return std::isfinite(residuals[0]);
  }

 private:
  const SingleLayerGradient& g_;
  const std::vector<double>& temps_;
  const std::vector<std::vector<double>>& X_;
  double y_;
};

}  // namespace infoflow
