#include "theorems/depth_separation/depth_separation_config.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"

#include <sstream>

#include "numerics/util/errors.hpp"
#include "theorems/suite_options.hpp"

namespace infoflow {

std::vector<SuiteOption> depth_separation_options() {
  return {{"--d", "token dimension d >= 2 (default 2); d = 1 only with --d1-control yes"},
          {"--d1-control", "yes: allow d = 1 as a labelled control (no separation there: F = (min x)^2 is cheap)"},
          {"--T", "sequence lengths of the construction sweep, e.g. 2,4,8 (each >= 1)"},
          {"--eps", "target errors of the construction sweep, each in (0, 1)"},
          {"--fit-T", "sequence lengths of the single-layer fits (each >= 1)"},
          {"--p", "FFN widths of the single-layer fits (each >= 1)"},
          {"--n", "per-head dimensions of the single-layer fits (each >= 1)"},
          {"--class-T", "sequence lengths of the certified class lower bound, each in [3, 12] (default 3..9)"},
          {"--class-fit-T", "sequence lengths of the [-1,1] class fits and their sandwich, each in [3, 12] (default 3,4,5)"},
          {"--class-fit-p", "FFN widths of the [-1,1] class fits (each in [1, 256]; default 1,2,3,4,6,8,16,32)"}};
}

DepthSeparationConfig depth_separation_config(const SuiteContext& ctx) {
  DepthSeparationConfig c;
  const bool quick = ctx.profile == Profile::Quick;
  c.d = int_list_option(ctx, "--d", 1, {2}).front();
  // For d = 1, F = (min_t x(t))^2, which one head with a decreasing score and an L5 square computes
  // cheaply: there is no separation to check. It runs only as a labelled control.
  const auto control = ctx.options.find("--d1-control");
  c.d1_control = control != ctx.options.end() && control->second == "yes";
  if (control != ctx.options.end() && !control->second.empty() && control->second != "yes")
    throw InputError("--d1-control", "expected yes, got '" + control->second + "'");
  if (c.d < 2 && !c.d1_control)
    throw InputError("--d", "expected d >= 2 (for d = 1 the target is (min x)^2, cheap for one layer: no depth "
                            "separation); run d = 1 only as a control with --d1-control yes");
  c.construction_T = int_list_option(ctx, "--T", 1, quick ? std::vector<int>{2, 4, 8, 16, 64} : std::vector<int>{2, 4, 8, 16, 64, 256});
  c.eps = double_list_option(ctx, "--eps", 0.0, 1.0, quick ? log_spaced(1e-1, 1e-3, 5) : log_spaced(1e-1, 1e-5, 9));
  for (const double eps : c.eps)
    if (eps < TwoLayerMinDotConstruction::smallest_eps(c.d)) {
      std::ostringstream e;
      e << "expected eps >= " << TwoLayerMinDotConstruction::smallest_eps(c.d) << " at d = " << c.d << ", got " << eps
        << " (a smaller eps needs a construction wider than " << TwoLayerMinDotConstruction::kMaxFfnWidth << " FFN units)";
      throw InputError("--eps", e.str());
    }
  // The fits carry no claim (docs/lower-bounds.md §7: below the continuity floor a continuous model cannot trace an
  // exponent); the quick profile keeps a few for the diagnostics and the floor's witnesses.
  c.fit_T = int_list_option(ctx, "--fit-T", 1, quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 3, 4, 6, 8});
  c.head_dims = int_list_option(ctx, "--n", 1, quick ? std::vector<int>{1} : std::vector<int>{1, 2});
  auto& s = c.study;
  s.tag = "thm1";
  s.d = c.d;
  s.E = 4;
  s.widths = int_list_option(ctx, "--p", 1, quick ? std::vector<int>{2, 8, 32} : std::vector<int>{2, 4, 8, 16, 32});
  // The full and nightly sizes take about ten minutes on 2 cores.
  s.train_samples = quick ? 800 : 1500;
  s.valid_samples = quick ? 400 : 800;
  s.restarts = quick ? 3 : 4;
  s.max_iterations = quick ? 150 : 200;
  // Beside each LM restart, AdamW from the same start (docs/training.md, "The suites' fits"): lower validation errors at
  // most points of the quick profile, never higher. 500 quick steps: the quick fits take 0.90 of the time LM alone took
  // (docs/training.md has the measured trade-off).
  s.adam_steps = quick ? 500 : 2000;
  s.witness_candidates = quick ? 600 : 2000;
  s.witness_refine = quick ? 3 : 6;
  auto& cb = c.class_bound;
  cb.T = int_list_option(ctx, "--class-T", 3, quick ? std::vector<int>{3, 4, 5, 6, 7, 8, 9}
                                                     : std::vector<int>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  for (int T : cb.T)
    if (T > 12) throw InputError("--class-T", "expected each T in [3, 12] (the family search is cubic in T)");
  cb.eps = log_spaced(1e-2, 1e-8, quick ? 7 : 13);
  // Four per decade down to the smallest eps the construction is built at (`thm1 --eps` accepts every eps the report
  // uses); below 1e-5 its L*R is certified by the lemma chain rather than from built weights.
  for (double eps : log_spaced(1e-1, 1e-12, 45))
    if (eps >= TwoLayerMinDotConstruction::smallest_eps(c.d)) cb.crossover_eps.push_back(eps);
  cb.family_samples = quick ? 200 : 1000;
  if (!quick) c.samples_per_family = ctx.profile == Profile::Full ? 12 : 20;
  auto& cf = c.class_fits;
  cf.T = int_list_option(ctx, "--class-fit-T", 3, {3, 4, 5});
  for (int T : cf.T)
    if (T > 12) throw InputError("--class-fit-T", "expected each T in [3, 12] (the completion family is certified up to 12)");
  // Eight widths over 1.5 decades (1 to 32).
  cf.widths = int_list_option(ctx, "--class-fit-p", 1, {1, 2, 3, 4, 6, 8, 16, 32});
  for (int p : cf.widths)
    if (p > 256) throw InputError("--class-fit-p", "expected each width in [1, 256], got " + std::to_string(p));
  // Quick: small data and few iterations (the sandwich's shape, ~12 s on 2 cores); nightly: the real figures.
  cf.train_samples = quick ? 200 : 1000;
  cf.valid_samples = quick ? 150 : 500;
  cf.max_iterations = quick ? 25 : 150;
  cf.certify_boxes = quick ? 2000 : 200000;
  cf.sampled_inputs = quick ? 2000 : 20000;
  return c;
}

}  // namespace infoflow
