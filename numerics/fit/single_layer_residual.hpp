#pragma once
// One least-squares residual ŷ(X) − y of a single-layer model, with the analytic gradient as its
// Jacobian row: the cost function the fitter hands to Ceres (and the one the gradient test checks).
// Parameter blocks: the weights, then (when the temperatures are free) the temperatures.
#include "numerics/fit/single_layer_gradient.hpp"

#include <ceres/ceres.h>

#include <cmath>

namespace infoflow {

class SingleLayerResidual : public ceres::CostFunction {
 public:
  /// Fixed temperatures: one parameter block (the weights), the temperatures read from `temperatures`.
  SingleLayerResidual(const SingleLayerGradient& g, const std::vector<double>& temperatures,
                      const std::vector<std::vector<double>>& X, double y, int n_params)
      : g_(g), fixed_temps_(&temperatures), X_(X), y_(y) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(n_params);
  }
  /// Free temperatures: a second parameter block of `n_temperatures`.
  SingleLayerResidual(const SingleLayerGradient& g, const std::vector<std::vector<double>>& X, double y, int n_params,
                      int n_temperatures)
      : g_(g), fixed_temps_(nullptr), X_(X), y_(y) {
    set_num_residuals(1);
    mutable_parameter_block_sizes()->push_back(n_params);
    mutable_parameter_block_sizes()->push_back(n_temperatures);
  }
  bool Evaluate(double const* const* parameters, double* residuals, double** jacobians) const override {
    const double* temps = fixed_temps_ ? fixed_temps_->data() : parameters[1];
    double* weight_jacobian = jacobians ? jacobians[0] : nullptr;
    double* temperature_jacobian = jacobians && !fixed_temps_ ? jacobians[1] : nullptr;
    const double yhat = g_.evaluate(parameters[0], temps, X_, weight_jacobian, temperature_jacobian);
    residuals[0] = yhat - y_;
    return std::isfinite(residuals[0]);
  }

 private:
  const SingleLayerGradient& g_;
  const std::vector<double>* fixed_temps_;  // null: the temperatures are parameters[1]
  const std::vector<std::vector<double>>& X_;
  double y_;
};

}  // namespace infoflow
