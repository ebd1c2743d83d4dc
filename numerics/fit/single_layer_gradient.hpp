#pragma once
// Value and gradient of a single-layer model's output with respect to every parameter, by one
// reverse sweep (hand-written: autodiff Jacobians dominate Ceres' time on these models, see
// TOOLCHAIN.md). Temperatures are held fixed: in a fit they are redundant with the scale of Q.
#include "numerics/model/model.hpp"

#include <vector>

namespace infoflow {

class SingleLayerGradient {
 public:
  /// Throws InputError unless `layout` describes a model with exactly one layer.
  explicit SingleLayerGradient(const ParamLayout& layout);

  /// Returns ŷ(X); when `grad` is non-null, writes dŷ/dθ into grad[0 .. layout.size()).
  double evaluate(const double* params, const std::vector<double>& temperatures,
                  const std::vector<std::vector<double>>& X, double* grad) const;


 private:
  const ParamLayout& L_;
};

}  // namespace infoflow
