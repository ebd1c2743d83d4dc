#pragma once
// The shape of a transformer of docs/theory.md §1, independent of its weights and of the scalar type.
// Parameters live in one flat vector (so that Ceres fits, conversions between scalar types and
// the JSON format all share one layout); ParamLayout says where each tensor sits in it.
#include <cstddef>
#include <string>
#include <vector>

namespace infoflow {

enum class MapKind { Affine, Ffn };

/// The hidden units of an FFN: ReLU, max(x, 0), or GeLU, x·Φ(x) with Φ the standard normal distribution function
/// (the exact, erf form: x/2·(1 + erf(x/√2)); docs/theory.md §1).
enum class Activation { Relu, Gelu };

/// A token-wise map R^in -> R^out: affine (W x + b) or a two-layer FFN W2 σ(W1 x + b1) + b2 of the given width.
struct MapShape {
  MapKind kind = MapKind::Affine;
  int in = 0;
  int out = 0;
  int width = 0;  // FFN hidden width p; unused for Affine
  Activation activation = Activation::Relu;  // σ of an FFN; an affine map has none (Relu, the default)
};

struct HeadShape {
  int key_dim = 1;    // n': rows of Q and K
  int value_dim = 1;  // n: rows of V
};

struct LayerShape {
  std::vector<HeadShape> heads;
  int ffn_width = 0;  // width of the token-wise FFN after the layer; 0 = none. Never in the last layer.
  Activation ffn_activation = Activation::Relu;
};

struct Architecture {
  int d = 1;          // token dimension
  int E = 1;          // state dimension
  int positions = 0;  // rows of the positional table (the largest T it accepts); 0 = no positional term
  MapShape encoder;   // R^d -> R^E
  std::vector<LayerShape> layers;
  MapShape readout;   // R^E -> R

  /// Throws InputError naming the offending field when the shapes do not fit together.
  void validate() const;
  int head_count() const;
  /// Whether any FFN of the model has GeLU units (what assumes piecewise-linear maps refuses such a model).
  bool uses_gelu() const;
};

enum class TensorRole { Ffn, Linear, Attention, Embedding };

/// Where entry (r, c) of a row-major matrix with `cols` columns, stored from `offset`, sits in the flat
/// parameter vector. Every tensor of the layout is stored this way.
inline std::size_t row_major_index(std::size_t offset, int cols, int r, int c) {
  return offset + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c);
}

struct TensorSpec {
  std::string name;  // JSON path, e.g. "layers[0].heads[1].Q"
  int rows = 0;
  int cols = 0;      // 1 for vectors
  bool is_vector = false;
  std::size_t offset = 0;
  TensorRole role = TensorRole::Linear;
  std::size_t size() const { return static_cast<std::size_t>(rows) * cols; }
  std::size_t index(int r, int c) const { return row_major_index(offset, cols, r, c); }
};

struct MapOffsets {
  MapKind kind = MapKind::Affine;
  int in = 0, out = 0, width = 0;
  Activation activation = Activation::Relu;
  std::size_t W = 0, b = 0;                  // affine
  std::size_t W1 = 0, b1 = 0, W2 = 0, b2 = 0;  // ffn
};

struct HeadOffsets {
  int key_dim = 0, value_dim = 0;
  std::size_t Q = 0, K = 0, V = 0;
  std::size_t temperature = 0;  // index into the temperature vector
};

struct LayerOffsets {
  std::vector<HeadOffsets> heads;
  std::size_t W_O = 0;
  int concat_dim = 0;  // sum of value dims
  bool has_ffn = false;
  MapOffsets ffn;
};

class ParamLayout {
 public:
  explicit ParamLayout(const Architecture& arch);

  const Architecture& arch() const { return arch_; }
  std::size_t size() const { return size_; }
  std::size_t temperature_count() const { return temperatures_; }
  const std::vector<TensorSpec>& tensors() const { return tensors_; }

  const MapOffsets& encoder() const { return encoder_; }
  std::size_t positional() const { return positional_; }
  std::size_t cls0() const { return cls0_; }
  const std::vector<LayerOffsets>& layers() const { return layers_; }
  const MapOffsets& readout() const { return readout_; }

  /// Dense count of every FFN's weights and biases, p(in+1) + out(p+1) each (docs/theory.md §1, M_ffn).
  std::size_t ffn_parameter_count() const;
  /// Every parameter but the temperatures (M_total).
  std::size_t total_parameter_count() const { return size_; }

 private:
  std::size_t add(const std::string& name, int rows, int cols, bool is_vector, TensorRole role);
  MapOffsets add_map(const std::string& prefix, const MapShape& shape, TensorRole linear_role);

  Architecture arch_;
  std::vector<TensorSpec> tensors_;
  std::size_t size_ = 0;
  std::size_t temperatures_ = 0;
  MapOffsets encoder_;
  std::size_t positional_ = 0;
  std::size_t cls0_ = 0;
  std::vector<LayerOffsets> layers_;
  MapOffsets readout_;
};

}  // namespace infoflow
