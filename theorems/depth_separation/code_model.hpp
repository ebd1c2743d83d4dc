#pragma once
// The upper side of Theorem 1's single-layer cost in readout L·R (docs/lower-bounds.md §8): an explicit model of
// C1(1, 1) — one head, value dimension 1, the class's "any encoder" — that reaches sup error ε over the whole cube
// [0,1]^{T·d} with
//
//     L·R ≤ T·d·G^{T·d},   G = ⌈d/ε⌉,   so   L·R ≤ T·d·(d + 1)^{T·d}·ε^{−T·d}   (ε ≤ 1).
//
// The model: the encoder quantises each coordinate of x(t) to G levels, q = min(⌊G·x⌋, G − 1), and writes the base-G
// number T·Σ_i q_i·G^{−((t−1)d + i)} (a value of norm < T: R ≤ T); attention is uniform (every score 0), so the CLS
// state is c = Σ_{t,i} q_{t,i}·G^{−((t−1)d+i)}, a code with T·d base-G digits, and distinct inputs' codes differ by at
// least G^{−T·d}. The readout is the McShane extension of code ↦ F(dequantised tokens), dequantised to cell centres
// (q + ½)/G: Lipschitz constant L* ≤ d·G^{T·d} (F ∈ [0, d]). Its error: moving each coordinate by at most 1/(2G)
// moves each dot product x(s)·x(t) by at most 2·(√d/(2G))·√d = d/G, so |F(Q(X)) − F(X)| ≤ d/G ≤ ε.
//
// The encoder is discontinuous (a step function): the model is in the class C1 the packing bound speaks of, not a
// transformer with an FFN encoder. For continuous encoders no finite cost reaches ε below the continuity floor
// (continuity_floor.hpp). The chain below is the certificate at any (T, d, ε); built instances (small T·d and G) are
// enumerated code by code and must agree with it.
#include <cstdint>
#include <nlohmann/json.hpp>

namespace infoflow {

/// The lemma chain of the code model at (T, d, ε), evaluated in arb (upper ends).
struct CodeModelChain {
  int T = 0, d = 0;
  double eps = 0;
  double levels = 0;          // G = ⌈d/ε⌉ (as a double: it may exceed 2^63 only where the caller asks for it)
  double error_upper = 0;     // d/G
  double lipschitz_upper = 0; // d·G^{T·d}
  double value_norm_upper = 0;  // T
  double lr_upper = 0;        // T·d·G^{T·d}
  double exponent = 0;        // T·d: L·R ≤ C·ε^{−T·d}
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CodeModelChain, T, d, eps, levels, error_upper, lipschitz_upper, value_norm_upper,
                                   lr_upper, exponent)

/// Throws InputError unless T ≥ 1, d ≥ 1 and ε ∈ (0, 1).
CodeModelChain code_model_chain(int T, int d, double eps);

/// A built instance: every code enumerated, the McShane readout's Lipschitz constant computed exactly (in arb, the
/// largest slope between neighbouring codes, which is the largest over every pair), the value norm from the encoder's values, and the model's error at sampled inputs of the cube
/// (the readout evaluated from its definition, the target computed directly).
struct CodeModelInstance {
  int T = 0, d = 0;
  long levels = 0;
  long codes = 0;
  double lipschitz_exact_upper = 0;  // max over pairs |F_a − F_b| / |c_a − c_b|, upper end
  double value_norm_upper = 0;       // max |w(x, t)| over the encoder's values
  double sampled_error_max = 0;      // max |y − F| over the samples, upper end
  long samples = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CodeModelInstance, T, d, levels, codes, lipschitz_exact_upper, value_norm_upper,
                                   sampled_error_max, samples)

/// Builds the instance with G levels (G^{T·d} ≤ 1024 codes) and evaluates it on `samples` seeded points of the cube
/// (half of them at cell corners, where the quantiser jumps).
CodeModelInstance build_code_model(int T, int d, long levels, int samples, std::uint64_t seed);

}  // namespace infoflow
