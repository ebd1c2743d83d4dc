#pragma once
// Theorem 3's packing bound (docs/theory.md §5). The grid of N = ⌊1/(3ε)⌋^{T0·d} configurations has targets pairwise
// ≥ 3ε apart (sup norm). N points in the unit ball of R^E with pairwise distance ≥ δ need N ≤ (1 + 2/δ)^E,
// so some pair lies within δ_N = 2/(N^{1/E} − 1); by L4 any decoder FFN with weights in [−1, 1] and sup
// error < ε has width ≥ ε/(δ_N·√E) ∝ ε^{1 − T0·d/E}. As a cost in 1/ε: slope T0·d/E − 1 on log-log axes.
#include "numerics/scalar/arb_ball.hpp"

namespace infoflow {

struct PackingBound {
  double grid_per_coordinate = 0;  // ⌊1/(3ε)⌋
  double log_N = 0;                // ln N
  ArbBall delta_N;                 // 2/(N^{1/E} − 1)
  ArbBall width;                   // ε/(δ_N √E): the certified width lower bound (take its lower end)
};

/// Throws InputError for T0 < 1, d < 1, E < 1 or ε outside (0, 1/3); needs N ≥ 2.
PackingBound packing_bound(int T0, int d, int E, double eps, long prec = 128);

/// The same quantity in plain double arithmetic (the test oracle for the arb computation).
double packing_width_double(int T0, int d, int E, double eps);

void validate_decoding_arguments(int T0, int d, int E, double eps);

}  // namespace infoflow
