#include "numerics/fit/single_layer_gradient.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {

using V = std::vector<double>;

// y = A x for A (rows × cols) at p + off.
void matvec(const double* p, std::size_t off, int rows, int cols, const double* x, double* y) {
  for (int r = 0; r < rows; ++r) {
    double acc = 0.0;
    const double* a = p + row_major_index(off, cols, r, 0);
    for (int c = 0; c < cols; ++c) acc += a[c] * x[c];
    y[r] = acc;
  }
}
// x_grad += Aᵀ g; A_grad += g xᵀ.
void matvec_back(const double* p, std::size_t off, int rows, int cols, const double* x, const double* g,
                 double* x_grad, double* grad) {
  for (int r = 0; r < rows; ++r) {
    const double* a = p + row_major_index(off, cols, r, 0);
    double* ga = grad ? grad + row_major_index(off, cols, r, 0) : nullptr;
    for (int c = 0; c < cols; ++c) {
      if (x_grad) x_grad[c] += a[c] * g[r];
      if (ga) ga[c] += g[r] * x[c];
    }
  }
}

struct MapTape {
  V hidden_pre;  // FFN only
  V hidden;
};

V map_forward(const double* p, const MapOffsets& m, const V& x, MapTape& tape) {
  V y(m.out);
  if (m.kind == MapKind::Affine) {
    matvec(p, m.W, m.out, m.in, x.data(), y.data());
    for (int i = 0; i < m.out; ++i) y[i] += p[m.b + i];
    return y;
  }
  tape.hidden_pre.assign(m.width, 0.0);
  matvec(p, m.W1, m.width, m.in, x.data(), tape.hidden_pre.data());
  tape.hidden.resize(m.width);
  for (int j = 0; j < m.width; ++j) {
    tape.hidden_pre[j] += p[m.b1 + j];
    tape.hidden[j] = std::max(0.0, tape.hidden_pre[j]);
  }
  matvec(p, m.W2, m.out, m.width, tape.hidden.data(), y.data());
  for (int i = 0; i < m.out; ++i) y[i] += p[m.b2 + i];
  return y;
}

// Back-propagates g = dŷ/dy through the map; returns dŷ/dx and accumulates parameter gradients.
V map_backward(const double* p, const MapOffsets& m, const V& x, const MapTape& tape, const V& g, double* grad) {
  V gx(m.in, 0.0);
  if (m.kind == MapKind::Affine) {
    matvec_back(p, m.W, m.out, m.in, x.data(), g.data(), gx.data(), grad);
    if (grad)
      for (int i = 0; i < m.out; ++i) grad[m.b + i] += g[i];
    return gx;
  }
  V gh(m.width, 0.0);
  matvec_back(p, m.W2, m.out, m.width, tape.hidden.data(), g.data(), gh.data(), grad);
  if (grad)
    for (int i = 0; i < m.out; ++i) grad[m.b2 + i] += g[i];
  for (int j = 0; j < m.width; ++j) gh[j] = tape.hidden_pre[j] > 0.0 ? gh[j] : 0.0;
  matvec_back(p, m.W1, m.width, m.in, x.data(), gh.data(), gx.data(), grad);
  if (grad)
    for (int j = 0; j < m.width; ++j) grad[m.b1 + j] += gh[j];
  return gx;
}

}  // namespace

SingleLayerGradient::SingleLayerGradient(const ParamLayout& layout) : L_(layout) {
  if (layout.layers().size() != 1) throw ContractError("SingleLayerGradient", "model: the analytic gradient covers single-layer models only");
}

double SingleLayerGradient::evaluate(const double* params, const double* temperatures,
                                     const std::vector<std::vector<double>>& X, double* grad,
                                     double* temperature_grad) const {
  const Architecture& a = L_.arch();
  const LayerOffsets& lo = L_.layers()[0];
  const int T = static_cast<int>(X.size());
  const int E = a.E;

  // ---- forward, keeping what the reverse sweep needs ----
  std::vector<V> u(T);
  std::vector<MapTape> enc_tape(T);
  for (int t = 0; t < T; ++t) {
    u[t] = map_forward(params, L_.encoder(), X[t], enc_tape[t]);
    if (a.positions > 0)
      for (int e = 0; e < E; ++e) u[t][e] += params[row_major_index(L_.positional(), E, t, e)];
  }
  const double* c0 = params + L_.cls0();
  struct HeadTape {
    V q;
    std::vector<V> k, v;
    V w;  // softmax weights
    V out;
  };
  std::vector<HeadTape> ht(lo.heads.size());
  V concat;
  for (std::size_t hi = 0; hi < lo.heads.size(); ++hi) {
    const HeadOffsets& h = lo.heads[hi];
    HeadTape& tp = ht[hi];
    const double beta = temperatures[h.temperature];
    tp.q.assign(h.key_dim, 0.0);
    matvec(params, h.Q, h.key_dim, E, c0, tp.q.data());
    tp.k.assign(T, V(h.key_dim));
    tp.v.assign(T, V(h.value_dim));
    tp.w.assign(T, 0.0);
    double top = -INFINITY;
    for (int t = 0; t < T; ++t) {
      matvec(params, h.K, h.key_dim, E, u[t].data(), tp.k[t].data());
      matvec(params, h.V, h.value_dim, E, u[t].data(), tp.v[t].data());
      double s = 0;
      for (int i = 0; i < h.key_dim; ++i) s += tp.q[i] * tp.k[t][i];
      tp.w[t] = beta * s;
      top = std::max(top, tp.w[t]);
    }
    double den = 0;
    for (auto& w : tp.w) den += (w = std::exp(w - top));
    tp.out.assign(h.value_dim, 0.0);
    for (int t = 0; t < T; ++t) {
      tp.w[t] /= den;
      for (int i = 0; i < h.value_dim; ++i) tp.out[i] += tp.w[t] * tp.v[t][i];
    }
    concat.insert(concat.end(), tp.out.begin(), tp.out.end());
  }
  V c(c0, c0 + E), wo(E);
  matvec(params, lo.W_O, E, lo.concat_dim, concat.data(), wo.data());
  for (int e = 0; e < E; ++e) c[e] += wo[e];
  MapTape ro_tape;
  const double y = map_forward(params, L_.readout(), c, ro_tape)[0];
  if (!grad && !temperature_grad) return y;

  // ---- reverse sweep (into scratch when only the temperature gradient is wanted) ----
  std::vector<double> scratch;
  if (!grad) {
    scratch.resize(L_.size());
    grad = scratch.data();
  }
  std::fill(grad, grad + L_.size(), 0.0);
  if (temperature_grad) std::fill(temperature_grad, temperature_grad + L_.temperature_count(), 0.0);
  const V gc = map_backward(params, L_.readout(), c, ro_tape, V{1.0}, grad);
  for (int e = 0; e < E; ++e) grad[L_.cls0() + e] += gc[e];  // residual: c = c0 + W_O a
  V gconcat(lo.concat_dim, 0.0);
  matvec_back(params, lo.W_O, E, lo.concat_dim, concat.data(), gc.data(), gconcat.data(), grad);
  std::vector<V> gu(T, V(E, 0.0));
  V gc0(E, 0.0);
  int offset = 0;
  for (std::size_t hi = 0; hi < lo.heads.size(); ++hi) {
    const HeadOffsets& h = lo.heads[hi];
    const HeadTape& tp = ht[hi];
    const double beta = temperatures[h.temperature];
    const double* ga = gconcat.data() + offset;
    offset += h.value_dim;
    // a = Σ w_t v_t:  dv_t = w_t ga;  dw_t = ga·v_t;  softmax: dz_t = w_t (dw_t − Σ_s w_s dw_s).
    V dw(T);
    double mean = 0;
    for (int t = 0; t < T; ++t) {
      double s = 0;
      for (int i = 0; i < h.value_dim; ++i) s += ga[i] * tp.v[t][i];
      dw[t] = s;
      mean += tp.w[t] * s;
    }
    V dq(h.key_dim, 0.0), dk(h.key_dim), dv(h.value_dim);
    for (int t = 0; t < T; ++t) {
      const double dz = tp.w[t] * (dw[t] - mean);
      // z_t = β qᵀk_t
      if (temperature_grad) {
        double score = 0;
        for (int i = 0; i < h.key_dim; ++i) score += tp.q[i] * tp.k[t][i];
        temperature_grad[h.temperature] += dz * score;
      }
      for (int i = 0; i < h.key_dim; ++i) {
        dq[i] += beta * dz * tp.k[t][i];
        dk[i] = beta * dz * tp.q[i];
      }
      for (int i = 0; i < h.value_dim; ++i) dv[i] = tp.w[t] * ga[i];
      matvec_back(params, h.K, h.key_dim, E, u[t].data(), dk.data(), gu[t].data(), grad);
      matvec_back(params, h.V, h.value_dim, E, u[t].data(), dv.data(), gu[t].data(), grad);
    }
    matvec_back(params, h.Q, h.key_dim, E, c0, dq.data(), gc0.data(), grad);
  }
  for (int e = 0; e < E; ++e) grad[L_.cls0() + e] += gc0[e];
  for (int t = 0; t < T; ++t) {
    if (a.positions > 0)
      for (int e = 0; e < E; ++e) grad[row_major_index(L_.positional(), E, t, e)] += gu[t][e];
    map_backward(params, L_.encoder(), X[t], enc_tape[t], gu[t], grad);
  }
  return y;
}

}  // namespace infoflow
