#pragma once
// Value and gradient of a single-layer model's output with respect to every parameter, by one
// reverse sweep (hand-written: autodiff Jacobians dominate Ceres' time on these models, see
// TOOLCHAIN.md). The gradient with respect to the temperatures is optional: with unbounded weights they are
// redundant with the scale of Q, but in a fit with every weight in [−1, 1] they are the only free scale.
#include "numerics/model/model.hpp"

#include <vector>

namespace infoflow {

class SingleLayerGradient {
 public:
  /// Throws InputError unless `layout` describes a model with exactly one layer.
  explicit SingleLayerGradient(const ParamLayout& layout);

  /// Returns ŷ(X); when `grad` is non-null, writes dŷ/dθ into grad[0 .. layout.size()), and when
  /// `temperature_grad` is non-null, dŷ/dβ into temperature_grad[0 .. layout.temperature_count()).
  double evaluate(const double* params, const double* temperatures, const std::vector<std::vector<double>>& X,
                  double* grad, double* temperature_grad = nullptr) const;


 private:
  const ParamLayout& L_;
};

}  // namespace infoflow
