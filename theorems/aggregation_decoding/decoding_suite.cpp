// Suite "thm3-aggregation-decoding" (docs/theory.md §5, issue 5).
#include "theorems/aggregation_decoding/decoding_evidence.hpp"

namespace infoflow {

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
    run_packing_bound(cfg, ctx, r);
    run_closest_pairs(cfg, ctx, r);
    run_decoder_fits(cfg, ctx, r);
    r.notes.push_back("Certified: the packing bound and each map's closest-pair width bound (arb). Exact: the closest "
                      "pair over every grid configuration (grid hashing, not sampling) and the linear map's kernel. "
                      "Fitted: decoder errors in double on fresh uniform inputs; evidence, not proof.");
    return r;
  };
  return s;
}

}  // namespace infoflow
