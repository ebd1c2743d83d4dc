#include "theorems/common/single_layer_study.hpp"

#include "numerics/fit/witness_search.hpp"
#include "numerics/lemmas/lipschitz_witness.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"
#include "reports/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace infoflow {

using nlohmann::json;

std::string StudyConfigKey::key() const { return variant + ",T=" + std::to_string(T) + ",n=" + std::to_string(n); }

Architecture single_layer_fit_architecture(int d, int E, int n, int p) {
  Architecture a;
  a.d = d;
  a.E = E;
  a.encoder = MapShape{MapKind::Ffn, d, E, p};
  a.layers = {LayerShape{{HeadShape{n, n}}, 0}};
  a.readout = MapShape{MapKind::Ffn, E, 1, p};
  return a;
}

namespace {

// Every width of one configuration, narrowest first; each width's first restart starts from the previous
// width's best LM model embedded (same function), so a wider LM fit never does worse on its training data.
std::vector<WidthFit> fit_configuration(const SingleLayerStudySettings& s, const StudyConfigKey& c,
                                        const DatasetMaker& make_dataset, const SuiteContext& ctx) {
  // The data depend on the configuration only, so every width sees the same samples.
  const Dataset train = make_dataset(c, s.train_samples, derive_seed(ctx.seed, s.tag + "-train-" + c.variant + "-T" + std::to_string(c.T)));
  const Dataset valid = make_dataset(c, s.valid_samples, derive_seed(ctx.seed, s.tag + "-valid-" + c.variant + "-T" + std::to_string(c.T)));
  double mean = 0, var = 0;
  for (double y : valid.y) mean += y / static_cast<double>(valid.y.size());
  for (double y : valid.y) var += (y - mean) * (y - mean) / static_cast<double>(valid.y.size());
  std::vector<int> widths = s.widths;
  std::sort(widths.begin(), widths.end());
  std::vector<WidthFit> out;
  Model previous;
  bool have_previous = false;
  for (int p : widths) {
    const Architecture arch = single_layer_fit_architecture(s.d, s.E, c.n, p);
    ModelFitOptions o;
    o.restarts = s.restarts;
    o.max_iterations = s.max_iterations;
    o.adam_steps = s.adam_steps;
    o.seed = derive_seed(ctx.seed, s.tag + "-fit-" + c.key() + ",p=" + std::to_string(p));
    o.threads = 1;  // configurations already run in parallel
    o.warm_start = have_previous ? &previous : nullptr;
    const ModelFitResult fit = fit_single_layer(arch, train, valid, o);
    const ParameterCounts counts = parameter_counts(fit.model);
    const std::string file = "weights/" + s.tag + "-single-" + file_safe_name(c.key()) + "-p" + std::to_string(p) + ".json";
    WidthFit w;
    w.variant = c.variant;
    w.T = c.T;
    w.n = c.n;
    w.p = p;
    w.M_ffn = counts.ffn;
    w.M_total = counts.total;
    w.max_abs_weight = counts.max_abs_weight;
    w.train_rmse = fit.train.rmse;
    w.train_max = fit.train.max_abs;
    w.valid_rmse = fit.valid.rmse;
    w.valid_max = fit.valid.max_abs;
    w.valid_target_std = std::sqrt(var);
    w.best_restart = fit.best_restart;
    w.warm_started = have_previous;
    w.restart_valid_rmse = fit.restart_valid_rmse;
    w.iterations = fit.iterations;
    w.termination = fit.termination;
    w.method = fit_method_name(fit.method);
    w.route_gap = fit.max_route_gap;
    w.weights_file = file;
    w.weights = weights_to_json(fit.model);
    write_json_file((std::filesystem::path(ctx.out_dir) / file).string(), w.weights);
    out.push_back(std::move(w));
    previous = fit.best_lm_model;  // not fit.model: see ModelFitResult::best_lm_model
    have_previous = true;
  }
  return out;
}

WitnessRecord witness_point(const SingleLayerStudySettings& s, const WidthFit& fitted, const Target& F,
                            const SuiteContext& ctx) {
  const StudyConfigKey c = fitted.config();
  const Model m = convert_model<double>(weights_from_json(fitted.weights, 64), Precision{53});
  const double eps = fitted.valid_max;  // the model's sampled sup error on the validation set
  WitnessSearchOptions o;
  o.candidates = s.witness_candidates;
  o.refine = s.witness_refine;
  o.seed = derive_seed(ctx.seed, s.tag + "-witness-" + c.key());
  const WitnessPair pair = search_witness(m, F, c.T, eps, o);
  WitnessRecord out;
  out.variant = c.variant;
  out.T = c.T;
  out.n = c.n;
  out.p = fitted.p;
  out.eps = eps;
  out.found = pair.found;
  if (!pair.found) return out;
  const long prec = 128;
  const ArbBall F1 = F(convert_sequence<ArbBall>(pair.X1, Precision{prec}));
  const ArbBall F2 = F(convert_sequence<ArbBall>(pair.X2, Precision{prec}));
  const WitnessCertificate cert = certify_witness(m, pair.X1, pair.X2, F1, F2, eps, prec);
  out.certified = cert.valid;
  out.reason = cert.reason;
  out.target_gap_lower = cert.target_gap_lower;
  out.state_distance_upper = cert.state_distance_upper;
  out.width_lower_bound = cert.width_lower_bound;
  out.X1 = pair.X1;
  out.X2 = pair.X2;
  return out;
}

}  // namespace

bool SingleLayerStudySettings::is_valid(std::string* why) const {
  const auto at_least = [why](const char* field, int value, int min) {
    if (value >= min) return true;
    *why = std::string(field) + " = " + std::to_string(value) + ", expected >= " + std::to_string(min);
    return false;
  };
  if (tag.empty()) return *why = "tag is empty (it names seeds, checkpoints and files)", false;
  if (widths.empty()) return *why = "widths is empty", false;
  for (int p : widths)
    if (!at_least("a width", p, 1)) return false;
  return at_least("d", d, 1) && at_least("E", E, 1) && at_least("train_samples", train_samples, 1) &&
         at_least("valid_samples", valid_samples, 1) && at_least("restarts", restarts, 1) &&
         at_least("max_iterations", max_iterations, 1) && at_least("witness_candidates", witness_candidates, 1) &&
         at_least("witness_refine", witness_refine, 0);
}

SingleLayerStudy run_single_layer_study(const SingleLayerStudySettings& s, const std::vector<StudyConfigKey>& configs,
                                        const TargetFor& target_for, const DatasetMaker& make_dataset,
                                        const SuiteContext& ctx) {
  if (std::string why; !s.is_valid(&why)) throw ContractError("run_single_layer_study", "SingleLayerStudySettings::" + why);
  std::vector<std::string> keys;
  for (const auto& c : configs) keys.push_back(c.key());
  const nlohmann::json fit_settings{{"d", s.d}, {"E", s.E}, {"widths", s.widths}, {"train", s.train_samples},
                                    {"valid", s.valid_samples}, {"restarts", s.restarts}, {"iterations", s.max_iterations},
                                    {"adam", s.adam_steps}};
  SweepCheckpoint cp = ctx.checkpoint(s.tag + "-single-layer-fits", settings_version("v4", fit_settings));
  SingleLayerStudy study;
  for (const auto& per_config : run_sweep<std::vector<WidthFit>>(
           "single-layer fits", keys, [&](std::size_t i) { return fit_configuration(s, configs[i], make_dataset, ctx); },
           cp, ctx.threads, ctx.progress))
    for (const auto& f : per_config) study.fits.push_back(f);

  std::vector<WidthFit> widest;
  std::vector<std::string> wkeys;
  for (const auto& c : configs) {
    const auto f = fits_of(study, c);
    if (f.empty()) continue;
    widest.push_back(f.back());
    wkeys.push_back(c.key());
  }
  nlohmann::json witness_settings = fit_settings;
  witness_settings["candidates"] = s.witness_candidates;
  witness_settings["refine"] = s.witness_refine;
  SweepCheckpoint wcp = ctx.checkpoint(s.tag + "-witnesses", settings_version("v4", witness_settings));
  study.witnesses = run_sweep<WitnessRecord>(
      "witness search", wkeys,
      [&](std::size_t i) { return witness_point(s, widest[i], target_for(widest[i].config()), ctx); }, wcp, ctx.threads,
      ctx.progress);
  return study;
}

Interval kappa_interval(const LineFit& f) {
  if (f.interval.hi < 0 && f.interval.bounded()) return Interval{-1.0 / f.interval.lo, -1.0 / f.interval.hi};
  if (f.interval.hi < 0) return Interval{-1.0 / f.interval.lo, INFINITY};
  return Interval{f.interval.lo < 0 ? -1.0 / f.interval.lo : -INFINITY, INFINITY};
}

std::vector<WidthFit> fits_of(const SingleLayerStudy& study, const StudyConfigKey& c) {
  std::vector<WidthFit> out;
  for (const auto& f : study.fits)
    if (f.config() == c) out.push_back(f);
  std::sort(out.begin(), out.end(), [](const WidthFit& a, const WidthFit& b) { return a.p < b.p; });
  return out;
}

const WitnessRecord* witness_of(const SingleLayerStudy& study, const StudyConfigKey& c) {
  for (const auto& w : study.witnesses)
    if (w.config() == c) return &w;
  return nullptr;
}

Series error_vs_M_series(const SingleLayerStudy& study, const StudyConfigKey& c, const std::string& id,
                         const std::string& title, std::uint64_t seed) {
  Series s = Series::make(id, title, "M_ffn", "validation sup error");
  // fits_of sorts by width, and M_ffn grows with the width: x is ascending with y in step.
  for (const auto& f : fits_of(study, c)) {
    s.x.push_back(static_cast<double>(f.M_ffn));
    s.y.push_back(f.valid_max);
  }
  if (s.x.size() >= 2) {
    s.fit = fit_loglog(s.x, s.y, FitOptions{seed});
    const Interval k = kappa_interval(*s.fit);
    s.note = "Apparent exponent kappa = -1/slope = " + std::to_string(-1.0 / s.fit->slope) + ", interval [" +
             std::to_string(k.lo) + ", " + std::to_string(k.hi) + "] (M ~ eps^-kappa).";
  }
  return s;
}

Series kappa_vs_T_series(const std::string& id, const std::string& title, const std::vector<std::pair<double, LineFit>>& per_T,
                         bool banded, std::uint64_t seed, const std::string& x_label) {
  Series kappa = Series::make(id, title, x_label, "kappa (M ~ eps^-kappa)", false);
  bool all_bounded = true;
  std::string per_point, undefined;
  for (const auto& [T, fit] : per_T) {
    const Interval k = kappa_interval(fit);
    all_bounded &= k.bounded();
    const std::string at = x_label + " = " + format_number(T, 6);
    if (fit.slope < 0) {
      kappa.x.push_back(T);
      kappa.y.push_back(-1.0 / fit.slope);
      kappa.y_interval.push_back(k);  // drawn as error bars (an unbounded end runs to the edge of the plot)
      per_point += (per_point.empty() ? "" : "; ") + at + ": " + format_number(-1.0 / fit.slope, 4) + " [" +
                   format_number(k.lo, 4) + ", " + format_number(k.hi, 4) + "]";
    } else {
      // The error did not fall with M at this point: kappa is undefined there, and the point is not drawn.
      undefined += (undefined.empty() ? "" : ", ") + at + " (slope " + format_number(fit.slope, 3) + ")";
    }
  }
  if (kappa.x.size() >= 3) kappa.fit = fit_line(kappa.x, kappa.y, FitOptions{seed});
  if (banded) {
    // Fitted models only bound the optimal cost from above, so a falling κ line cannot refute a lower
    // bound: the verdict is pass (κ rises, bounded intervals) or inconclusive, never fail.
    kappa.band = Interval{0.0, INFINITY};
    kappa.one_sided = true;
    kappa.verdict = kappa.fit && all_bounded && judge_interval(kappa.fit->interval, *kappa.band) == Verdict::Pass
                        ? Verdict::Pass
                        : Verdict::Inconclusive;
  }
  kappa.note = std::string(all_bounded ? "" : "Some kappa(T) intervals are unbounded (the error did not demonstrably fall "
                                              "with M), so no verdict is drawn from the line through them. ") +
               "kappa with its interval: " + (per_point.empty() ? "none" : per_point) + "." +
               (undefined.empty() ? "" : " Not drawn, kappa undefined (the error did not fall with M): " + undefined + ".");
  return kappa;
}

Check witness_check(const SingleLayerStudy& study, const std::string& id) {
  json rows = json::array();
  bool all_found = !study.witnesses.empty(), all_certified = true;
  for (const auto& w : study.witnesses) {
    // A width bound below 1 says nothing: every readout has at least one unit.
    const std::string reading = !w.found ? "no pair found" : !w.certified ? "pair did not certify"
                                : w.width_lower_bound < 1 ? "vacuous (< 1)" : "non-vacuous";
    rows.push_back({{"variant", w.variant}, {"T", w.T}, {"n", w.n}, {"found", w.found}, {"certified", w.certified},
                    {"eps", w.eps}, {"A", w.state_distance_upper}, {"width_lower_bound", w.width_lower_bound},
                    {"reading", reading}});
    all_found &= w.found;
    if (w.found) all_certified &= w.certified;
  }
  // Fail: a pair the search found does not re-verify (a bug). Pass: every row has a certified pair.
  // A row without a pair is no evidence either way: inconclusive.
  const Verdict v = !all_certified ? Verdict::Fail : all_found ? Verdict::Pass : Verdict::Inconclusive;
  return {id, Grade::Certified, v,
          "for each fitted model, FOR THIS ENCODER AND ATTENTION ONLY (not the class): the witness pair found by the "
          "search re-verifies in arb (targets >= 3 eps apart, eps = the model's sampled validation sup error, which "
          "can underestimate the true sup; state distance A bounded), giving the L4 width bound eps/(A sqrt E) for "
          "readouts with weights in [-1,1]; rows without a pair make the check inconclusive, bounds < 1 are vacuous",
          rows, {{"target_gap", ">= 3 eps"}}};
}

Check fits_learn_check(const SingleLayerStudy& study, const std::vector<int>& widths, const std::string& id) {
  const int p_max = *std::max_element(widths.begin(), widths.end());
  bool learned = true;
  int at_cap = 0;
  json rows = json::array();
  for (const auto& f : study.fits) {
    // A fit the solver stopped at its iteration cap is not at a local minimum: it says less still.
    const bool capped = f.termination == "NO_CONVERGENCE";
    at_cap += capped;
    rows.push_back({{"variant", f.variant}, {"T", f.T}, {"n", f.n}, {"p", f.p}, {"M_ffn", f.M_ffn},
                    {"valid_max", f.valid_max}, {"valid_rmse", f.valid_rmse}, {"method", f.method},
                    {"termination", f.termination}});
    if (f.p == p_max) learned &= f.valid_rmse < f.valid_target_std;
  }
  // Every configuration must have been fitted at the widest p, or the check has not tested it.
  std::map<std::string, bool> has_widest;
  for (const auto& f : study.fits) has_widest[f.config().key()] |= f.p == p_max;
  bool complete = !has_widest.empty();
  for (const auto& [key, widest] : has_widest) complete &= widest;
  // A stall: the same sup error at every width of a configuration (the optimiser did not use the width).
  json stalled = json::array();
  std::map<std::string, std::vector<double>> by_config;
  for (const auto& f : study.fits) by_config[f.config().key()].push_back(f.valid_max);
  for (const auto& [key, errs] : by_config)
    if (errs.size() >= 2 && std::all_of(errs.begin(), errs.end(), [&](double e) { return e == errs.front(); }))
      stalled.push_back(key);
  const json measured{{"fits_at_iteration_cap", at_cap}, {"fits", study.fits.size()}, {"stalled_configurations", stalled},
                      {"rows", rows}};
  return {id, Grade::Fitted, !learned ? Verdict::Fail : complete ? Verdict::Pass : Verdict::Inconclusive,
          "at the widest p, every fitted single-layer model (per restart Levenberg-Marquardt with analytic Jacobians "
          "and, where configured, AdamW from the same start; the candidate with the lowest validation RMSE, its "
          "method in each row) has validation RMSE below the targets' standard deviation; fits that stopped at the "
          "LM iteration cap and configurations whose error did not change with the width (stalls) are counted",
          measured, {{"relation", "valid_rmse < std(target)"}}};
}

Check fit_routes_agree_check(const SingleLayerStudy& study, const std::string& id) {
  double worst = 0;
  json disagreeing = json::array();
  for (const auto& f : study.fits) {
    worst = std::max(worst, f.route_gap);
    if (!(f.route_gap <= kRouteAgreement))
      disagreeing.push_back({{"variant", f.variant}, {"T", f.T}, {"n", f.n}, {"p", f.p},
                             {"route_gap", std::isfinite(f.route_gap) ? json(f.route_gap) : json("not finite")}});
  }
  const json measured{{"fits", study.fits.size()}, {"largest_gap", std::isfinite(worst) ? json(worst) : json("not finite")},
                      {"disagreeing", disagreeing}};
  return {id, Grade::Sampled,
          study.fits.empty() ? Verdict::Inconclusive : disagreeing.empty() ? Verdict::Pass : Verdict::Fail,
          "every candidate of every fit (each restart's Levenberg-Marquardt model and, where trained, its AdamW model): its error as the optimiser "
          "computed it (Ceres's final cost, from the analytic-gradient code; the trainer's batched validation RMSE) "
          "equals the reference forward pass's on the same data, within the stated gap (relative to the reference "
          "RMSE, or to 1e-8 of the targets' RMS when the fit is more exact than that)",
          measured, {{"gap", "<= " + format_number(kRouteAgreement)}}};
}

}  // namespace infoflow
