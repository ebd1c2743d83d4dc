// Suite "thm1-depth-separation" (docs/theory.md §3, issue 3): the two-layer construction certified and swept over
// ε and T, then single-layer fits and witnesses as evidence for the single-layer lower bound.
#include "numerics/util/rng.hpp"
#include "theorems/suite.hpp"

#include <algorithm>
#include "theorems/common/certify_model.hpp"
#include "theorems/depth_separation/certify_construction.hpp"
#include "theorems/depth_separation/class_fits.hpp"
#include "theorems/depth_separation/class_lower_bound.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"
#include "theorems/depth_separation/construction_sweep.hpp"
#include "theorems/depth_separation/single_layer_evidence.hpp"

namespace infoflow {

namespace {

// Every check's role (docs/claims.md). Evidence names its independent route; the rest guard the code or inform.
void classify_depth_separation(SuiteResult& r) {
  classify_checks(r, {
      {"construction.certified-within-eps",
       evidence("the exported weights' sup error enclosed in arb lemma by lemma (L5 pieces, S(T, beta)), against the "
                "requested eps")},
      {"construction.sampled-below-certified",
       evidence("an MPFR forward pass of the exported weights on random, near-tie, face/corner and L1-worst-case "
                "inputs, against the certificate")},
      {"certify.agrees-with-lemmas",
       evidence("branch-and-bound over the whole input box (certify), a second implementation that uses no lemma")},
      {"class-bound.family-certified",
       evidence("every condition of the completion family decided in arb over the whole theta-box")},
      {"class-bound.family-sampled",
       evidence("the target computed directly (min over all pairs) at random, corner and grid points of the family")},
      {"class-bound.non-vacuous",
       evidence("the certified bound against the trivial bound that every model of the class satisfies")},
      {"depth-separation.certified",
       evidence("the certified class bound against the two-layer construction's L*R, computed from its exported weights")},
      {"depth-separation.parameters-certified",
       evidence("the certified least parameter count of the class with weights in [-1, 1] (from the certified L*R bound) "
                "against the two-layer construction's count from its architecture, its exported weights checked in "
                "[-1, 1]")},
      {"class-bound.realisability",
       evidence("single-layer models fitted to the completion family, and searched C1 tables (per-token weights and "
                "values, the McShane readout): their certified family error and L*R, against the certified bound at that "
                "error (one below would refute the derivation)")},
      {"dilution.tight-model",
       evidence("an explicit one-head model with zero error on the dilution family: its L*R computed from its weights")},
      {"dilution.fitted-models-respect",
       evidence("every fitted single-layer model's L*R from its weights, at its certified error on the dilution family "
                "(one below the bound would refute the derivation)")},
      {"class-fits.sandwich-ordered",
       evidence("certify's branch-and-bound sup error of each fitted [-1, 1] model, against the class bound at its L*R")},
      // The certificate's slack, the fits' own bookkeeping, and comparisons with the code's closed forms.
      {"construction.tightness", kSelfCheck},
      {"single-layer.fits-learn", kSelfCheck},
      {"single-layer.fit-routes-agree", kSelfCheck},
      {"class-bound.slope", kSelfCheck},
      {"class-fits.in-class", kSelfCheck},
      {"class-fits.cap-attained", kSelfCheck},
      // A bound for one fitted encoder and attention only: says nothing about the class; a pair that does not
      // re-verify in arb is a bug, so it guards the code.
      {"witnesses.certified", kSelfCheck},
      {"series:single-layer-kappa-vs-T-*", kDiagnostic},
  });
}

std::vector<Claim> depth_separation_claims(const DepthSeparationConfig& cfg) {
  const int T_max = cfg.class_bound.T.empty() ? 0 : *std::max_element(cfg.class_bound.T.begin(), cfg.class_bound.T.end());
  const Claim upper{
      .id = "thm1.two-layer-upper",
      .source = "Theorem 1 (upper half)",
      .statement = "A two-layer transformer with one head per layer approximates F(X) = min_{s,t} x(s).x(t) to within "
                   "eps with O(eps^-1) parameters, at every sequence length T.",
      .scope = "the explicit construction (docs/theory.md §3): its sup error over the whole domain [0,1]^{T*d}, "
               "certified <= eps from its exported weights at every (T, eps) of the sweep; M_ffn ~ eps^-1/2 at every T "
               "(an exact count, a construction fact)",
      .evidence = {"construction.certified-within-eps", "construction.sampled-below-certified", "certify.agrees-with-lemmas"},
      .certifiable = true,
  };

  const Claim lower{
      .id = "thm1.single-layer-lower-LR",
      .source = "Theorem 1 (lower half), in readout L*R",
      .statement = "Every single-layer transformer needs a cost that grows as eps -> 0: here the readout's Lipschitz "
                   "constant times the value norm, L*R >= c eps^(1 - (T-1)/(h(n+1))).",
      .scope = "the whole class C1(h, n): one layer, h heads of value dimension n, any encoder, positions and scores; "
               "certified in arb on the completion family (d = 2) and the dilution family, and never beaten by an "
               "explicit or fitted model",
      .evidence = {"class-bound.non-vacuous", "class-bound.family-certified", "class-bound.family-sampled",
                   "dilution.tight-model", "dilution.fitted-models-respect", "class-fits.sandwich-ordered",
                   "class-bound.realisability"},
      .certifiable = true,
  };

  const Claim exponent{
      .id = "thm1.exponent-linear-in-T",
      .source = "Theorem 1 (the exponent k(T))",
      .statement = "The single-layer cost exponent k(T) grows linearly in T.",
      .scope = "in readout L*R, as a lower bound: the certified bound's exponent (T-1)/(h(n+1)) - 1 is linear in T "
               "(proved in docs/lower-bounds.md §3) and the bound is certified non-vacuous at T = 5.." +
               std::to_string(T_max) + "; the fitted kappa(T) is shown beside it, as a diagnostic",
      .evidence = {"class-bound.non-vacuous", "class-bound.family-certified", "class-bound.family-sampled"},
      .certifiable = true,
  };

  const Claim separation{
      .id = "thm1.depth-separation-LR",
      .source = "Theorem 1 (depth separation), in readout L*R",
      .statement = "Depth separates: below some eps*, every single-layer model needs more than the two-layer "
                   "construction uses.",
      .scope = "in readout L*R, for C1(1, 1) at every T of the sweep with a growing bound: the certified class "
               "bound exceeds the construction's L*R at every grid eps below eps*",
      .evidence = {"depth-separation.certified"},
      .certifiable = true,
      .plot = T_max > 0 ? "class-bound-vs-construction-T" + std::to_string(T_max) : std::string(),
  };

  const Claim separation_params{
      .id = "thm1.depth-separation-params",
      .source = "Theorem 1 (depth separation), in parameters",
      .statement = "Depth separates in parameters: below some eps*, every single-layer model has more parameters than the "
                   "two-layer construction.",
      .scope = "weights in [-1, 1] (positional table included; temperatures free), C1(1, 1) at every T >= 6 of the sweep: "
               "the certified least parameter count exceeds the construction's count at every grid eps below eps*. "
               "Unbounded weights are not covered: one weight scaled up moves L*R at no cost in parameters",
      .evidence = {"depth-separation.parameters-certified"},
      .certifiable = true,
      .plot = T_max >= 6 ? "parameters-class-vs-construction-T" + std::to_string(T_max) : std::string(),
  };

  const Claim params{
      .id = "thm1.single-layer-lower-params",
      .source = "Theorem 1 (lower half), in parameters",
      .statement = "A single-layer transformer needs Omega(eps^-k(T)) parameters.",
      .undecided = "for weights in [-1, 1] the certified count grows like eps^(-kappa/2), kappa = (T-1)/(h(n+1)) - 1 "
                   "(thm1.depth-separation-params; docs/lower-bounds.md §6); without weight bounds L*R says nothing about "
                   "parameter counts, and the paper's k(T) is not derived here",
  };
  return {upper, lower, exponent, separation, separation_params, params};
}

}  // namespace

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
      k.seed = derive_seed(ctx.seed, "certify-enclosure-audit");
      r.checks.push_back(certify_agreement_check("certify.agrees-with-lemmas", {k}));
    }
    classify_depth_separation(r);
    r.claims = depth_separation_claims(cfg);
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
