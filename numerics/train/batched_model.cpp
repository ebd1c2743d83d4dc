#include "numerics/train/batched_model.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
Eigen::Map<const RowMat> mat(const double* p, std::size_t off, int rows, int cols) {
  return Eigen::Map<const RowMat>(p + off, rows, cols);
}
Eigen::Map<RowMat> mat(double* p, std::size_t off, int rows, int cols) { return Eigen::Map<RowMat>(p + off, rows, cols); }

// Softmax of each column of Z in place (the shifted form of ForwardPass<double>).
void softmax_columns(Eigen::Ref<Eigen::MatrixXd> Z) {
  for (Eigen::Index c = 0; c < Z.cols(); ++c) {
    const double top = Z.col(c).maxCoeff();
    Z.col(c) = (Z.col(c).array() - top).exp();
    Z.col(c) /= Z.col(c).sum();
  }
}

// The softmax's reverse sweep for each column: dZ = P ∘ (dP − (P·dP)), in place of dP.
void softmax_backward_columns(const Eigen::Ref<const Eigen::MatrixXd>& P, Eigen::Ref<Eigen::MatrixXd> dP) {
  for (Eigen::Index c = 0; c < P.cols(); ++c) {
    const double mean = P.col(c).dot(dP.col(c));
    dP.col(c) = P.col(c).cwiseProduct((dP.col(c).array() - mean).matrix());
  }
}

}  // namespace

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
    if (!last) lw.concat_tok.resize(lo.concat_dim, NT);
    int row = 0;
    for (std::size_t h = 0; h < lo.heads.size(); ++h) {
      const HeadOffsets& ho = lo.heads[h];
      HeadWork& hw = lw.heads[h];
      const double beta = temperatures[ho.temperature];
      const auto Q = mat(params, ho.Q, ho.key_dim, E), K = mat(params, ho.K, ho.key_dim, E), V = mat(params, ho.V, ho.value_dim, E);
      hw.keys.noalias() = K * lw.U_in;
      hw.values.noalias() = V * lw.U_in;
      hw.q_cls.noalias() = Q * lw.C_in;
      hw.p_cls.resize(T, N);
      for (int n = 0; n < N; ++n) {
        const auto Kn = hw.keys.middleCols(static_cast<Eigen::Index>(n) * T, T);
        hw.p_cls.col(n).noalias() = beta * (Kn.transpose() * hw.q_cls.col(n));
      }
      softmax_columns(hw.p_cls);
      for (int n = 0; n < N; ++n)
        lw.concat_cls.col(n).segment(row, ho.value_dim).noalias() =
            hw.values.middleCols(static_cast<Eigen::Index>(n) * T, T) * hw.p_cls.col(n);
      if (!last) {
        hw.q_tok.noalias() = Q * lw.U_in;
        hw.p_tok.resize(T, NT);
        for (int n = 0; n < N; ++n) {
          const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
          hw.p_tok.middleCols(base, T).noalias() =
              beta * (hw.keys.middleCols(base, T).transpose() * hw.q_tok.middleCols(base, T));
        }
        softmax_columns(hw.p_tok);
        for (int n = 0; n < N; ++n) {
          const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
          lw.concat_tok.block(row, base, ho.value_dim, T).noalias() =
              hw.values.middleCols(base, T) * hw.p_tok.middleCols(base, T);
        }
      }
      row += ho.value_dim;
    }
    const auto WO = mat(params, lo.W_O, E, lo.concat_dim);
    w.C = lw.C_in;
    w.C.noalias() += WO * lw.concat_cls;
    if (!last) {
      w.U = lw.U_in;
      w.U.noalias() += WO * lw.concat_tok;
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
    const auto WO = mat(params, lo.W_O, E, lo.concat_dim);
    mat(grad, lo.W_O, E, lo.concat_dim).noalias() += w.g_C * lw.concat_cls.transpose();
    w.g_concat_cls.noalias() = WO.transpose() * w.g_C;
    if (!last) {
      mat(grad, lo.W_O, E, lo.concat_dim).noalias() += w.g_U * lw.concat_tok.transpose();
      w.g_concat_tok.noalias() = WO.transpose() * w.g_U;
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
      double g_beta = 0;
      Eigen::VectorXd dp(T);
      for (int n = 0; n < N; ++n) {
        const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
        const auto g_a = w.g_concat_cls.col(n).segment(row, vd);
        const auto Kn = hw.keys.middleCols(base, T);
        hw.g_values.middleCols(base, T).noalias() += g_a * hw.p_cls.col(n).transpose();
        dp.noalias() = hw.values.middleCols(base, T).transpose() * g_a;
        softmax_backward_columns(hw.p_cls.col(n), dp);                  // dp is now dz (z = β qᵀk)
        g_beta += dp.dot(Kn.transpose() * hw.q_cls.col(n));
        hw.g_q_cls.col(n).noalias() = beta * (Kn * dp);
        hw.g_keys.middleCols(base, T).noalias() += beta * (hw.q_cls.col(n) * dp.transpose());
      }
      if (!last) {
        hw.g_q_tok.resize(kd, NT);
        Eigen::MatrixXd dP(T, T);
        for (int n = 0; n < N; ++n) {
          const Eigen::Index base = static_cast<Eigen::Index>(n) * T;
          const auto G = w.g_concat_tok.block(row, base, vd, T);        // column τ: d/d(output of query τ)
          const auto P = hw.p_tok.middleCols(base, T);
          const auto Kn = hw.keys.middleCols(base, T), Qn = hw.q_tok.middleCols(base, T);
          hw.g_values.middleCols(base, T).noalias() += G * P.transpose();
          dP.noalias() = hw.values.middleCols(base, T).transpose() * G;
          softmax_backward_columns(P, dP);                               // dP is now dZ, Z = β Kᵀ Q
          g_beta += dP.cwiseProduct(Kn.transpose() * Qn).sum();
          hw.g_q_tok.middleCols(base, T).noalias() = beta * (Kn * dP);
          hw.g_keys.middleCols(base, T).noalias() += beta * (Qn * dP.transpose());
        }
      }
      if (temperature_grad) temperature_grad[ho.temperature] += g_beta;
      const auto Q = mat(params, ho.Q, kd, E), K = mat(params, ho.K, kd, E), V = mat(params, ho.V, vd, E);
      mat(grad, ho.K, kd, E).noalias() += hw.g_keys * lw.U_in.transpose();
      mat(grad, ho.V, vd, E).noalias() += hw.g_values * lw.U_in.transpose();
      mat(grad, ho.Q, kd, E).noalias() += hw.g_q_cls * lw.C_in.transpose();
      w.g_U.noalias() += K.transpose() * hw.g_keys;
      w.g_U.noalias() += V.transpose() * hw.g_values;
      w.g_C.noalias() += Q.transpose() * hw.g_q_cls;
      if (!last) {
        mat(grad, ho.Q, kd, E).noalias() += hw.g_q_tok * lw.U_in.transpose();
        w.g_U.noalias() += Q.transpose() * hw.g_q_tok;
      }
      row += vd;
    }
  }
  // The first layer's CLS input is ĉ0 for every sample; its tokens are the encoder's output plus positions.
  Eigen::Map<Eigen::VectorXd>(grad + L_.cls0(), E) += w.g_C.rowwise().sum();
  add_position_gradients(grad, L_, T, w.g_U);
  batched_map_backward(params, L_.encoder(), block.X, w.g_U, w.encoder, grad, false);
  return total;
}

}  // namespace infoflow
