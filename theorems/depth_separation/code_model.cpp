#include "theorems/depth_separation/code_model.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace infoflow {

namespace {
constexpr long kPrec = 128;
constexpr long kMaxCodes = 1024;

// The digits q_{t,i} of an input: min(⌊G·x⌋, G − 1).
std::vector<long> digits_of(const std::vector<std::vector<double>>& X, long G) {
  std::vector<long> q;
  for (const auto& x : X)
    for (double v : x) q.push_back(std::min(static_cast<long>(std::floor(v * static_cast<double>(G))), G - 1));
  return q;
}

// The code c = Σ_k q_k G^{−(k+1)} and the dequantised tokens (q + ½)/G, exactly (arb: rationals with a power of G).
struct Decoded {
  ArbBall code;
  ArbBall target;  // F at the dequantised tokens
};

Decoded decode(const std::vector<long>& q, int T, int d, long G) {
  ArbBall code(0.0, kPrec), scale(1.0, kPrec);
  const ArbBall g(static_cast<double>(G), kPrec);
  Sequence<ArbBall> X(T, Vec<ArbBall>(d, ArbBall(0.0, kPrec)));
  for (std::size_t k = 0; k < q.size(); ++k) {
    scale = scale / g;
    code += ArbBall(static_cast<double>(q[k]), kPrec) * scale;
    X[k / d][k % d] = (ArbBall(static_cast<double>(q[k]), kPrec) + ArbBall(0.5, kPrec)) / g;
  }
  return {code, MinPairwiseDot{}(X)};
}
}  // namespace

CodeModelChain code_model_chain(int T, int d, double eps) {
  if (T < 1) throw InputError("T", "expected T >= 1, got " + std::to_string(T));
  if (d < 1) throw InputError("d", "expected d >= 1, got " + std::to_string(d));
  if (!(eps > 0 && eps < 1)) throw InputError("eps", "expected eps in (0, 1)");
  CodeModelChain c;
  c.T = T, c.d = d, c.eps = eps;
  c.levels = std::ceil(static_cast<double>(d) / eps);
  const ArbBall G(c.levels, kPrec), dd(static_cast<double>(d), kPrec), TT(static_cast<double>(T), kPrec);
  c.error_upper = (dd / G).upper();
  // Distinct codes differ by at least G^{−T·d}, and F ∈ [0, d]. (Under the mutant one digit is forgotten.)
  const int digits = mutated(Mutant::CodeModelDropsDigit) ? T * d - 1 : T * d;
  ArbBall L = dd;
  for (int k = 0; k < digits; ++k) L = L * G;
  c.lipschitz_upper = L.upper();
  c.value_norm_upper = static_cast<double>(T);
  c.lr_upper = (L * TT).upper();
  c.exponent = static_cast<double>(T) * d;
  return c;
}

CodeModelInstance build_code_model(int T, int d, long G, int samples, std::uint64_t seed) {
  if (T < 1 || d < 1 || G < 2) throw ContractError("build_code_model", "T, d >= 1 and G >= 2");
  const double codes_d = std::pow(static_cast<double>(G), T * d);
  if (codes_d > kMaxCodes) throw ContractError("build_code_model", "at most 1024 codes");
  const long N = static_cast<long>(codes_d);
  CodeModelInstance inst;
  inst.T = T, inst.d = d, inst.levels = G, inst.codes = N;
  // Every code, in order of its digits.
  std::vector<Decoded> table;
  std::vector<long> q(static_cast<std::size_t>(T) * d, 0);
  for (long k = 0; k < N; ++k) {
    table.push_back(decode(q, T, d, G));
    for (std::size_t i = q.size(); i-- > 0;) {
      if (++q[i] < G) break;
      q[i] = 0;
    }
  }
  // The McShane readout's constant: the largest slope between two codes. The codes lie on a line in increasing order
  // (the enumeration is lexicographic in the digits), and for a < b < c the slope from a to c is a weighted mean of
  // the slopes a–b and b–c, so the largest slope over all pairs is the largest between neighbours.
  ArbBall L(0.0, kPrec);
  for (long a = 0; a + 1 < N; ++a) {
    const ArbBall gap = table[a + 1].code - table[a].code;
    if (!(gap.lower() > 0)) throw ContractError("build_code_model", "codes not increasing");
    const ArbBall slope = abs(table[a + 1].target - table[a].target) / gap;
    L = ArbBall(std::max(L.upper(), slope.upper()), kPrec);
  }
  inst.lipschitz_exact_upper = L.upper();
  // The encoder's values: T·Σ_i q_i G^{−((t−1)d+i)}; the largest is at t = 1 with every digit G − 1.
  {
    ArbBall w(0.0, kPrec), scale(1.0, kPrec);
    const ArbBall g(static_cast<double>(G), kPrec);
    for (int i = 0; i < d; ++i) {
      scale = scale / g;
      w += ArbBall(static_cast<double>(G - 1), kPrec) * scale;
    }
    inst.value_norm_upper = (w * ArbBall(static_cast<double>(T), kPrec)).upper();
  }
  // The model on sampled inputs: y = min_k (F_k + L|c − c_k|) at its own code c (the readout's definition), against F.
  SplitMix64 rng(seed);
  ArbBall worst(0.0, kPrec);
  for (int s = 0; s < samples; ++s) {
    std::vector<std::vector<double>> X(T, std::vector<double>(d));
    for (auto& x : X)
      for (double& v : x) {
        // Half the samples at a cell boundary (where the quantiser jumps), the rest uniform.
        v = s % 2 ? rng.uniform() : static_cast<double>(rng.uniform_index(static_cast<std::size_t>(G) + 1)) / G;
      }
    const Decoded own = decode(digits_of(X, G), T, d, G);
    ArbBall y = table.front().target + L * abs(own.code - table.front().code);
    for (long k = 1; k < N; ++k) {
      y = min(y, table[k].target + L * abs(own.code - table[k].code));
    }
    const ArbBall F = MinPairwiseDot{}(convert_sequence<ArbBall>(X, Precision{kPrec}));
    worst = ArbBall(std::max(worst.upper(), abs(y - F).upper()), kPrec);
    ++inst.samples;
  }
  inst.sampled_error_max = worst.upper();
  return inst;
}

}  // namespace infoflow
