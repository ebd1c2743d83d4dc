#include "numerics/model/sampled_error.hpp"

#include "numerics/util/errors.hpp"

#include <cmath>

namespace infoflow {

std::string sequence_to_string(const Sequence<mpfr::mpreal>& X) {
  std::string s = "[";
  for (std::size_t t = 0; t < X.size(); ++t) {
    s += t ? ", [" : "[";
    for (std::size_t i = 0; i < X[t].size(); ++i)
      s += (i ? ", \"" : "\"") + X[t][i].toString(static_cast<int>(X[t][i].get_prec() * 0.30103) + 2) + "\"";
    s += "]";
  }
  return s + "]";
}

SampledError sampled_error(const ModelT<mpfr::mpreal>& model, const Target& F,
                           const std::vector<Sequence<mpfr::mpreal>>& inputs) {
  const ParamLayout layout(model.arch);
  SampledError e;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const mpfr::mpreal diff = forward(model, layout, inputs[k]).y - F(inputs[k]);
    if (!mpfr::isfinite(diff)) throw NumericError("non-finite model output on input " + sequence_to_string(inputs[k]));
    const double d = diff.toDouble();
    e.max_signed = std::max(e.max_signed, d);
    e.min_signed = std::min(e.min_signed, d);
    if (std::fabs(d) > e.max_abs || k == 0) {
      e.max_abs = std::fabs(d);
      e.worst_index = k;
      e.worst_input = sequence_to_string(inputs[k]);
    }
  }
  return e;
}

}  // namespace infoflow
