#include "numerics/lower_bounds/model_quantities.hpp"

#include "numerics/model/forward.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {

// √(Σ x²), the sum being ≥ 0 at every point of the balls.
ArbBall norm_of(const std::vector<ArbBall>& v, long prec) {
  ArbBall acc(0.0, prec);
  for (const auto& x : v) acc += x * x;
  return sqrt_nonneg(acc);
}

// Per head i of the last layer: ‖W_O^(i) V_i u‖ for the token state u, as a ball.
std::vector<ArbBall> head_value_norms(const ModelT<ArbBall>& m, const ParamLayout& L, const std::vector<ArbBall>& u) {
  const LayerOffsets& lo = L.layers().back();
  const int E = m.arch.E;
  std::vector<ArbBall> out;
  int col = 0;
  for (const HeadOffsets& ho : lo.heads) {
    std::vector<ArbBall> v(ho.value_dim, ArbBall(0.0, m.precision.bits));
    for (int r = 0; r < ho.value_dim; ++r)
      for (int c = 0; c < E; ++c) v[r] += m.params[row_major_index(ho.V, E, r, c)] * u[c];
    std::vector<ArbBall> w(E, ArbBall(0.0, m.precision.bits));
    for (int r = 0; r < E; ++r)
      for (int c = 0; c < ho.value_dim; ++c) w[r] += m.params[row_major_index(lo.W_O, lo.concat_dim, r, col + c)] * v[c];
    out.push_back(norm_of(w, m.precision.bits));
    col += ho.value_dim;
  }
  return out;
}

// An upper bound as a double: +inf for an indeterminate ball (never NaN, which max() would drop).
double upper_or_inf(const ArbBall& b) {
  const double u = b.upper();
  return std::isnan(u) ? INFINITY : u;
}

int positions_to_visit(const ModelT<ArbBall>& m, int T) {
  if (T < 1) throw InputError("--T", "expected T >= 1");
  if (m.arch.positions > 0 && T > m.arch.positions)
    throw InputError("--T", "T = " + std::to_string(T) + " exceeds the model's positional table (" +
                                std::to_string(m.arch.positions) + " rows)");
  return m.arch.positions > 0 ? T : 1;  // without positions every position gives the same value vector
}

}  // namespace

LipschitzUpper readout_lipschitz_upper(const ModelT<ArbBall>& m) {
  const ParamLayout L(m.arch);
  const MapOffsets& ro = L.readout();
  const long prec = m.precision.bits;
  const int E = m.arch.E;
  if (ro.kind == MapKind::Affine) {
    std::vector<ArbBall> row;
    for (int c = 0; c < E; ++c) row.push_back(m.params[row_major_index(ro.W, E, 0, c)]);
    return {upper_or_inf(norm_of(row, prec)), "affine: row norm"};
  }
  // The gradient on each linear piece is Σ_k D_k v_k with v_k = W2[0,k]·W1[k,:] and D_k ∈ {0, 1}; with GeLU units it
  // is Σ_k σ'(h_k) v_k everywhere, σ' ∈ [−0.129, 1.129] (numerics/scalar/gelu.hpp).
  const int p = ro.width;
  const bool gelu = ro.activation == Activation::Gelu;
  std::vector<std::vector<ArbBall>> v(p);
  for (int k = 0; k < p; ++k)
    for (int c = 0; c < E; ++c)
      v[k].push_back(m.params[row_major_index(ro.W2, p, 0, k)] * m.params[row_major_index(ro.W1, E, k, c)]);
  if (p <= 16) {
    // The norm of Σ_k s_k v_k is convex in the slopes s ∈ [s_lo, s_hi]^p, so its largest value is at a vertex: ReLU's
    // activation patterns, s ∈ {0, 1}^p, or GeLU's {−0.1290, 1.1290}^p. Every vertex in Gray-code order: one slope
    // moved from one end to the other per step, its vector times s_hi − s_lo added or removed.
    std::vector<ArbBall> sum(E, ArbBall(0.0, prec));
    std::vector<std::vector<ArbBall>> move = v;
    double best = 0;
    if (gelu) {
      const ArbBall s_lo(kGeluSlopeLower, prec), span = ArbBall(kGeluSlopeBound, prec) - s_lo;
      for (int k = 0; k < p; ++k)
        for (int c = 0; c < E; ++c) sum[c] += s_lo * v[k][c], move[k][c] = span * v[k][c];
      best = upper_or_inf(norm_of(sum, prec));
    }
    unsigned gray = 0;
    for (unsigned step = 1; step < (1u << p); ++step) {
      const unsigned next = step ^ (step >> 1);
      const int k = __builtin_ctz(next ^ gray);
      const bool add = next & (1u << k);
      for (int c = 0; c < E; ++c) sum[c] = add ? sum[c] + move[k][c] : sum[c] - move[k][c];
      gray = next;
      best = std::max(best, upper_or_inf(norm_of(sum, prec)));
    }
    return {best, gelu ? "gelu ffn: every vertex of the slopes' box" : "ffn: every activation pattern"};
  }
  ArbBall rank_one(0.0, prec), w1(0.0, prec), w2(0.0, prec);
  for (int k = 0; k < p; ++k) {
    rank_one += norm_of(v[k], prec);
    w2 += m.params[row_major_index(ro.W2, p, 0, k)] * m.params[row_major_index(ro.W2, p, 0, k)];
    for (int c = 0; c < E; ++c) w1 += m.params[row_major_index(ro.W1, E, k, c)] * m.params[row_major_index(ro.W1, E, k, c)];
  }
  const double rank_one_or_frobenius = std::min(upper_or_inf(rank_one), upper_or_inf(norm_of({sqrt(w1) * sqrt(w2)}, prec)));
  if (gelu)  // |Σ_k s_k v_k| ≤ max|s|·Σ‖v_k‖, and ‖W2 diag(s) W1‖ ≤ max|s|·‖W2‖_F‖W1‖_F
    return {upper_or_inf(ArbBall(kGeluSlopeBound, prec) * ArbBall(rank_one_or_frobenius, prec)),
            "gelu ffn: 1.129 × min(sum of rank-one norms, Frobenius)"};
  return {rank_one_or_frobenius, "ffn: min(sum of rank-one norms, Frobenius)"};
}

std::vector<double> head_value_norms_on_tokens(const ModelT<ArbBall>& m, const std::vector<std::vector<ArbBall>>& tokens,
                                               int T) {
  const ParamLayout L(m.arch);
  std::vector<double> R(m.arch.layers.back().heads.size(), 0.0);
  const int positions = positions_to_visit(m, T);
  for (const auto& x : tokens) {
    for (int t = 0; t < positions; ++t) {
      std::vector<ArbBall> u = token_state(m, L, x, t);
      if (mutated(Mutant::ValueNormSkipsEncoder))
        for (int e = 0; e < m.arch.E; ++e)
          u[e] = m.arch.positions > 0 ? m.params[row_major_index(L.positional(), m.arch.E, t, e)] : ArbBall(0.0, m.precision.bits);
      const std::vector<ArbBall> norms = head_value_norms(m, L, u);
      for (std::size_t i = 0; i < R.size(); ++i) R[i] = std::max(R[i], upper_or_inf(norms[i]));
    }
  }
  return R;
}

std::vector<double> head_value_norms_on_box(const ModelT<ArbBall>& m, int T, double lo, double hi, int cells) {
  const ParamLayout L(m.arch);
  const int d = m.arch.d;
  // At most 4096 cells in all.
  while (cells > 1 && std::pow(static_cast<double>(cells), d) > 4096) --cells;
  std::vector<double> R(m.arch.layers.back().heads.size(), 0.0);
  const int positions = positions_to_visit(m, T);
  std::vector<int> idx(d, 0);
  const double w = (hi - lo) / cells;
  while (true) {
    Vec<ArbBall> x;
    for (int i = 0; i < d; ++i)
      x.push_back(ArbBall::interval(lo + w * idx[i], idx[i] + 1 == cells ? hi : lo + w * (idx[i] + 1), m.precision.bits));
    for (int t = 0; t < positions; ++t) {
      const std::vector<ArbBall> norms = head_value_norms(m, L, token_state(m, L, x, t));
      for (std::size_t i = 0; i < R.size(); ++i) R[i] = std::max(R[i], upper_or_inf(norms[i]));
    }
    int i = 0;
    while (i < d && ++idx[i] == cells) idx[i++] = 0;
    if (i == d) break;
  }
  return R;
}

double family_error_upper(const ModelT<ArbBall>& m, const std::vector<std::vector<std::vector<ArbBall>>>& inputs,
                          const std::vector<ArbBall>& targets) {
  if (inputs.size() != targets.size()) throw ContractError("family_error_upper", "one target per input");
  const ParamLayout L(m.arch);
  double worst = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    worst = std::max(worst, upper_or_inf(abs(forward(m, L, inputs[i]).y - targets[i])));
    if (!std::isfinite(worst)) return INFINITY;
  }
  return worst;
}

}  // namespace infoflow
