// Uses the installed library: a certified bound in arb and a forward pass in double and in arb.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/model.hpp"

#include <cstdio>

int main() {
  using namespace infoflow;
  // One layer, one head, affine encoder and readout, all weights 1/2: y is finite and the same in double and arb.
  Architecture a;
  a.d = 2, a.E = 2;
  a.encoder = MapShape{MapKind::Affine, 2, 2, 0};
  a.layers = {LayerShape{{HeadShape{1, 1}}, 0}};
  a.readout = MapShape{MapKind::Affine, 2, 1, 0};
  Model m = make_model<double>(a);
  for (double& w : m.params) w = 0.5;
  const Sequence<double> X{{0.25, 0.5}, {1.0, 0.0}};
  const double y = forward(m, X).y;
  const ArbBall yb = forward(convert_model<ArbBall>(m, Precision{128}), convert_sequence<ArbBall>(X, Precision{128})).y;
  std::printf("dilution bound at T = 8, eps = 0.1: %.6f\n", dilution_lower_bound(8, 0.1, false));
  std::printf("forward: double %.17g, arb contains it: %s\n", y, yb.lower() <= y && y <= yb.upper() ? "yes" : "no");
  return 0;
}
