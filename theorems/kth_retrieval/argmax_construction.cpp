#include "theorems/kth_retrieval/argmax_construction.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/lemmas/gibbs.hpp"
#include "numerics/util/errors.hpp"

#include <cmath>

namespace infoflow {

namespace {
Architecture argmax_architecture() {
  Architecture a;
  a.d = 1;
  a.E = 2;
  a.encoder = MapShape{MapKind::Affine, 1, 2, 0};
  a.layers = {LayerShape{{HeadShape{1, 1}}, 0}};
  a.readout = MapShape{MapKind::Affine, 2, 1, 0};
  return a;
}
// The exact weights, as (tensor offset, value) pairs; every other weight is zero.
std::vector<std::pair<std::size_t, double>> argmax_weights(const ParamLayout& L) {
  const auto& h = L.layers()[0].heads[0];
  return {{L.encoder().W + 0, 1.0}, {L.encoder().b + 1, 1.0}, {L.cls0() + 1, 1.0}, {h.Q + 1, 1.0},
          {h.K + 0, 1.0},           {h.V + 0, 1.0},           {L.layers()[0].W_O + 0, 1.0}, {L.readout().W + 0, 1.0}};
}
}  // namespace

OneHeadArgmaxConstruction::OneHeadArgmaxConstruction(int T, double eps) {
  if (T < 1) throw ContractError("OneHeadArgmaxConstruction", "T: expected a sequence length T >= 1, got " + std::to_string(T));
  if (!(eps > 0.0 && eps < 1.0)) throw ContractError("OneHeadArgmaxConstruction", "eps: expected 0 < eps < 1, got " + std::to_string(eps));
  const double s1 = gibbs_excess_sup(T, ArbBall(1.0, 128)).upper();
  beta_ = T == 1 ? 1.0 : std::nextafter(s1 / eps * (1.0 + 1e-12), INFINITY);
  if (mutated(Mutant::ArgmaxBetaHalved)) beta_ /= 2;
  model_ = make_model<double>(argmax_architecture());
  const ParamLayout L(model_.arch);
  for (const auto& [off, v] : argmax_weights(L)) model_.params[off] = v;
  model_.temperatures[0] = beta_;
}

ArgmaxCertificate certify_argmax_retrieval(const Model& model, int T, long prec) {
  ArgmaxCertificate c;
  const Architecture& a = model.arch;
  if (a.d != 1 || a.E != 2 || a.positions != 0 || a.layers.size() != 1 || a.layers[0].heads.size() != 1 ||
      a.layers[0].heads[0].key_dim != 1 || a.layers[0].heads[0].value_dim != 1 || a.encoder.kind != MapKind::Affine ||
      a.readout.kind != MapKind::Affine) {
    c.violations.push_back("architecture: not the one-head arg-max shape (d = 1, E = 2, affine encoder and readout)");
    return c;
  }
  const ParamLayout L(a);
  std::vector<double> want(L.size(), 0.0);
  for (const auto& [off, v] : argmax_weights(L)) want[off] = v;
  for (const auto& t : L.tensors())
    for (std::size_t i = 0; i < t.size(); ++i)
      if (model.params[t.offset + i] != want[t.offset + i]) {
        c.violations.push_back(t.name + "[" + std::to_string(i) + "] = " + std::to_string(model.params[t.offset + i]) +
                               ", the score/value hypothesis needs " + std::to_string(want[t.offset + i]));
        break;
      }
  const double beta = model.temperatures[0];
  if (!(beta > 0)) c.violations.push_back("temperature must be > 0");
  if (!c.violations.empty()) return c;
  // With score = value = x(t), ŷ is the Gibbs mean (weights ∝ e^{βx}) of the values: L1 in max form.
  c.bound = gibbs_excess_sup(T, ArbBall(beta, prec)).upper();
  c.bound_simple = gibbs_excess_simple_bound(T, ArbBall(beta, prec)).upper();
  c.hypotheses_ok = true;
  return c;
}

}  // namespace infoflow
