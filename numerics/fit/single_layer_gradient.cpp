#include "numerics/fit/single_layer_gradient.hpp"
#include "numerics/scalar/gelu.hpp"

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
  // Two loops without branches, so that the compiler can vectorise them: each entry still gets the same terms in the
  // same order (the vector lanes are independent entries), so the gradient has the same bits.
  for (int r = 0; r < rows; ++r) {
    const double* a = p + row_major_index(off, cols, r, 0);
    const double gr = g[r];
    if (x_grad)
      for (int c = 0; c < cols; ++c) x_grad[c] += a[c] * gr;
    if (grad) {
      double* ga = grad + row_major_index(off, cols, r, 0);
      for (int c = 0; c < cols; ++c) ga[c] += gr * x[c];
    }
  }
}

struct MapTape {
  V hidden_pre;    // FFN only
  V hidden;
  V hidden_slope;  // GeLU units only: σ' at each pre-activation
};

// y = map(x), keeping what the reverse sweep needs in tape. y is resized, not reallocated once it has capacity.
void map_forward(const double* p, const MapOffsets& m, const V& x, MapTape& tape, V& y) {
  y.resize(m.out);
  if (m.kind == MapKind::Affine) {
    matvec(p, m.W, m.out, m.in, x.data(), y.data());
    for (int i = 0; i < m.out; ++i) y[i] += p[m.b + i];
    return;
  }
  tape.hidden_pre.assign(m.width, 0.0);
  matvec(p, m.W1, m.width, m.in, x.data(), tape.hidden_pre.data());
  tape.hidden.resize(m.width);
  const bool gelu_units = m.activation == Activation::Gelu;
  if (gelu_units) tape.hidden_slope.resize(m.width);
  for (int j = 0; j < m.width; ++j) {
    tape.hidden_pre[j] += p[m.b1 + j];
    tape.hidden[j] = gelu_units ? gelu_and_slope(tape.hidden_pre[j], tape.hidden_slope[j]) : std::max(0.0, tape.hidden_pre[j]);
  }
  matvec(p, m.W2, m.out, m.width, tape.hidden.data(), y.data());
  for (int i = 0; i < m.out; ++i) y[i] += p[m.b2 + i];
}

// Back-propagates g = dŷ/dy through the map: accumulates parameter gradients and, when gx is non-null, writes dŷ/dx
// into it. gh is scratch for the hidden layer.
void map_backward(const double* p, const MapOffsets& m, const V& x, const MapTape& tape, const V& g, double* grad, V* gx,
                  V& gh) {
  if (gx) gx->assign(m.in, 0.0);
  double* gxd = gx ? gx->data() : nullptr;
  if (m.kind == MapKind::Affine) {
    matvec_back(p, m.W, m.out, m.in, x.data(), g.data(), gxd, grad);
    if (grad)
      for (int i = 0; i < m.out; ++i) grad[m.b + i] += g[i];
    return;
  }
  gh.assign(m.width, 0.0);
  matvec_back(p, m.W2, m.out, m.width, tape.hidden.data(), g.data(), gh.data(), grad);
  if (grad)
    for (int i = 0; i < m.out; ++i) grad[m.b2 + i] += g[i];
  if (m.activation == Activation::Gelu)
    for (int j = 0; j < m.width; ++j) gh[j] *= tape.hidden_slope[j];
  else
    for (int j = 0; j < m.width; ++j) gh[j] = tape.hidden_pre[j] > 0.0 ? gh[j] : 0.0;
  matvec_back(p, m.W1, m.width, m.in, x.data(), gh.data(), gxd, grad);
  if (grad)
    for (int j = 0; j < m.width; ++j) grad[m.b1 + j] += gh[j];
}

struct HeadTape {
  V q;
  std::vector<V> k, v;
  V w;  // softmax weights
  V out;
};

// Every intermediate of one evaluation, kept per thread between calls: Ceres calls evaluate once per residual and
// iteration, and allocating these each time was a fifth of a fit's time (perf, TOOLCHAIN.md).
struct Scratch {
  std::vector<V> u, gu;
  std::vector<MapTape> enc_tape;
  std::vector<HeadTape> heads;
  V concat, c, wo, y, gc, gconcat, gc0, dw, dq, dk, dv, gh, one{1.0}, grad;
  MapTape ro_tape;
};
thread_local Scratch scratch;

// n vectors of size `size`, reusing what `vs` holds.
void shape(std::vector<V>& vs, std::size_t n, int size) {
  vs.resize(n);
  for (auto& v : vs) v.resize(static_cast<std::size_t>(size));
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
  Scratch& S = scratch;
  S.u.resize(T);
  S.enc_tape.resize(T);
  for (int t = 0; t < T; ++t) {
    map_forward(params, L_.encoder(), X[t], S.enc_tape[t], S.u[t]);
    if (a.positions > 0)
      for (int e = 0; e < E; ++e) S.u[t][e] += params[row_major_index(L_.positional(), E, t, e)];
  }
  const double* c0 = params + L_.cls0();
  S.heads.resize(lo.heads.size());
  S.concat.clear();
  for (std::size_t hi = 0; hi < lo.heads.size(); ++hi) {
    const HeadOffsets& h = lo.heads[hi];
    HeadTape& tp = S.heads[hi];
    const double beta = temperatures[h.temperature];
    tp.q.assign(h.key_dim, 0.0);
    matvec(params, h.Q, h.key_dim, E, c0, tp.q.data());
    shape(tp.k, T, h.key_dim);
    shape(tp.v, T, h.value_dim);
    tp.w.assign(T, 0.0);
    double top = -INFINITY;
    for (int t = 0; t < T; ++t) {
      matvec(params, h.K, h.key_dim, E, S.u[t].data(), tp.k[t].data());
      matvec(params, h.V, h.value_dim, E, S.u[t].data(), tp.v[t].data());
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
    S.concat.insert(S.concat.end(), tp.out.begin(), tp.out.end());
  }
  S.c.assign(c0, c0 + E);
  S.wo.resize(E);
  matvec(params, lo.W_O, E, lo.concat_dim, S.concat.data(), S.wo.data());
  for (int e = 0; e < E; ++e) S.c[e] += S.wo[e];
  map_forward(params, L_.readout(), S.c, S.ro_tape, S.y);
  const double y = S.y[0];
  if (!grad && !temperature_grad) return y;

  // ---- reverse sweep (into scratch when only the temperature gradient is wanted) ----
  if (!grad) {
    S.grad.resize(L_.size());
    grad = S.grad.data();
  }
  std::fill(grad, grad + L_.size(), 0.0);
  if (temperature_grad) std::fill(temperature_grad, temperature_grad + L_.temperature_count(), 0.0);
  map_backward(params, L_.readout(), S.c, S.ro_tape, S.one, grad, &S.gc, S.gh);
  for (int e = 0; e < E; ++e) grad[L_.cls0() + e] += S.gc[e];  // residual: c = c0 + W_O a
  S.gconcat.assign(lo.concat_dim, 0.0);
  matvec_back(params, lo.W_O, E, lo.concat_dim, S.concat.data(), S.gc.data(), S.gconcat.data(), grad);
  S.gu.resize(T);
  for (auto& g : S.gu) g.assign(E, 0.0);
  S.gc0.assign(E, 0.0);
  int offset = 0;
  for (std::size_t hi = 0; hi < lo.heads.size(); ++hi) {
    const HeadOffsets& h = lo.heads[hi];
    const HeadTape& tp = S.heads[hi];
    const double beta = temperatures[h.temperature];
    const double* ga = S.gconcat.data() + offset;
    offset += h.value_dim;
    // a = Σ w_t v_t:  dv_t = w_t ga;  dw_t = ga·v_t;  softmax: dz_t = w_t (dw_t − Σ_s w_s dw_s).
    S.dw.resize(T);
    double mean = 0;
    for (int t = 0; t < T; ++t) {
      double s = 0;
      for (int i = 0; i < h.value_dim; ++i) s += ga[i] * tp.v[t][i];
      S.dw[t] = s;
      mean += tp.w[t] * s;
    }
    S.dq.assign(h.key_dim, 0.0);
    S.dk.resize(h.key_dim);
    S.dv.resize(h.value_dim);
    for (int t = 0; t < T; ++t) {
      const double dz = tp.w[t] * (S.dw[t] - mean);
      // z_t = β qᵀk_t
      if (temperature_grad) {
        double score = 0;
        for (int i = 0; i < h.key_dim; ++i) score += tp.q[i] * tp.k[t][i];
        temperature_grad[h.temperature] += dz * score;
      }
      for (int i = 0; i < h.key_dim; ++i) {
        S.dq[i] += beta * dz * tp.k[t][i];
        S.dk[i] = beta * dz * tp.q[i];
      }
      for (int i = 0; i < h.value_dim; ++i) S.dv[i] = tp.w[t] * ga[i];
      matvec_back(params, h.K, h.key_dim, E, S.u[t].data(), S.dk.data(), S.gu[t].data(), grad);
      matvec_back(params, h.V, h.value_dim, E, S.u[t].data(), S.dv.data(), S.gu[t].data(), grad);
    }
    matvec_back(params, h.Q, h.key_dim, E, c0, S.dq.data(), S.gc0.data(), grad);
  }
  for (int e = 0; e < E; ++e) grad[L_.cls0() + e] += S.gc0[e];
  for (int t = 0; t < T; ++t) {
    if (a.positions > 0)
      for (int e = 0; e < E; ++e) grad[row_major_index(L_.positional(), E, t, e)] += S.gu[t][e];
    // The encoder's input gradient is not needed: nullptr skips it.
    map_backward(params, L_.encoder(), X[t], S.enc_tape[t], S.gu[t], grad, nullptr, S.gh);
  }
  return y;
}

}  // namespace infoflow
