#include "numerics/train/batched_single_layer.hpp"

#include "numerics/train/small_products.hpp"
#include "numerics/util/errors.hpp"

#include <algorithm>
#include <numeric>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMat = Eigen::Map<const RowMat>;
using MutMat = Eigen::Map<RowMat>;
using ConstVec = Eigen::Map<const Eigen::VectorXd>;
using MutVec = Eigen::Map<Eigen::VectorXd>;

ConstMat mat(const double* p, std::size_t off, int rows, int cols) { return ConstMat(p + off, rows, cols); }
MutMat mat(double* p, std::size_t off, int rows, int cols) { return MutMat(p + off, rows, cols); }
ConstVec vec(const double* p, std::size_t off, int n) { return ConstVec(p + off, n); }
MutVec vec(double* p, std::size_t off, int n) { return MutVec(p + off, n); }

}  // namespace

namespace {

// W's columns one after another (W column-major), as the kernels read it: a copy of at most a few thousand entries, per
// call and thread.
const double* weight_columns(const double* params, std::size_t off, int rows, int cols) {
  thread_local std::vector<double> packed;
  packed.resize(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int c = 0; c < cols; ++c)
      packed[static_cast<std::size_t>(c) * rows + i] = params[off + static_cast<std::size_t>(i) * cols + c];
  return packed.data();
}

}  // namespace

void weight_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& X,
                  Eigen::MatrixXd& out, std::optional<std::size_t> bias_off, bool relu) {
  if (X.rows() != cols) throw ContractError("weight_times", "operands: shapes do not match");
  out.resize(rows, X.cols());
  small_products::multiply(rows, cols, X.cols(), weight_columns(params, off, rows, cols), rows, X.data(), cols,
                           out.data(), rows, bias_off ? small_products::Start::Bias : small_products::Start::Zero,
                           bias_off ? params + *bias_off : nullptr,
                           relu ? small_products::Finish::Relu : small_products::Finish::None);
}

void add_weight_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& X,
                      Eigen::MatrixXd& out) {
  if (X.rows() != cols || out.rows() != rows || out.cols() != X.cols())
    throw ContractError("add_weight_times", "operands: shapes do not match");
  small_products::multiply(rows, cols, X.cols(), weight_columns(params, off, rows, cols), rows, X.data(), cols,
                           out.data(), rows, small_products::Start::Accumulate);
}

void weight_transposed_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                             Eigen::MatrixXd& out, bool accumulate) {
  if (G.rows() != rows || (accumulate && (out.rows() != cols || out.cols() != G.cols())))
    throw ContractError("weight_transposed_times", "operands: shapes do not match");
  if (!accumulate) out.resize(cols, G.cols());
  // Column r of Wᵀ is row r of W, contiguous in the row-major parameters.
  small_products::multiply(cols, rows, G.cols(), params + off, cols, G.data(), rows, out.data(), cols,
                           accumulate ? small_products::Start::Accumulate : small_products::Start::Zero);
}

void weight_transposed_times_gated(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                                   const Eigen::MatrixXd& relu_output, Eigen::MatrixXd& out) {
  if (G.rows() != rows || relu_output.rows() != cols || relu_output.cols() != G.cols())
    throw ContractError("weight_transposed_times_gated", "operands: shapes do not match");
  out.resize(cols, G.cols());
  small_products::multiply(cols, rows, G.cols(), params + off, cols, G.data(), rows, out.data(), cols,
                           small_products::Start::Zero, nullptr, small_products::Finish::Gate, relu_output.data());
}

void add_weight_gradient(double* grad, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                         const Eigen::MatrixXd& X, std::optional<std::size_t> bias_off) {
  if (G.rows() != rows || X.rows() != cols || G.cols() != X.cols())
    throw ContractError("add_weight_gradient", "operands: shapes do not match");
  // The row-major rows × cols gradient is the column-major cols × rows matrix (G·Xᵀ)ᵀ = X·Gᵀ.
  small_products::multiply_transposed(cols, rows, X.cols(), X.data(), cols, G.data(), rows, grad + off, cols);
  if (bias_off) small_products::add_row_sums(rows, G.cols(), G.data(), rows, grad + *bias_off);
}

void batched_map_forward(const double* p, const MapOffsets& m, const Eigen::MatrixXd& X, BatchedSingleLayer::MapWork& w) {
  if (m.kind == MapKind::Affine) {
    weight_times(p, m.W, m.out, m.in, X, w.out, m.b);
    return;
  }
  weight_times(p, m.W1, m.width, m.in, X, w.hidden, m.b1, m.activation == Activation::Relu);
  if (m.activation == Activation::Gelu) {
    // σ and σ' of every unit at once, in the vector lanes: the reverse sweep then only multiplies.
    w.hidden_slope.resize(w.hidden.rows(), w.hidden.cols());
    small_products::gelu_and_slopes(w.hidden.size(), w.hidden.data(), w.hidden_slope.data());
  }
  weight_times(p, m.W2, m.out, m.width, w.hidden, w.out, m.b2);
}

void softmax_blocks(double beta, const double* s, int T, std::int64_t columns, double* p) {
  const std::int64_t total = columns * T;
  for (std::int64_t base = 0; base < total; base += T) {
    double top = -INFINITY;
    for (int t = 0; t < T; ++t) top = std::max(top, beta * s[base + t]);
    for (int t = 0; t < T; ++t) p[base + t] = beta * s[base + t] - top;
  }
  small_products::exponentials(total, p);
  for (std::int64_t base = 0; base < total; base += T) {
    double denom = 0;
    for (int t = 0; t < T; ++t) denom += p[base + t];
    for (int t = 0; t < T; ++t) p[base + t] /= denom;
  }
}

void check_block(const Architecture& a, const SampleBlock& block) {
  if (block.X.rows() != a.d) throw InputError("samples", "tokens have dimension " + std::to_string(block.X.rows()) +
                                                             ", the model expects d = " + std::to_string(a.d));
  if (a.positions > 0 && block.T > a.positions)
    throw InputError("samples", "sequence length " + std::to_string(block.T) + " exceeds the positional table");
}

void add_positions(const double* params, const ParamLayout& L, int T, Eigen::MatrixXd& U) {
  const Architecture& a = L.arch();
  if (a.positions == 0) return;
  for (Eigen::Index j = 0; j < U.cols(); ++j)
    U.col(j) += mat(params, L.positional(), a.positions, a.E).row(static_cast<int>(j % T)).transpose();
}

void add_position_gradients(double* grad, const ParamLayout& L, int T, const Eigen::MatrixXd& g_U) {
  const Architecture& a = L.arch();
  if (a.positions == 0) return;
  for (Eigen::Index j = 0; j < g_U.cols(); ++j)
    mat(grad, L.positional(), a.positions, a.E).row(static_cast<int>(j % T)) += g_U.col(j).transpose();
}

double readout_and_loss(const double* params, const ParamLayout& L, const Eigen::MatrixXd& cls, const Eigen::VectorXd& y,
                        BatchedSingleLayer::MapWork& readout, Eigen::MatrixXd& g_y, double*& grad,
                        bool temperatures_wanted, std::vector<double>& scratch) {
  batched_map_forward(params, L.readout(), cls, readout);
  const Eigen::RowVectorXd residual = readout.out.row(0) - y.transpose();
  const double total = residual.squaredNorm();
  if (!grad && !temperatures_wanted) return total;
  if (!grad) {  // only the temperature gradient is wanted: the weights' gradient goes to scratch
    scratch.assign(L.size(), 0.0);
    grad = scratch.data();
  }
  g_y = 2.0 * residual;
  batched_map_backward(params, L.readout(), cls, g_y, readout, grad, true);
  return total;
}

void batched_map_backward(const double* p, const MapOffsets& m, const Eigen::MatrixXd& X, const Eigen::MatrixXd& g_out,
                          BatchedSingleLayer::MapWork& w, double* grad, bool want_input) {
  if (m.kind == MapKind::Affine) {
    add_weight_gradient(grad, m.W, m.out, m.in, g_out, X, m.b);
    if (want_input) weight_transposed_times(p, m.W, m.out, m.in, g_out, w.g_in);
    return;
  }
  add_weight_gradient(grad, m.W2, m.out, m.width, g_out, w.hidden, m.b2);
  if (m.activation == Activation::Gelu) {
    weight_transposed_times(p, m.W2, m.out, m.width, g_out, w.g_hidden);
    w.g_hidden.array() *= w.hidden_slope.array();
  } else {
    // ReLU: the gradient passes where the pre-activation is positive, i.e. where the output is (0 at a kink, as the
    // per-sample route; a NaN output passes nothing).
    weight_transposed_times_gated(p, m.W2, m.out, m.width, g_out, w.hidden, w.g_hidden);
  }
  add_weight_gradient(grad, m.W1, m.width, m.in, w.g_hidden, X, m.b1);
  if (want_input) weight_transposed_times(p, m.W1, m.width, m.in, w.g_hidden, w.g_in);
}

void pack_samples(const std::vector<std::vector<std::vector<double>>>& X, const std::vector<double>& y,
                  const std::vector<std::size_t>& indices, SampleBlock& block) {
  if (X.size() != y.size()) throw InputError("samples", "expected one target per sequence");
  if (indices.empty()) {
    block.X.resize(block.X.rows(), 0);
    block.y.resize(0);
    return;
  }
  const int T = static_cast<int>(X[indices.front()].size());
  const int d = T > 0 ? static_cast<int>(X[indices.front()].front().size()) : 0;
  if (T < 1 || d < 1) throw InputError("samples", "expected sequences of at least one token of dimension >= 1");
  block.T = T;
  block.X.resize(d, static_cast<Eigen::Index>(indices.size()) * T);
  block.y.resize(static_cast<Eigen::Index>(indices.size()));
  for (std::size_t n = 0; n < indices.size(); ++n) {
    const auto& seq = X.at(indices[n]);
    if (static_cast<int>(seq.size()) != T)
      throw InputError("samples", "sequence " + std::to_string(indices[n]) + " has length " + std::to_string(seq.size()) +
                                      ", expected T = " + std::to_string(T) + " (a block holds one length)");
    for (int t = 0; t < T; ++t) {
      if (static_cast<int>(seq[t].size()) != d)
        throw InputError("samples", "sequence " + std::to_string(indices[n]) + ", token " + std::to_string(t) +
                                        ": expected dimension " + std::to_string(d));
      for (int i = 0; i < d; ++i) block.X(i, static_cast<Eigen::Index>(n) * T + t) = seq[t][i];
    }
    block.y(static_cast<Eigen::Index>(n)) = y[indices[n]];
  }
}

void pack_samples(const std::vector<std::vector<std::vector<double>>>& X, const std::vector<double>& y, SampleBlock& block) {
  std::vector<std::size_t> all(X.size());
  std::iota(all.begin(), all.end(), 0);
  pack_samples(X, y, all, block);
}

BatchedSingleLayer::BatchedSingleLayer(const ParamLayout& layout) : L_(layout) {
  if (layout.layers().size() != 1)
    throw ContractError("BatchedSingleLayer", "model: the batched gradient covers single-layer models only");
}

double BatchedSingleLayer::sse(const double* params, const double* temperatures, const SampleBlock& block,
                               Workspace& w, double* grad, double* temperature_grad) const {
  const Architecture& a = L_.arch();
  const LayerOffsets& layer = L_.layers()[0];
  const int N = block.count(), T = block.T, E = a.E;
  check_block(a, block);
  if (N == 0) return 0.0;
  const Eigen::Index NT = static_cast<Eigen::Index>(N) * T;

  // ---- forward ----
  batched_map_forward(params, L_.encoder(), block.X, w.encoder);
  w.U = w.encoder.out;
  add_positions(params, L_, T, w.U);
  const ConstVec c0 = vec(params, L_.cls0(), E);
  w.heads.resize(layer.heads.size());
  w.concat.resize(layer.concat_dim, N);
  int row = 0;
  for (std::size_t h = 0; h < layer.heads.size(); ++h) {
    const HeadOffsets& ho = layer.heads[h];
    HeadWork& hw = w.heads[h];
    const double beta = temperatures[ho.temperature];
    // The only query is the CLS state ĉ0, the same for every sample.
    hw.q.noalias() = mat(params, ho.Q, ho.key_dim, E) * c0;
    weight_times(params, ho.K, ho.key_dim, E, w.U, hw.keys);
    weight_times(params, ho.V, ho.value_dim, E, w.U, hw.values);
    hw.scores.resize(NT);
    small_products::multiply(1, ho.key_dim, NT, hw.q.data(), 1, hw.keys.data(), ho.key_dim, hw.scores.data(), 1,
                             small_products::Start::Zero);
    hw.weights.resize(NT);
    softmax_blocks(beta, hw.scores.data(), T, N, hw.weights.data());
    for (int n = 0; n < N; ++n) {
      const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
      // a_n = Σ_t w_t v_t (raw loops: these vectors are a few entries long, too short for Eigen's kernels).
      double* a_n = w.concat.data() + static_cast<Eigen::Index>(n) * layer.concat_dim + row;
      const double* v = hw.values.data() + base * ho.value_dim;
      for (int i = 0; i < ho.value_dim; ++i) {  // the sum in a register, not through memory
        double sum = 0.0;
        for (int t = 0; t < T; ++t) sum += hw.weights(base + t) * v[t * ho.value_dim + i];
        a_n[i] = sum;
      }
    }
    row += ho.value_dim;
  }
  weight_times(params, layer.W_O, E, layer.concat_dim, w.concat, w.cls, L_.cls0());  // the residual ĉ0 + W_O a
  std::vector<double> scratch;
  const double total = readout_and_loss(params, L_, w.cls, block.y, w.readout, w.g_y, grad, temperature_grad != nullptr,
                                        scratch);
  if (!grad) return total;

  // ---- reverse sweep of Σ r² ----
  w.g_cls = w.readout.g_in;
  add_weight_gradient(grad, layer.W_O, E, layer.concat_dim, w.g_cls, w.concat, L_.cls0());  // c = ĉ0 + W_O a
  weight_transposed_times(params, layer.W_O, E, layer.concat_dim, w.g_cls, w.g_concat);
  w.g_U.setZero(E, NT);
  Eigen::VectorXd g_c0 = Eigen::VectorXd::Zero(E);
  row = 0;
  for (std::size_t h = 0; h < layer.heads.size(); ++h) {
    const HeadOffsets& ho = layer.heads[h];
    HeadWork& hw = w.heads[h];
    const double beta = temperatures[ho.temperature];
    hw.g_values.resize(ho.value_dim, NT);
    hw.g_keys.resize(ho.key_dim, NT);
    hw.g_q.setZero(ho.key_dim);
    hw.g_scores.resize(NT);
    double g_beta = 0;
    const int vd = ho.value_dim, kd = ho.key_dim;
    for (int n = 0; n < N; ++n) {
      const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
      const double* g_a = w.g_concat.data() + static_cast<Eigen::Index>(n) * layer.concat_dim + row;
      // a = Σ w_t v_t: dv_t = w_t g_a; dw_t = g_a·v_t; softmax: dz_t = w_t (dw_t − Σ_s w_s dw_s); z_t = β s_t.
      double* g_s = hw.g_scores.data() + base;
      double mean = 0;
      for (int t = 0; t < T; ++t) {
        const double wt = hw.weights(base + t);
        const double* v = hw.values.data() + (base + t) * vd;
        double* gv = hw.g_values.data() + (base + t) * vd;
        double dw = 0;
        for (int i = 0; i < vd; ++i) {
          gv[i] = wt * g_a[i];
          dw += g_a[i] * v[i];
        }
        g_s[t] = dw;
        mean += wt * dw;
      }
      for (int t = 0; t < T; ++t) {
        const double dz = hw.weights(base + t) * (g_s[t] - mean);
        g_beta += dz * hw.scores(base + t);
        g_s[t] = beta * dz;
      }
    }
    // s_j = q·k_j: d/dk_j = q (β dz_j), and d/dq = Σ_j k_j (β dz_j).
    small_products::multiply(kd, 1, NT, hw.q.data(), kd, hw.g_scores.data(), 1, hw.g_keys.data(), kd,
                             small_products::Start::Zero);
    small_products::multiply_transposed(kd, 1, NT, hw.keys.data(), kd, hw.g_scores.data(), 1, hw.g_q.data(), kd);
    if (temperature_grad) temperature_grad[ho.temperature] += g_beta;
    add_weight_gradient(grad, ho.V, ho.value_dim, E, hw.g_values, w.U);
    add_weight_gradient(grad, ho.K, ho.key_dim, E, hw.g_keys, w.U);
    weight_transposed_times(params, ho.V, ho.value_dim, E, hw.g_values, w.g_U, true);
    weight_transposed_times(params, ho.K, ho.key_dim, E, hw.g_keys, w.g_U, true);
    mat(grad, ho.Q, ho.key_dim, E).noalias() += hw.g_q * c0.transpose();
    g_c0.noalias() += mat(params, ho.Q, ho.key_dim, E).transpose() * hw.g_q;
    row += ho.value_dim;
  }
  vec(grad, L_.cls0(), E) += g_c0;
  add_position_gradients(grad, L_, T, w.g_U);
  batched_map_backward(params, L_.encoder(), block.X, w.g_U, w.encoder, grad, false);
  return total;
}

}  // namespace infoflow
