// Suite "thm1-depth-separation" (docs/theory.md §3, issue 3): the two-layer construction certified and swept over
// ε and T, then single-layer fits and witnesses as evidence for the single-layer lower bound.
#include "numerics/util/rng.hpp"
#include "theorems/common/certify_model.hpp"
#include "theorems/depth_separation/certify_construction.hpp"
#include "theorems/depth_separation/class_fits.hpp"
#include "theorems/depth_separation/class_lower_bound.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"
#include "theorems/depth_separation/construction_sweep.hpp"
#include "theorems/depth_separation/single_layer_evidence.hpp"

namespace infoflow {

SuiteInfo depth_separation_suite() {
  SuiteInfo s;
  s.id = "thm1-depth-separation";
  s.alias = "thm1";
  s.title = "Theorem 1: depth separation for min_{s,t} x(s).x(t)";
  s.options = depth_separation_options();
  s.validate = [](const SuiteContext& ctx) { (void)depth_separation_config(ctx); };
  s.run = [](const SuiteContext& ctx) {
    const DepthSeparationConfig cfg = depth_separation_config(ctx);
    SuiteResult r;
    run_construction_sweep(cfg, ctx, r);
    const SingleLayerStudy study = run_single_layer_evidence(cfg, ctx, r);
    if (!cfg.d1_control) {
      run_class_lower_bound(cfg, ctx, study, r);
      if (cfg.d == 2) run_class_fits(cfg, ctx, r);  // the completion family (the lower curve) is d = 2
      // `certify` (any model, no lemma) against the construction's lemma certificate, T·d = 4.
      const TwoLayerMinDotConstruction con(cfg.d, 2, 0.1);
      CertifyAgreementCase k;
      k.name = "construction T=2,d=" + std::to_string(cfg.d) + ",eps=0.1";
      k.model = con.model();
      k.target = "min_{s,t} dot(x[s], x[t])";
      k.T = 2;
      k.lemma_bound = certify_two_layer_min_dot(con.model(), 2).total;
      k.sampled_max = sampled_sup_error(con.model(), k.target, 2, 2000, derive_seed(ctx.seed, "certify-agreement"));
      r.checks.push_back(certify_agreement_check("certify.agrees-with-lemmas", {k}));
    }
    r.statement = "Stated (paper): a single-layer transformer needs Omega(eps^-k(T)) parameters for min_{s,t} x(s).x(t), "
                  "k(T) growing linearly in T; two layers with one head each need O(eps^-1). Derived (docs/theory.md §3): the "
                  "explicit two-layer construction has M_ffn ~ eps^-1/2 at every T. Certified for a whole class (docs/lower-bounds.md): "
                  "every single-layer model with h heads of value dimension n (any encoder, positions, scores) that reaches "
                  "eps on the completion family has readout L*R >= c eps^(1 - (T-1)/(h(n+1))); below the eps* of the "
                  "crossover table it needs more L*R than the two-layer construction uses: a certified depth separation "
                  "in readout L*R.";
    if (cfg.d1_control)
      r.notes.push_back("CONTROL RUN, d = 1: F = (min x)^2 is cheap for one layer, so no depth separation exists and "
                        "the single-layer evidence below is a control, not evidence for Theorem 1.");
    r.notes.push_back("Certified: the construction's sup error over the whole domain (arb, from the actual weights). "
                      "Sampled: MPFR errors on the families. Fitted: single-layer errors are validation maxima in "
                      "double on uniform, near-tie and face/corner inputs; they do not prove a lower bound.");
    return r;
  };
  return s;
}

}  // namespace infoflow
