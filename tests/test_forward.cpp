#include "numerics/model/forward.hpp"
#include "numerics/model/precision_consistency.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

TEST_CASE("double, mpfr:512 and arb:256 agree on random two-layer models", "[forward][precision]") {
  auto rng = test::rng_for("precision-agreement");
  for (int i = 0; i < 10 * test::multiplier(); ++i) {
    const Model m = random_model(feature_complete_architecture(3, 7, 6), rng, 0.9);
    const auto X = random_cube_sequence(1 + static_cast<int>(rng.uniform_index(6)), 3, rng);
    const PrecisionAgreement a = compare_precisions(m, X, 512, 256);
    INFO("case " << i << ": double " << a.y_double << ", mpfr " << a.y_mpfr << ", arb " << a.y_arb);
    REQUIRE(a.arb_contains_mpfr);
    REQUIRE(a.arb_radius < 1e-60);
    REQUIRE(a.double_relative_error < 1e-12);
  }
}

TEST_CASE("Parameter counts follow docs/theory.md §1 (dense FFN count)", "[forward]") {
  const Architecture a = feature_complete_architecture(3, 7, 6);
  const ParamLayout L(a);
  // encoder FFN 3->5->7, layer-0 FFN 7->6->7, readout FFN 7->4->1: p(in+1) + out(p+1) each.
  const std::size_t ffn = (5 * 4 + 7 * 6) + (6 * 8 + 7 * 7) + (4 * 8 + 1 * 5);
  REQUIRE(L.ffn_parameter_count() == ffn);
  const std::size_t attention = (2 + 2 + 3) * 7 + (3 + 3 + 2) * 7 + 7 * 5 + (2 + 2 + 2) * 7 + 7 * 2;
  REQUIRE(L.total_parameter_count() == ffn + attention + 6 * 7 /*positional*/ + 7 /*cls0*/);
  REQUIRE(L.temperature_count() == 3);
}

TEST_CASE("A one-layer model computes F(c0 + W_O a(c0)) by hand", "[forward]") {
  // d = 1, E = 2, u(t) = [x; 1], c0 = [0; 1]; one head: score β (c0·e2)(u·e1) = β x(t), value x(t).
  Architecture a;
  a.d = 1;
  a.E = 2;
  a.encoder = MapShape{MapKind::Affine, 1, 2, 0};
  a.layers = {LayerShape{{HeadShape{1, 1}}, 0}};
  a.readout = MapShape{MapKind::Affine, 2, 1, 0};
  Model m = make_model<double>(a);
  const ParamLayout L(a);
  auto& p = m.params;
  p[L.encoder().W + 0] = 1.0;  // W = [1; 0]
  p[L.encoder().b + 1] = 1.0;  // b = [0; 1]
  p[L.cls0() + 1] = 1.0;
  const auto& h = L.layers()[0].heads[0];
  p[h.Q + 1] = 1.0;  // Q = [0 1]
  p[h.K + 0] = 1.0;  // K = [1 0]
  p[h.V + 0] = 1.0;  // V = [1 0]
  p[L.layers()[0].W_O + 0] = 1.0;  // writes into slot 0
  p[L.readout().W + 0] = 1.0;
  m.temperatures[0] = 2.0;
  const std::vector<std::vector<double>> X{{0.2}, {0.9}, {0.5}};
  double num = 0, den = 0;
  for (const auto& x : X) num += std::exp(2.0 * x[0]) * x[0], den += std::exp(2.0 * x[0]);
  REQUIRE(forward(m, X).y == Approx(num / den).epsilon(1e-14));
  REQUIRE(forward(m, X).cls_state.size() == 2);
}

TEST_CASE("Softmax is evaluated stably at huge temperatures", "[forward]") {
  auto rng = test::rng_for("stable-softmax");
  Model m = random_model(feature_complete_architecture(2, 5, 4), rng);
  for (auto& b : m.temperatures) b = 1e6;
  const double y = forward(m, random_cube_sequence(4, 2, rng)).y;
  REQUIRE(std::isfinite(y));
}

TEST_CASE("Inputs of the wrong shape are rejected with the argument named", "[forward]") {
  auto rng = test::rng_for("bad-inputs");
  const Model m = random_model(feature_complete_architecture(2, 5, 4), rng);
  REQUIRE_THROWS_AS(forward(m, random_cube_sequence(5, 2, rng)), InputError);  // T > positional table
  REQUIRE_THROWS_AS(forward(m, random_cube_sequence(3, 3, rng)), InputError);  // wrong d
  REQUIRE_THROWS_AS(forward(m, std::vector<std::vector<double>>{}), InputError);
  Architecture bad = feature_complete_architecture(2, 5, 4);
  bad.layers.back().ffn_width = 3;  // the last layer has no FFN
  REQUIRE_THROWS_AS(ParamLayout(bad), InputError);
}

TEST_CASE("An overflow inside the forward pass is reported with its stage, even when the output is finite", "[forward]") {
  // A CLS weight of 1e10 under a temperature of 1e308 gives logits of ±inf: inf − inf in the softmax is NaN, which
  // a NaN-dropping ReLU turned into a finite wrong output. The pass says where the first non-finite state is.
  const Architecture a = test::one_layer_architecture(1, 2, 1, MapShape{MapKind::Ffn, 2, 1, 2});
  Model m = make_model<double>(a);
  const ParamLayout L(a);
  m.params[L.encoder().W] = 1.0;
  m.params[L.cls0()] = 1e10;
  const LayerOffsets& lo = L.layers()[0];
  m.params[lo.heads[0].Q] = m.params[lo.heads[0].K] = m.params[lo.heads[0].V] = 1.0;
  m.params[lo.W_O] = 1.0;
  m.temperatures[lo.heads[0].temperature] = 1e308;
  const ForwardResult<double> r = forward(m, L, Sequence<double>{{0.5}, {0.25}});
  CHECK(r.nonfinite_at == "layer 1");
  const auto hp = convert_model<mpfr::mpreal>(m, Precision{256});
  const ForwardResult<mpfr::mpreal> exact = forward(hp, L, convert_sequence<mpfr::mpreal>({{0.5}, {0.25}}, Precision{256}));
  CHECK(exact.nonfinite_at.empty());
  CHECK(mpfr::isfinite(exact.y));
}
