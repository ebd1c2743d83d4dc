// Suite "thm3-aggregation-decoding" (docs/theory.md §5, issue 5).
#include "theorems/aggregation_decoding/decoding_evidence.hpp"
#include "theorems/suite.hpp"

namespace infoflow {

namespace {

// Every check's role (docs/claims.md). Evidence names its independent route; the rest guard the code or inform.
void classify_decoding(SuiteResult& r) {
  classify_checks(r, {
      {"closest-pairs.packing-bound-sharp-at-E1",
       evidence("packing_bound (delta_N, the claimed packing)", "closest_pair on the lattice map (exact, arb)",
                "the lattice map's exact closest pair over every grid configuration (grid hashing, re-verified in arb), "
                "against delta_N")},
      // The pigeonhole bound recomputed on instances, the kernel of a linear map, the fits' bookkeeping, and the
      // packing bound's slope against its own closed form.
      {"closest-pairs.at-least-packing-bound", kSelfCheck},
      {"linear-map.information-loss", kSelfCheck},
      {"decoders.learn", kSelfCheck},
      {"series:packing-width-*", kSelfCheck},
      {"decoders.plateau-iff-overloaded", kDiagnostic},
      {"series:decoder-kappa-vs-ratio", kDiagnostic},
  });
}

Claim decoding_claim() {
  const Claim c{
      .id = "thm3.decoding-lower",
      .source = "Theorem 3",
      .statement = "Decoding T0 tokens (each in R^d) aggregated into one E-dimensional state costs at least eps^(1 - T0 d/E) "
                   "parameters (significant when T0 d > E).",
      .scope = "every decoder with weights in [-1, 1] of every map into the unit ball of R^E: its width is at least "
               "eps/(delta_N sqrt E) (packing and L4, computed in arb); the computed delta_N is attained exactly by the "
               "lattice map at E = 1",
      .evidence = {"closest-pairs.packing-bound-sharp-at-E1"},
      .certifiable = true,
      .figure_check = "closest-pairs.packing-bound-sharp-at-E1",
  };
  return c;
}

}  // namespace

SuiteInfo aggregation_decoding_suite() {
  SuiteInfo s;
  s.id = "thm3-aggregation-decoding";
  s.alias = "thm3";
  s.title = "Theorem 3: decoding aggregated information";
  s.options = decoding_options();
  s.validate = [](const SuiteContext& ctx) { (void)decoding_config(ctx); };
  s.run = [](const SuiteContext& ctx) {
    const DecodingConfig cfg = decoding_config(ctx);
    SuiteResult r;
    r.statement = "Stated (paper): recovering T0 tokens of R^d from one E-dimensional state costs parameters scaling as "
                  "eps^(1 - T0 d/E). Derived (docs/theory.md §5): the packing bound, width >= eps/(delta_N sqrt E) with "
                  "delta_N = 2/(N^(1/E) - 1), N = floor(1/(3 eps))^(T0 d), for decoders with weights in [-1, 1].";
    // Stages (theorems/stage.hpp): each appends to r and reads only cfg and ctx.
    run_stage(ctx, r, "packing-bound", [&] { run_packing_bound(cfg, ctx, r); });
    run_stage(ctx, r, "closest-pairs", [&] { run_closest_pairs(cfg, ctx, r); });
    run_stage(ctx, r, "decoder-fits", [&] { run_decoder_fits(cfg, ctx, r); });
    classify_decoding(r);
    r.claims = {decoding_claim()};
    r.notes.push_back("Certified: the packing bound and each map's closest-pair width bound (arb). Exact: the closest "
                      "pair over every grid configuration (grid hashing, not sampling) and the linear map's kernel. "
                      "Fitted: decoder errors in double on fresh uniform inputs; evidence, not proof.");
    return r;
  };
  return s;
}

}  // namespace infoflow
