#include "numerics/lemmas/lipschitz_witness.hpp"

namespace infoflow {

ArbBall lipschitz_width_lower_bound(const ArbBall& eps, const ArbBall& A, int E) {
  return eps / (A * sqrt(ArbBall(static_cast<double>(E), eps.prec())));
}

WitnessCertificate certify_witness(const ModelT<double>& model, const std::vector<std::vector<double>>& X1,
                                   const std::vector<std::vector<double>>& X2, const ArbBall& F1, const ArbBall& F2,
                                   double eps, long prec) {
  const Precision p{prec};
  const auto m = convert_model<ArbBall>(model, p);
  const ParamLayout layout(m.arch);
  const auto s1 = forward(m, layout, convert_sequence<ArbBall>(X1, p)).cls_state;
  const auto s2 = forward(m, layout, convert_sequence<ArbBall>(X2, p)).cls_state;
  ArbBall dist2(0.0, prec);
  for (std::size_t i = 0; i < s1.size(); ++i) dist2 += (s1[i] - s2[i]) * (s1[i] - s2[i]);
  const ArbBall A = sqrt(dist2);
  const ArbBall gap = abs(F1 - F2);
  WitnessCertificate c;
  c.target_gap_lower = gap.lower();
  c.state_distance_upper = A.upper();
  const ArbBall three_eps = ArbBall(3.0, prec) * ArbBall(eps, prec);
  if (less_equal(three_eps, gap) != Tribool::True) {
    c.reason = "target gap not proven >= 3*eps";
    return c;
  }
  if (!(A.upper() > 0.0) || !A.is_finite()) {
    c.reason = "state distance not finite and positive";
    return c;
  }
  const ArbBall Aup(A.upper(), prec);
  c.width_lower_bound = lipschitz_width_lower_bound(ArbBall(eps, prec), Aup, model.arch.E).lower();
  c.valid = true;
  return c;
}

}  // namespace infoflow
