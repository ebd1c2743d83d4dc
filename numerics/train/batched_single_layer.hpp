#pragma once
// The sum of squared residuals of a single-layer model over a block of samples, and its gradient with respect to
// every weight and temperature, computed for the whole block at once: the samples' tokens are the columns of one
// matrix, so every linear map is one matrix product (Eigen), and the reverse sweep is the same products transposed.
// This is what makes first-order training fast on these small models: the per-sample route
// (numerics/fit/single_layer_gradient.cpp) spends its time in small loops and allocations.
//
// Any single-layer architecture of docs/theory.md §1: affine or FFN encoder, optional positions, any number of heads of
// any key and value dimension, affine or FFN readout. A Workspace holds every intermediate; once it has seen a block
// size it allocates nothing more.
#include "numerics/model/model.hpp"

#include <Eigen/Dense>

#include <optional>
#include <vector>

namespace infoflow {

/// A block of samples, all of sequence length T: column n·T + t of X is token t of sample n.
struct SampleBlock {
  int T = 0;
  Eigen::MatrixXd X;  // d × (N·T)
  Eigen::VectorXd y;  // N targets
  int count() const { return static_cast<int>(y.size()); }
};

/// Packs samples [begin, end) of sequences `X` (all of length T, tokens of dimension d) into `block` (reusing its
/// storage). Throws InputError when the sequences are ragged or the dimensions differ.
void pack_samples(const std::vector<std::vector<std::vector<double>>>& X, const std::vector<double>& y,
                  const std::vector<std::size_t>& indices, SampleBlock& block);
/// Packs every sample, in order.
void pack_samples(const std::vector<std::vector<std::vector<double>>>& X, const std::vector<double>& y, SampleBlock& block);

class BatchedSingleLayer {
 public:
  /// Throws ContractError unless `layout` describes a single-layer model.
  explicit BatchedSingleLayer(const ParamLayout& layout);

  /// The intermediates of one block, kept between calls so that nothing is allocated once the block size is known.
  struct MapWork {
    Eigen::MatrixXd hidden, out, g_hidden, g_in;  // hidden: the FFN's units' output
    Eigen::MatrixXd hidden_slope;                 // GeLU units only: σ' at each pre-activation
  };
  struct HeadWork {
    Eigen::VectorXd q, g_q;
    Eigen::MatrixXd keys, values, g_keys, g_values;  // key_dim × NT, value_dim × NT
    Eigen::RowVectorXd scores, weights;              // 1 × NT: q·k_t, and the softmax per sample
    Eigen::RowVectorXd g_scores;                     // 1 × NT: d(loss)/d(q·k_t)
  };
  struct Workspace {
    MapWork encoder, readout;
    Eigen::MatrixXd U, g_U;              // E × NT: token states
    std::vector<HeadWork> heads;
    Eigen::MatrixXd concat, g_concat;    // concat_dim × N
    Eigen::MatrixXd cls, g_cls;          // E × N
    Eigen::MatrixXd g_y;                 // 1 × N
  };

  /// Σ_n (ŷ_n − y_n)² over the block. When `grad` is non-null, adds d/dθ of that sum into grad[0 .. size) and, when
  /// `temperature_grad` is non-null, d/dβ into temperature_grad[0 .. temperature_count).
  double sse(const double* params, const double* temperatures, const SampleBlock& block, Workspace& work, double* grad,
             double* temperature_grad) const;

  const ParamLayout& layout() const { return L_; }

 private:
  const ParamLayout& L_;
};

/// Throws InputError when the block's tokens are not of the model's dimension or longer than its positional table.
void check_block(const Architecture& a, const SampleBlock& block);
/// Column n·T + t of U gets the positional row t (nothing when the model has no positions); and the reverse.
void add_positions(const double* params, const ParamLayout& L, int T, Eigen::MatrixXd& U);
void add_position_gradients(double* grad, const ParamLayout& L, int T, const Eigen::MatrixXd& g_U);

/// The readout on the final CLS states (E × N) and the block's Σ r². When a gradient is wanted (grad non-null, or
/// temperatures_wanted), also the start of the reverse sweep: the readout's parameter gradients into grad (into
/// scratch when grad is null; grad then points there) and d/d(CLS) into readout.g_in. Afterwards grad is non-null
/// exactly when the caller must continue the reverse sweep.
double readout_and_loss(const double* params, const ParamLayout& L, const Eigen::MatrixXd& cls, const Eigen::VectorXd& y,
                        BatchedSingleLayer::MapWork& readout, Eigen::MatrixXd& g_y, double*& grad,
                        bool temperatures_wanted, std::vector<double>& scratch);

/// The products with a weight matrix W (rows × cols, row-major at params + off, as numerics/model stores it), through
/// the kernels of small_products.hpp. out = W·X + b when `bias_off` is given (b, `rows` entries at params + bias_off),
/// W·X otherwise; then max(·, 0) entrywise when `relu`.
void weight_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& X,
                  Eigen::MatrixXd& out, std::optional<std::size_t> bias_off = std::nullopt, bool relu = false);
/// out += W·X (out must be rows × X.cols()).
void add_weight_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& X,
                      Eigen::MatrixXd& out);
/// out = Wᵀ·G, or out += Wᵀ·G when `accumulate` (out must then be cols × G.cols()).
void weight_transposed_times(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                             Eigen::MatrixXd& out, bool accumulate = false);
/// out = (Wᵀ·G) ∘ [relu_output > 0]: the reverse sweep of out' = max(W'·x + b, 0) through its ReLU.
void weight_transposed_times_gated(const double* params, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                                   const Eigen::MatrixXd& relu_output, Eigen::MatrixXd& out);
/// The gradient of W in grad[off ..] += G·Xᵀ, for G rows × n and X cols × n; with `bias_off`, also the bias's,
/// grad[bias_off ..] += the row sums of G.
void add_weight_gradient(double* grad, std::size_t off, int rows, int cols, const Eigen::MatrixXd& G,
                         const Eigen::MatrixXd& X, std::optional<std::size_t> bias_off = std::nullopt);

/// For each of `columns` consecutive blocks of T entries of s: p = softmax(β s) over the block, shifted by its maximum
/// as ForwardPass<double> is, with the exponentials of small_products.hpp.
void softmax_blocks(double beta, const double* s, int T, std::int64_t columns, double* p);

/// Y = map(X) over the columns of X (an affine map or an FFN of the layout), keeping what the reverse sweep needs.
void batched_map_forward(const double* params, const MapOffsets& m, const Eigen::MatrixXd& X,
                         BatchedSingleLayer::MapWork& w);
/// Given g_out = d(loss)/d(out), adds the map's parameter gradients into grad and, when want_input, writes d/dX into
/// w.g_in.
void batched_map_backward(const double* params, const MapOffsets& m, const Eigen::MatrixXd& X, const Eigen::MatrixXd& g_out,
                          BatchedSingleLayer::MapWork& w, double* grad, bool want_input);

}  // namespace infoflow
