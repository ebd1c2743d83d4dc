#pragma once
// The sum of squared residuals of a model with any number of layers (docs/theory.md §1) over a block of samples, and
// its gradient with respect to every weight and temperature, for the whole block at once (samples' tokens as matrix
// columns, Eigen). It generalises BatchedSingleLayer to the multi-layer models of the paper's experiments: in every
// layer but the last the tokens attend to each other (T×T softmax per sample and head), the attention output is added
// back through W_O, and an optional token-wise FFN is added on the tokens and on the CLS state; the CLS state attends
// to the tokens in every layer.
#include "numerics/train/batched_single_layer.hpp"

#include <Eigen/Dense>

#include <vector>

namespace infoflow {

/// Σ a(τ, t)·b(τ, t) over a T × T block stored query by row (entry (τ, t) at τ + t·T), added in the order in which
/// small_products::dot adds the same block stored key by row (entry (τ, t) at t + τ·T): eight partial sums over that
/// flat index mod 8, combined as dot combines them. The temperature's gradient was first summed that way; keeping the
/// order keeps every trained model the same bits (tests/test_trainer.cpp compares the two bit for bit).
double dot_in_key_major_order(int T, const double* a, const double* b);

class BatchedModel {
 public:
  explicit BatchedModel(const ParamLayout& layout);

  struct HeadWork {
    Eigen::MatrixXd keys, values;    // key_dim × NT, value_dim × NT
    Eigen::MatrixXd q_cls;           // key_dim × N: the CLS queries
    Eigen::MatrixXd q_tok;           // key_dim × NT: the token queries (layers but the last)
    Eigen::MatrixXd s_cls, p_cls;    // T × N: CLS scores q·k_t and softmax weights, column n for sample n
    // T × NT: block n holds the scores and the softmax weights of the tokens' attention, query by row and key by
    // column (entry (τ, t): query τ's score of key t, q_τ·k_t, and its weight), so that the softmax over the keys runs
    // along a row, with the queries side by side in the vector lanes (small_products::softmax_rows).
    Eigen::MatrixXd s_tok, p_tok;
    Eigen::MatrixXd g_keys, g_values, g_q_cls, g_q_tok;
  };
  struct LayerWork {
    Eigen::MatrixXd U_in, C_in;            // states entering the layer: E × NT, E × N
    Eigen::MatrixXd U_mid, C_mid;          // after the attention residual, before the FFN
    Eigen::MatrixXd concat_cls, concat_tok;
    std::vector<HeadWork> heads;
    BatchedSingleLayer::MapWork ffn_tok, ffn_cls;
  };
  struct Workspace {
    BatchedSingleLayer::MapWork encoder, readout;
    std::vector<LayerWork> layers;
    Eigen::MatrixXd U, C, g_U, g_C, g_concat_cls, g_concat_tok, g_y;
    Eigen::MatrixXd queries_transposed;        // per sample: Q_nᵀ (T × key_dim)
    Eigen::MatrixXd output_grads_transposed;   // per sample: G_nᵀ = (d/d(V_n Pᵀ))ᵀ (T × value_dim)
    Eigen::MatrixXd d_scores;                  // per sample: d/dS in the layout of s_tok (T × T)
  };

  /// Σ_n (ŷ_n − y_n)² over the block; with `grad`, adds d/dθ into grad[0 .. size) and, with `temperature_grad`, d/dβ.
  double sse(const double* params, const double* temperatures, const SampleBlock& block, Workspace& work, double* grad,
             double* temperature_grad) const;

  const ParamLayout& layout() const { return L_; }

 private:
  const ParamLayout& L_;
};

}  // namespace infoflow
