#include "numerics/model/architecture.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

namespace infoflow {

namespace {
void require(bool ok, const std::string& field, const std::string& expectation) {
  if (!ok) throw InputError(field, expectation);
}
void validate_map(const MapShape& m, const std::string& name, int in, int out) {
  require(m.in == in, name + ".in", "expected " + std::to_string(in) + ", got " + std::to_string(m.in));
  require(m.out == out, name + ".out", "expected " + std::to_string(out) + ", got " + std::to_string(m.out));
  if (m.kind == MapKind::Ffn) require(m.width >= 1, name + ".width", "expected an FFN width >= 1");
  else require(m.activation == Activation::Relu, name + ".activation", "an affine map has no activation (an FFN's)");
}
}  // namespace

void Architecture::validate() const {
  require(d >= 1, "d", "expected a token dimension >= 1, got " + std::to_string(d));
  require(E >= 1, "E", "expected a state dimension >= 1, got " + std::to_string(E));
  require(positions >= 0, "positions", "expected >= 0");
  require(!layers.empty(), "layers", "expected at least one layer");
  validate_map(encoder, "encoder", d, E);
  validate_map(readout, "readout", E, 1);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::string name = "layers[" + std::to_string(l) + "]";
    require(!layers[l].heads.empty(), name + ".heads", "expected at least one head");
    for (std::size_t h = 0; h < layers[l].heads.size(); ++h) {
      const auto& hs = layers[l].heads[h];
      const std::string hn = name + ".heads[" + std::to_string(h) + "]";
      require(hs.key_dim >= 1, hn + ".Q", "expected at least one row (n' >= 1)");
      require(hs.value_dim >= 1, hn + ".V", "expected at least one row (n >= 1)");
    }
    require(layers[l].ffn_width >= 0, name + ".ffn", "expected a width >= 0");
    require(layers[l].ffn_width > 0 || layers[l].ffn_activation == Activation::Relu, name + ".ffn.activation",
            "expected no activation without a token-wise FFN");
    require(l + 1 < layers.size() || layers[l].ffn_width == 0, name + ".ffn",
            "the last layer has no token-wise FFN (docs/theory.md §1: the readout follows it)");
  }
}

int Architecture::head_count() const {
  int n = 0;
  for (const auto& l : layers) n += static_cast<int>(l.heads.size());
  return n;
}

bool Architecture::uses_gelu() const {
  bool gelu = encoder.activation == Activation::Gelu || readout.activation == Activation::Gelu;
  for (const auto& l : layers) gelu = gelu || (l.ffn_width > 0 && l.ffn_activation == Activation::Gelu);
  return gelu;
}

std::size_t ParamLayout::add(const std::string& name, int rows, int cols, bool is_vector, TensorRole role) {
  TensorSpec t{name, rows, cols, is_vector, size_, role};
  tensors_.push_back(t);
  size_ += t.size();
  return t.offset;
}

MapOffsets ParamLayout::add_map(const std::string& prefix, const MapShape& s, TensorRole linear_role) {
  MapOffsets m;
  m.kind = s.kind;
  m.in = s.in;
  m.out = s.out;
  m.width = s.width;
  m.activation = s.activation;
  if (s.kind == MapKind::Affine) {
    m.W = add(prefix + ".W", s.out, s.in, false, linear_role);
    m.b = add(prefix + ".b", s.out, 1, true, linear_role);
  } else {
    m.W1 = add(prefix + ".W1", s.width, s.in, false, TensorRole::Ffn);
    m.b1 = add(prefix + ".b1", s.width, 1, true, TensorRole::Ffn);
    m.W2 = add(prefix + ".W2", s.out, s.width, false, TensorRole::Ffn);
    m.b2 = add(prefix + ".b2", s.out, 1, true, TensorRole::Ffn);
  }
  return m;
}

ParamLayout::ParamLayout(const Architecture& arch) : arch_(arch) {
  arch_.validate();
  encoder_ = add_map("encoder", arch_.encoder, TensorRole::Linear);
  if (arch_.positions > 0) positional_ = add("positional", arch_.positions, arch_.E, false, TensorRole::Embedding);
  cls0_ = add("cls0", arch_.E, 1, true, TensorRole::Embedding);
  for (std::size_t l = 0; l < arch_.layers.size(); ++l) {
    const auto& ls = arch_.layers[l];
    const std::string name = "layers[" + std::to_string(l) + "]";
    LayerOffsets lo;
    for (std::size_t h = 0; h < ls.heads.size(); ++h) {
      const auto& hs = ls.heads[h];
      const std::string hn = name + ".heads[" + std::to_string(h) + "]";
      HeadOffsets ho;
      ho.key_dim = hs.key_dim;
      ho.value_dim = hs.value_dim;
      ho.Q = add(hn + ".Q", hs.key_dim, arch_.E, false, TensorRole::Attention);
      ho.K = add(hn + ".K", hs.key_dim, arch_.E, false, TensorRole::Attention);
      ho.V = add(hn + ".V", hs.value_dim, arch_.E, false, TensorRole::Attention);
      ho.temperature = temperatures_++;
      lo.concat_dim += hs.value_dim;
      lo.heads.push_back(ho);
    }
    lo.W_O = add(name + ".W_O", arch_.E, lo.concat_dim, false, TensorRole::Attention);
    if (ls.ffn_width > 0) {
      lo.has_ffn = true;
      lo.ffn = add_map(name + ".ffn", MapShape{MapKind::Ffn, arch_.E, arch_.E, ls.ffn_width, ls.ffn_activation}, TensorRole::Ffn);
    }
    layers_.push_back(lo);
  }
  readout_ = add_map("readout", arch_.readout, TensorRole::Linear);
}

std::size_t ParamLayout::ffn_parameter_count() const {
  std::size_t n = 0;
  for (const auto& t : tensors_)
    if (t.role == TensorRole::Ffn || (t.role == TensorRole::Linear && mutated(Mutant::CountsAffineAsFfn))) n += t.size();
  return n;
}

}  // namespace infoflow
