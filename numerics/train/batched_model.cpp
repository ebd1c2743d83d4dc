#include "numerics/train/batched_model.hpp"

#include "numerics/train/small_products.hpp"
#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

using small_products::Start;

// Column `col` of a column-major matrix (and the entries after it): a raw pointer, as the kernels take it.
double* column(Eigen::MatrixXd& M, Eigen::Index col) { return M.data() + col * M.rows(); }

// Rows [first_row, first_row + rows) of the sample's T columns of M (from column `base`), transposed into out
// (T × rows): the kernels need the shared index of a product to run down the columns of both factors.
void transpose_block(const Eigen::MatrixXd& M, Eigen::Index first_row, Eigen::Index rows, Eigen::Index base, int T,
                     Eigen::MatrixXd& out) {
  out = M.block(first_row, base, rows, T).transpose();
}

}  // namespace

double dot_in_key_major_order(int T, const double* a, const double* b) {
  const std::int64_t n = static_cast<std::int64_t>(T) * T, body = n / 8 * 8;
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;
  const auto at = [T](int tau, int t) { return tau + static_cast<std::int64_t>(t) * T; };
  if (T % 8 == 0) {  // the flat index t + τ·T is t mod 8: eight chains side by side, no tail
    for (int tau = 0; tau < T; ++tau)
      for (int t = 0; t < T; t += 8)
        for (int r = 0; r < 8; ++r) part[r] += a[at(tau, t + r)] * b[at(tau, t + r)];
  } else {
    std::int64_t i = 0;  // the flat index in key-major order: t + τ·T
    for (int tau = 0; tau < T; ++tau)
      for (int t = 0; t < T; ++t, ++i) {
        if (i < body)
          part[i % 8] += a[at(tau, t)] * b[at(tau, t)];
        else
          tail += a[at(tau, t)] * b[at(tau, t)];
      }
  }
  return (((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]))) + tail;
}

BatchedModel::BatchedModel(const ParamLayout& layout) : L_(layout) {
  if (layout.layers().empty()) throw ContractError("BatchedModel", "model: expected at least one layer");
}

double BatchedModel::sse(const double* params, const double* temperatures, const SampleBlock& block, Workspace& w,
                         double* grad, double* temperature_grad) const {
  const Architecture& a = L_.arch();
  const int N = block.count(), T = block.T, E = a.E;
  check_block(a, block);
  if (N == 0) return 0.0;
  const Eigen::Index NT = static_cast<Eigen::Index>(N) * T;
  const auto& layers = L_.layers();
  w.layers.resize(layers.size());

  // ---- forward ----
  batched_map_forward(params, L_.encoder(), block.X, w.encoder);
  w.U = w.encoder.out;
  add_positions(params, L_, T, w.U);
  w.C = Eigen::Map<const Eigen::VectorXd>(params + L_.cls0(), E).replicate(1, N);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const LayerOffsets& lo = layers[l];
    LayerWork& lw = w.layers[l];
    const bool last = l + 1 == layers.size();
    lw.U_in = w.U;
    lw.C_in = w.C;
    lw.heads.resize(lo.heads.size());
    lw.concat_cls.resize(lo.concat_dim, N);
    if (!last) lw.concat_tok.setZero(lo.concat_dim, NT);  // the heads' outputs are added into it
    int row = 0;
    for (std::size_t h = 0; h < lo.heads.size(); ++h) {
      const HeadOffsets& ho = lo.heads[h];
      HeadWork& hw = lw.heads[h];
      const double beta = temperatures[ho.temperature];
      const int kd = ho.key_dim, vd = ho.value_dim;
      weight_times(params, ho.K, kd, E, lw.U_in, hw.keys);
      weight_times(params, ho.V, vd, E, lw.U_in, hw.values);
      weight_times(params, ho.Q, kd, E, lw.C_in, hw.q_cls);
      hw.s_cls.resize(T, N);
      hw.p_cls.resize(T, N);
      // s_t = q·k_t: the 1 × T product qᵀ K_n per sample; the weights; and a = V_n p into the concatenation.
      for (int n = 0; n < N; ++n)
        small_products::multiply(1, kd, T, column(hw.q_cls, n), 1, column(hw.keys, static_cast<Eigen::Index>(n) * T),
                                 kd, column(hw.s_cls, n), 1, Start::Zero);
      softmax_blocks(beta, hw.s_cls.data(), T, N, hw.p_cls.data());
      for (int n = 0; n < N; ++n)
        small_products::multiply(vd, T, 1, column(hw.values, static_cast<Eigen::Index>(n) * T), vd, column(hw.p_cls, n),
                                 T, column(lw.concat_cls, n) + row, lo.concat_dim, Start::Zero);
      if (!last) {
        weight_times(params, ho.Q, kd, E, lw.U_in, hw.q_tok);
        hw.s_tok.resize(T, NT);
        hw.p_tok.resize(T, NT);
        // Per sample, query by row: S = Q_nᵀ K_n (T × T), the softmax of each row, and the outputs V_n Pᵀ (column τ
        // the output of query τ), one sample at a time so that its T × T blocks stay in the cache between the three.
        for (int n = 0; n < N; ++n) {
          const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
          double* S = column(hw.s_tok, base);
          double* P = column(hw.p_tok, base);
          transpose_block(hw.q_tok, 0, kd, base, T, w.queries_transposed);
          small_products::multiply(T, kd, T, w.queries_transposed.data(), T, column(hw.keys, base), kd, S, T,
                                   Start::Zero);
          small_products::softmax_rows(beta, T, T, S, T, P, T);
          small_products::multiply_transposed(vd, T, T, column(hw.values, base), vd, P, T,
                                              column(lw.concat_tok, base) + row, lo.concat_dim);
        }
      }
      row += vd;
    }
    w.C = lw.C_in;
    add_weight_times(params, lo.W_O, E, lo.concat_dim, lw.concat_cls, w.C);
    if (!last) {
      w.U = lw.U_in;
      add_weight_times(params, lo.W_O, E, lo.concat_dim, lw.concat_tok, w.U);
      if (lo.has_ffn) {
        lw.U_mid = w.U;
        lw.C_mid = w.C;
        batched_map_forward(params, lo.ffn, lw.U_mid, lw.ffn_tok);
        batched_map_forward(params, lo.ffn, lw.C_mid, lw.ffn_cls);
        w.U += lw.ffn_tok.out;
        w.C += lw.ffn_cls.out;
      }
    }
  }
  std::vector<double> scratch;
  const double total = readout_and_loss(params, L_, w.C, block.y, w.readout, w.g_y, grad, temperature_grad != nullptr,
                                        scratch);
  if (!grad) return total;

  // ---- reverse sweep of Σ r² ----
  w.g_C = w.readout.g_in;
  w.g_U.setZero(E, NT);  // the last layer's tokens are read by its keys and values only
  for (std::size_t li = layers.size(); li-- > 0;) {
    const LayerOffsets& lo = layers[li];
    LayerWork& lw = w.layers[li];
    const bool last = li + 1 == layers.size();
    if (!last && lo.has_ffn) {
      // U = U_mid + ffn(U_mid), C = C_mid + ffn(C_mid): one FFN, its gradients accumulate from both.
      batched_map_backward(params, lo.ffn, lw.U_mid, w.g_U, lw.ffn_tok, grad, true);
      w.g_U += lw.ffn_tok.g_in;
      batched_map_backward(params, lo.ffn, lw.C_mid, w.g_C, lw.ffn_cls, grad, true);
      w.g_C += lw.ffn_cls.g_in;
    }
    // C = C_in + W_O concat_cls (and the same for the tokens before the last layer).
    add_weight_gradient(grad, lo.W_O, E, lo.concat_dim, w.g_C, lw.concat_cls);
    weight_transposed_times(params, lo.W_O, E, lo.concat_dim, w.g_C, w.g_concat_cls);
    if (!last) {
      add_weight_gradient(grad, lo.W_O, E, lo.concat_dim, w.g_U, lw.concat_tok);
      weight_transposed_times(params, lo.W_O, E, lo.concat_dim, w.g_U, w.g_concat_tok);
    }
    // From here g_U and g_C accumulate the gradients of the layer's inputs (the residual passes them through).
    int row = 0;
    for (std::size_t h = 0; h < lo.heads.size(); ++h) {
      const HeadOffsets& ho = lo.heads[h];
      HeadWork& hw = lw.heads[h];
      const double beta = temperatures[ho.temperature];
      const int kd = ho.key_dim, vd = ho.value_dim;
      hw.g_keys.setZero(kd, NT);
      hw.g_values.setZero(vd, NT);
      hw.g_q_cls.resize(kd, N);
      w.d_scores.resize(T, T);
      double g_beta = 0;
      for (int n = 0; n < N; ++n) {
        const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
        const double* g_a = column(w.g_concat_cls, n) + row;
        const double* p = column(hw.p_cls, n);
        double* dz = w.d_scores.data();
        // a = V_n p: dV_n += g_a pᵀ; dp = V_nᵀ g_a; then the softmax; z = β s, s_t = q·k_t.
        small_products::multiply(vd, 1, T, g_a, vd, p, 1, column(hw.g_values, base), vd, Start::Accumulate);
        small_products::multiply(1, vd, T, g_a, 1, column(hw.values, base), vd, dz, 1, Start::Zero);
        small_products::softmax_rows_backward(1, T, p, 1, dz, 1);  // one row: this sample's T weights
        const double* s = column(hw.s_cls, n);
        for (int t = 0; t < T; ++t) g_beta += dz[t] * s[t];
        for (int t = 0; t < T; ++t) dz[t] *= beta;  // now d/ds
        small_products::multiply(kd, T, 1, column(hw.keys, base), kd, dz, T, column(hw.g_q_cls, n), kd, Start::Zero);
        small_products::multiply(kd, 1, T, column(hw.q_cls, n), kd, dz, 1, column(hw.g_keys, base), kd,
                                 Start::Accumulate);
      }
      if (!last) {
        hw.g_q_tok.setZero(kd, NT);
        for (int n = 0; n < N; ++n) {
          const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
          const double* G = column(w.g_concat_tok, base) + row;  // vd × T, column τ: d/d(output of query τ)
          const double* P = column(hw.p_tok, base);              // query by row, as S
          double* dZ = w.d_scores.data();
          // Outputs V_n Pᵀ: dV_n += G P; dP = Gᵀ V_n; then each row's softmax; S = Q_nᵀ K_n.
          small_products::multiply(vd, T, T, G, lo.concat_dim, P, T, column(hw.g_values, base), vd, Start::Accumulate);
          transpose_block(w.g_concat_tok, row, vd, base, T, w.output_grads_transposed);
          small_products::multiply(T, vd, T, w.output_grads_transposed.data(), T, column(hw.values, base), vd, dZ, T,
                                   Start::Zero);
          small_products::softmax_rows_backward(T, T, P, T, dZ, T);
          g_beta += dot_in_key_major_order(T, dZ, column(hw.s_tok, base));
          for (int i = 0; i < T * T; ++i) dZ[i] *= beta;  // now d/dS
          small_products::multiply_transposed(kd, T, T, column(hw.keys, base), kd, dZ, T, column(hw.g_q_tok, base), kd);
          small_products::multiply(kd, T, T, column(hw.q_tok, base), kd, dZ, T, column(hw.g_keys, base), kd,
                                   Start::Accumulate);
        }
      }
      if (temperature_grad) temperature_grad[ho.temperature] += g_beta;
      add_weight_gradient(grad, ho.K, kd, E, hw.g_keys, lw.U_in);
      add_weight_gradient(grad, ho.V, vd, E, hw.g_values, lw.U_in);
      add_weight_gradient(grad, ho.Q, kd, E, hw.g_q_cls, lw.C_in);
      weight_transposed_times(params, ho.K, kd, E, hw.g_keys, w.g_U, true);
      weight_transposed_times(params, ho.V, vd, E, hw.g_values, w.g_U, true);
      weight_transposed_times(params, ho.Q, kd, E, hw.g_q_cls, w.g_C, true);
      if (!last) {
        add_weight_gradient(grad, ho.Q, kd, E, hw.g_q_tok, lw.U_in);
        weight_transposed_times(params, ho.Q, kd, E, hw.g_q_tok, w.g_U, true);
      }
      row += vd;
    }
  }
  // The first layer's CLS input is ĉ0 for every sample; its tokens are the encoder's output plus positions.
  small_products::add_row_sums(E, N, w.g_C.data(), E, grad + L_.cls0());
  add_position_gradients(grad, L_, T, w.g_U);
  batched_map_backward(params, L_.encoder(), block.X, w.g_U, w.encoder, grad, false);
  return total;
}

}  // namespace infoflow
