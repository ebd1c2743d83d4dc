#pragma once
#include "theorems/suite.hpp"

#include <tuple>
#include <vector>

namespace infoflow {

struct DecodingShape {
  int T0 = 1, d = 1, E = 1;
  double ratio() const { return static_cast<double>(T0 * d) / E; }
};

struct DecodingConfig {
  std::vector<DecodingShape> packing_shapes;  // packing bound sweeps
  std::vector<double> packing_eps;
  std::vector<DecodingShape> pair_shapes;     // exact closest pairs
  std::vector<double> pair_eps;
  std::vector<int> fit_T0;                    // decoder fits, d = 1
  std::vector<int> fit_E;
  std::vector<int> widths;
  // Theorem 3's upper side: snake-lattice encoders and their decoders (snake_decoder.hpp), T0·d/E >= 2.
  struct ConstructionSweep {
    DecodingShape shape;
    std::vector<long> g;  // grid values per coordinate; eps = 1/(2g)
  };
  std::vector<ConstructionSweep> constructions;
  int train = 600, valid = 400, restarts = 2, max_iterations = 100;
};

/// Options --T0, --d, --E, --eps (each eps in (0, 1/3)); bad values exit 2 naming the option.
DecodingConfig decoding_config(const SuiteContext& ctx);
std::vector<SuiteOption> decoding_options();

}  // namespace infoflow
