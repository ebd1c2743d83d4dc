#pragma once
// A transformer of docs/theory.md §1 with weights of scalar type S: the architecture, the flat parameter
// vector laid out by ParamLayout, one temperature per head (free, not counted as a parameter),
// and the precision every scalar created during evaluation gets.
#include "numerics/model/architecture.hpp"
#include "numerics/scalar/scalar_traits.hpp"

#include <cmath>
#include <vector>

namespace infoflow {

template <class S>
struct ModelT {
  Architecture arch;
  std::vector<S> params;
  std::vector<S> temperatures;
  Precision precision;
};

using Model = ModelT<double>;

/// A zero-initialised model of the given shape.
template <class S>
ModelT<S> make_model(const Architecture& arch, Precision p = {}) {
  ParamLayout layout(arch);
  ModelT<S> m;
  m.arch = arch;
  m.precision = p;
  m.params.assign(layout.size(), ScalarTraits<S>::from_double(0.0, p));
  m.temperatures.assign(layout.temperature_count(), ScalarTraits<S>::from_double(1.0, p));
  return m;
}

/// The same model with every weight converted to To. From double or MPFR the conversion to arb is
/// exact (zero radius): the rounded weights are the model that gets certified.
template <class To, class From>
ModelT<To> convert_model(const ModelT<From>& m, Precision p) {
  auto conv = [&](const From& v) {
    if constexpr (std::is_same_v<From, double>) return ScalarTraits<To>::from_double(v, p);
    else return ScalarTraits<To>::from_mpreal(v, p);
  };
  ModelT<To> r;
  r.arch = m.arch;
  r.precision = p;
  r.params.reserve(m.params.size());
  for (const auto& v : m.params) r.params.push_back(conv(v));
  for (const auto& v : m.temperatures) r.temperatures.push_back(conv(v));
  return r;
}

/// The parameter counts and weight size reported with every model (docs/theory.md §1).
struct ParameterCounts {
  std::size_t ffn = 0;    // M_ffn
  std::size_t total = 0;  // M_total
  double max_abs_weight = 0.0;
  double max_temperature = 0.0;
};

template <class S>
ParameterCounts parameter_counts(const ModelT<S>& m) {
  ParamLayout layout(m.arch);
  ParameterCounts c;
  c.ffn = layout.ffn_parameter_count();
  c.total = layout.total_parameter_count();
  for (const auto& v : m.params) c.max_abs_weight = std::max(c.max_abs_weight, std::fabs(ScalarTraits<S>::to_double(v)));
  for (const auto& v : m.temperatures) c.max_temperature = std::max(c.max_temperature, ScalarTraits<S>::to_double(v));
  return c;
}

}  // namespace infoflow
