#pragma once
// Input families for Theorem 1 (docs/theory.md §3, issue 3), generated in MPFR so that near-ties and worst-case
// gaps are represented exactly at the working precision.
#include "numerics/model/forward.hpp"
#include "numerics/util/rng.hpp"

#include <string>
#include <vector>

namespace infoflow {

struct InputFamily {
  std::string name;
  std::string description;
  std::vector<Sequence<mpfr::mpreal>> inputs;
};

/// Uniform tokens in [0,1]^d.
InputFamily random_cube_family(int T, int d, int count, SplitMix64& rng, long bits);
/// The minimising pair nearly tied: a small token and a copy moved by 1e-6 .. 1e-30.
InputFamily near_tie_family(int T, int d, int count, SplitMix64& rng, long bits);
/// Every coordinate 0, 1 or uniform: tokens on the cube's faces, edges and corners.
InputFamily faces_corners_family(int T, int d, int count, SplitMix64& rng, long bits);
/// L1's worst case for a model with layer-1 temperature β: along e_1, one token at a and T − 1 at 1, with
/// a(1 − a) = γ·g*(T, β) (the gap maximising the Gibbs excess) for γ spread around 1. Then both
/// layers' Gibbs excesses are near their suprema: the family meant to reach the certified bound.
InputFamily l1_worst_case_family(int T, int d, double beta, int count, long bits);

}  // namespace infoflow
