#pragma once
#include "numerics/model/model.hpp"
#include "numerics/util/rng.hpp"

namespace infoflow {

/// Weights uniform in [−scale, scale], temperatures uniform in [0.5, 2]: a generic model for
/// consistency tests (precision, formats, gradients).
inline Model random_model(const Architecture& arch, SplitMix64& rng, double scale = 1.0) {
  Model m = make_model<double>(arch);
  for (auto& w : m.params) w = rng.uniform(-scale, scale);
  for (auto& b : m.temperatures) b = rng.uniform(0.5, 2.0);
  return m;
}

/// A sequence of T tokens uniform in [0, 1]^d.
inline std::vector<std::vector<double>> random_cube_sequence(int T, int d, SplitMix64& rng) {
  std::vector<std::vector<double>> X(T, std::vector<double>(d));
  for (auto& x : X)
    for (auto& v : x) v = rng.uniform();
  return X;
}

/// A two-layer architecture with every feature on (FFN encoder, positional table, two heads,
/// token-wise FFN, FFN readout): the shape consistency tests exercise.
inline Architecture feature_complete_architecture(int d, int E, int T) {
  Architecture a;
  a.d = d;
  a.E = E;
  a.positions = T;
  a.encoder = MapShape{MapKind::Ffn, d, E, 5};
  a.layers = {LayerShape{{HeadShape{2, 3}, HeadShape{3, 2}}, 6}, LayerShape{{HeadShape{2, 2}}, 0}};
  a.readout = MapShape{MapKind::Ffn, E, 1, 4};
  return a;
}

/// The same architecture with every FFN's units GeLU.
inline Architecture with_gelu_units(Architecture a) {
  for (MapShape* m : {&a.encoder, &a.readout})
    if (m->kind == MapKind::Ffn) m->activation = Activation::Gelu;
  for (auto& l : a.layers)
    if (l.ffn_width > 0) l.ffn_activation = Activation::Gelu;
  return a;
}

}  // namespace infoflow
