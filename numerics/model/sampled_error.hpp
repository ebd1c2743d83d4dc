#pragma once
// Sampled error (docs/theory.md §1): the largest |ŷ(X) − F(X)| over given inputs, both evaluated in MPFR.
#include "numerics/model/target.hpp"

#include <string>

namespace infoflow {

struct SampledError {
  double max_abs = 0.0;
  double max_signed = -INFINITY;   // largest ŷ − F
  double min_signed = INFINITY;    // smallest ŷ − F
  std::size_t worst_index = 0;
  std::string worst_input;         // the worst input at full precision, for replay
};

SampledError sampled_error(const ModelT<mpfr::mpreal>& model, const Target& F,
                           const std::vector<Sequence<mpfr::mpreal>>& inputs);

std::string sequence_to_string(const Sequence<mpfr::mpreal>& X);

}  // namespace infoflow
