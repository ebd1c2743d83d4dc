#include "theorems/common/certify_checks.hpp"

#include "numerics/certify/certify_model.hpp"

#include "numerics/certify/double_execution.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/target/target_eval.hpp"
#include "numerics/util/rng.hpp"
#include "numerics/util/mutation.hpp"
#include "reports/result.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

double sampled_sup_error(const Model& model, const std::string& target, int T, int count, std::uint64_t seed) {
  const ParsedTarget t = parse_target(target);
  check_target_evaluable(t, T, model.arch.d);
  SplitMix64 rng(seed);
  const ParamLayout layout(model.arch);
  double worst = 0;
  for (int i = 0; i < count; ++i) {
    const auto X = random_cube_sequence(T, model.arch.d, rng);
    worst = std::max(worst, std::fabs(forward(model, layout, X).y - evaluate_target(t, X, Precision{53})));
  }
  return worst;
}

Check certify_agreement_check(const std::string& id, const std::vector<CertifyAgreementCase>& cases) {
  // The check's own computation: the branch-and-bound and its audits. The cases (models, lemma bounds, sampled
  // errors) are what it judges, made by the caller.
  const CheckComputation own(id);
  Check c;
  c.id = id;
  c.grade = Grade::Certified;
  c.statement = "Two routes to a construction's sup error agree: the branch-and-bound interval [lower, upper] of `certify` "
                "(any model, no lemma) has lower <= the lemma-composed certificate and upper >= every sampled error, and "
                "its proof certificate verifies (every leaf re-enclosed by the checker is below upper); and "
                "the search's box enclosures (natural and mean-value form) contain the point values at random points of "
                "random boxes, wide and narrow, and its gradient enclosures contain derivatives taken by central "
                "differences in arb at random points";
  c.bound = "lower <= lemma certificate, upper >= sampled maximum, the search's proof certificate verified, no point "
            "value outside its box's enclosure, no derivative outside its gradient enclosure";
  c.verdict = Verdict::Pass;
  long audited = 0, violations = 0, derivatives = 0, gradient_violations = 0;
  for (const auto& k : cases) {
    CertifyRequest q;
    q.target = k.target;
    q.T = k.T;
    q.d = k.model.arch.d;
    q.budget_seconds = 3600;  // the box budget decides (determinism); this only guards against a hang
    q.max_boxes = k.max_boxes;
    q.relative_gap = 1e-3;
    // The search held to its proof: every leaf of its split tree re-enclosed by the checker must be below U. (With the
    // local search, L is close to the sup, so a search whose box bounds are too low can still end with U >= every
    // sampled error; its leaves cannot hide that.)
    q.verify_proof = true;
    const CertifyReport rep = certify_model(convert_model<mpfr::mpreal>(k.model, Precision{256}), q);
    const bool lower_ok = rep.result.lower <= k.lemma_bound;
    const bool upper_ok = rep.result.upper >= k.sampled_max;
    const bool proof_ok = rep.certificate_check && rep.certificate_check->verified();
    c.measured[k.name] = {{"bnb_lower", rep.result.lower},
                          {"bnb_upper", rep.result.upper},
                          {"lemma_certificate", k.lemma_bound},
                          {"sampled_max", k.sampled_max},
                          {"bnb_upper_over_lemma", rep.result.upper / k.lemma_bound},
                          {"bnb_lower_over_lemma", rep.result.lower / k.lemma_bound},
                          {"boxes", rep.result.boxes},
                          {"stopped_by", rep.result.stopped_by},
                          {"attained_at", rep.result.argmax},
                          {"proof_leaves", rep.certificate_check ? rep.certificate_check->verdict.leaves : 0},
                          {"proof_verified", proof_ok}};
    // The search's soundness, point by point: its enclosures against values at points inside the boxes.
    const EnclosureAudit audit = audit_box_enclosures(k.model, k.target, k.T, 300, 8, k.seed);
    c.measured[k.name]["enclosure_audit"] = {{"boxes", audit.boxes}, {"points", audit.points},
                                             {"outside", audit.violations}, {"worst_excess", audit.worst_excess}};
    // The gradient enclosures the mean-value form rests on, against derivatives by central differences in arb: a
    // derivative dropped or shrunk in the dual balls (which the value audit above catches only thinly) shows here.
    const GradientAudit gradients = audit_gradient_enclosures(k.model, k.target, k.T, 40, k.seed + 1);
    c.measured[k.name]["gradient_audit"] = {{"derivatives", gradients.derivatives}, {"outside", gradients.violations},
                                            {"worst_excess", gradients.worst_excess}};
    audited += audit.points;
    violations += audit.violations;
    gradient_violations += gradients.violations;
    derivatives += gradients.derivatives;
    if (!lower_ok || !upper_ok || !proof_ok || audit.violations > 0 || gradients.violations > 0) c.verdict = Verdict::Fail;
  }
  c.compared = static_cast<long>(cases.size());
  c.figure = std::to_string(cases.size()) + " construction(s): lower <= lemma certificate, upper >= sampled; " +
             std::to_string(violations) + " of " + std::to_string(audited) + " point values outside their box's enclosure, " +
             std::to_string(gradient_violations) + " of " + std::to_string(derivatives) +
             " central differences outside their gradient enclosure";
  return c;
}

// One head y = Σ_t softmax_t(5000·1000·(1000 a_t)) · 1000 b_t over tokens (a, b): where a_1 and a_2 are a few ulps
// apart, the exact logit gap is about its own rounding (ulp(2.5e9) ≈ 5e-7), and the double output is off by ~1e-4.
Model near_tie_head() {
  Architecture a;
  a.d = 2, a.E = 3;
  a.encoder = MapShape{MapKind::Affine, 2, 3, 0};
  a.layers = {LayerShape{{HeadShape{1, 1}}, 0}};
  a.readout = MapShape{MapKind::Affine, 3, 1, 0};
  Model m = make_model<double>(a);
  const ParamLayout L(a);
  const LayerOffsets& lo = L.layers()[0];
  m.params[row_major_index(L.encoder().W, 2, 0, 0)] = 1.0;     // u = (a, 1000 b, 0)
  m.params[row_major_index(L.encoder().W, 2, 1, 1)] = 1000.0;
  m.params[L.cls0() + 2] = 1.0;                                // ĉ0 = (0, 0, 1)
  m.params[row_major_index(lo.heads[0].Q, 3, 0, 2)] = 1000.0;  // q = 1000
  m.params[row_major_index(lo.heads[0].K, 3, 0, 0)] = 1000.0;  // k = 1000 a
  m.params[row_major_index(lo.heads[0].V, 3, 0, 1)] = 1.0;     // v = 1000 b
  m.params[row_major_index(lo.W_O, 1, 0, 0)] = 1.0;
  m.params[row_major_index(L.readout().W, 3, 0, 0)] = 1.0;
  m.temperatures[0] = 5000.0;
  return m;
}

Check rounding_bound_check(const std::string& id, const std::vector<RoundingCase>& cases) {
  Check c;
  c.id = id;
  c.grade = Grade::Certified;
  c.statement = "The certified bound on the float64 forward pass's rounding (certify --execution double) covers the "
                "rounding observed against 256-bit MPFR: over the whole box, and on the degenerate box of the worst "
                "input found, where the analysis is tightest (docs/certify.md §2.1)";
  c.bound = "largest observed |double - MPFR| <= certified bound, on the box and at the input";
  c.verdict = Verdict::Pass;
  for (const RoundingCase& k : cases) {
    const ObservedRounding seen = observed_double_rounding(k.model, k.T, 0.0, 1.0, k.samples, k.seed);
    const double over_box = double_execution_error_bound(k.model, k.T, 0.0, 1.0).output_error;
    const double at_input = double_execution_error_bound(k.model, k.T, seen.at, seen.at).output_error;
    c.measured[k.name] = {{"observed", bound_to_json(seen.largest)},
                          {"observed_at", seen.at},
                          {"bound_over_box", bound_to_json(over_box)},
                          {"bound_at_input", bound_to_json(at_input)},
                          // (a model that rounds nowhere has no ratio: inf or nan, written as strings)
                          {"box_over_observed", bound_to_json(over_box / seen.largest)},
                          {"input_over_observed", bound_to_json(at_input / seen.largest)}};
    if (!(seen.largest <= over_box && seen.largest <= at_input)) c.verdict = Verdict::Fail;
  }
  c.figure = std::to_string(cases.size()) + " model(s): the largest observed rounding within the certified bound, "
             "over the box and at its input";
  return c;
}

}  // namespace infoflow
