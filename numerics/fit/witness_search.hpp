#pragma once
// Searches for a witness pair of lemma L4 (docs/theory.md §2): inputs X1, X2 in [0,1]^{T·d} whose targets differ
// by at least 3ε while the model's pre-readout states are as close as possible. Random candidates
// (fresh pairs and local perturbations) seed a Ceres refinement with bounded variables; the best pair
// is returned for certification in arb (certify_witness). A search finds evidence, not an optimum.
#include "numerics/model/target.hpp"

#include <cstdint>
#include <limits>

namespace infoflow {

struct WitnessSearchOptions {
  int candidates = 2000;
  int refine = 6;           // how many of the closest candidates Ceres refines
  int max_iterations = 50;
  double margin = 0.05;     // search for gaps ≥ 3ε(1 + margin), so the pair certifies with room
  std::uint64_t seed = 1;
};

struct WitnessPair {
  bool found = false;
  std::vector<std::vector<double>> X1, X2;
  double state_distance = std::numeric_limits<double>::infinity();
  double target_gap = 0.0;
};

WitnessPair search_witness(const Model& model, const Target& F, int T, double eps, const WitnessSearchOptions& options);

}  // namespace infoflow
