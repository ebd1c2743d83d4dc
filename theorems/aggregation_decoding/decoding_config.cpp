#include "theorems/aggregation_decoding/decoding_config.hpp"

#include "numerics/util/errors.hpp"
#include "theorems/aggregation_decoding/packing_bound.hpp"
#include "theorems/suite_options.hpp"

namespace infoflow {

std::vector<SuiteOption> decoding_options() {
  return {{"--T0", "numbers of aggregated tokens for the packing bound and the fits (each >= 1)"},
          {"--d", "token dimension d >= 1 for the packing bound (default 1)"},
          {"--E", "state dimensions (each between 1 and 8)"},
          {"--eps", "errors of the packing-bound sweep, each in (0, 1/3)"}};
}

DecodingConfig decoding_config(const SuiteContext& ctx) {
  DecodingConfig c;
  const bool quick = ctx.profile == Profile::Quick;
  const auto T0s = int_list_option(ctx, "--T0", 1, {1, 2, 3, 4});
  const int d = int_list_option(ctx, "--d", 1, {1}).front();
  const auto Es = int_list_option(ctx, "--E", 1, {1, 2});
  for (int E : Es)
    if (E > 8) throw InputError("--E", "expected state dimensions between 1 and 8, got " + std::to_string(E));
  c.packing_eps = double_list_option(ctx, "--eps", 0.0, 1.0 / 3.0, log_spaced(1e-3, 1e-8, quick ? 6 : 11));
  for (double e : c.packing_eps) validate_decoding_arguments(1, d, 1, e);
  for (int T0 : T0s)
    for (int E : Es) c.packing_shapes.push_back({T0, d, E});
  // Closest pairs: a shape with T0·d > E and one with T0·d <= E, grids up to 32^4 ≈ 1.05e6 configurations.
  // (3, 1, 2): N^(1/2) = g^(3/2) is not whole for g = 8, 32, so the lattice ratio leaves the top of its proven range.
  c.pair_shapes = {{4, 1, 2}, {2, 1, 2}, {3, 1, 2}, {3, 1, 1}};
  c.pair_eps = {1.0 / 12, 1.0 / 24, 1.0 / 48, 1.0 / 96};
  c.fit_T0 = T0s;
  c.fit_E = Es;
  // The decoder constructions at T0·d/E = 2 and 3 (d = 1 and d = 2); their widths grow as g^(2(r-1)), so the
  // largest g keeps each under ~10^4 units.
  c.constructions = {{{4, 1, 2}, {2, 3, 4, 6, 8, 12, 16}}, {{3, 2, 2}, {2, 3, 4, 5, 6}}};
  if (!quick) c.constructions = {{{4, 1, 2}, {2, 3, 4, 6, 8, 12, 16, 24, 32}}, {{3, 2, 2}, {2, 3, 4, 5, 6, 8, 10}},
                                 {{6, 1, 3}, {2, 3, 4, 6, 8, 12}}};
  // The fits are self-checks and diagnostics (the packing bound and the constructions decide Theorem 3).
  c.widths = quick ? std::vector<int>{2, 4, 8, 16} : std::vector<int>{2, 4, 8, 16, 32, 64};
  if (!quick) {
    c.train = 1500;
    c.valid = 800;
    c.restarts = 4;
    c.max_iterations = 200;
  }
  return c;
}

}  // namespace infoflow
