#include "theorems/common/model_class_bound.hpp"
#include "numerics/util/mutation.hpp"

#include <memory>

#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/grid_points.hpp"
#include "numerics/util/rng.hpp"
#include "reports/text_format.hpp"
#include "theorems/depth_separation/completion_family.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"
#include "theorems/kth_retrieval/kth_largest_target.hpp"
#include "theorems/kth_retrieval/order_statistic_bound.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace infoflow {

using nlohmann::json;

namespace {

constexpr long kPrec = 128;

// The largest certified |model − F| over every input of one grid family, evaluated one input at a time
// (nothing of size G^r is kept). `visit` enumerates (input, target) pairs.
template <class Enumerate>
double grid_family_error(const ModelT<ArbBall>& mb, Enumerate enumerate) {
  const ParamLayout L(mb.arch);
  double worst = 0;
  enumerate([&](const std::vector<std::vector<ArbBall>>& X, const ArbBall& F) {
    const double u = abs(forward(mb, L, X).y - F).upper();
    worst = std::max(worst, std::isnan(u) ? INFINITY : u);
  });
  return worst;
}

// Theorem 1: every grid prefix with every completion z_j; d > 2 by zero padding (every product unchanged).
template <class Visit>
void enumerate_min_dot(const CompletionFamilyParams& p, int d, long G, Visit visit) {
  for_each_grid_point(p.m, G, [&](const std::vector<long>& idx) {
    for (int j = 0; j < p.m; ++j) {
      auto X = completion_family_input_arb(p, G, idx, j, kPrec);
      for (auto& x : X) x.resize(d, ArbBall(0.0, kPrec));
      visit(X, MinPairwiseDot{}(X));
    }
  });
}

// The distinct tokens of that family: x_k depends on index_k only, z_j on j only (G·m + m tokens).
std::vector<std::vector<ArbBall>> min_dot_tokens(const CompletionFamilyParams& p, int d, long G) {
  std::vector<std::vector<ArbBall>> tokens;
  for (long v = 0; v < G; ++v)
    for (int j = 0; j < p.m; ++j) {
      auto X = completion_family_input_arb(p, G, std::vector<long>(p.m, v), j, kPrec);
      for (auto& x : X) x.resize(d, ArbBall(0.0, kPrec));
      if (j == 0) tokens.insert(tokens.end(), X.begin(), X.end() - 1);
      if (v == 0) tokens.push_back(X.back());
    }
  return tokens;
}

// Theorem 2: every grid prefix with every completion Z_a, targets by the sorting network in arb.
template <class Visit>
void enumerate_kth(int T, int k, long G, Visit visit) {
  const int r = revealed_order_statistics(T, k);
  for_each_grid_point(r, G, [&](const std::vector<long>& idx) {
    for (int a = 0; a < r; ++a) {
      const Sequence<ArbBall> X = convert_sequence<ArbBall>(order_statistic_input(T, k, G, idx, a).X, Precision{kPrec});
      visit(X, KthLargest{k}(X));
    }
  });
}

std::vector<std::vector<ArbBall>> kth_tokens(int T, int k, long G) {
  const int r = revealed_order_statistics(T, k);
  std::vector<std::vector<ArbBall>> tokens;
  for (long v = 0; v < G; ++v)
    for (int a : {0, r - 1}) {
      const auto X = convert_sequence<ArbBall>(order_statistic_input(T, k, G, std::vector<long>(r, v), a).X, Precision{kPrec});
      tokens.insert(tokens.end(), X.begin(), X.end());
    }
  return tokens;
}

// The grid's values are doubles: the range the packing may use is the smallest difference of neighbouring
// values actually present (exact in arb), times G − 1.
PackingFamily kth_packing(int T, int k, long G) {
  PackingFamily f = order_statistic_packing_family(T, k);
  const int r = f.coordinates;
  double min_gap = INFINITY;
  for (int i = 0; i < r; ++i)
    for (long v = 0; v + 1 < G; ++v) {
      std::vector<long> a(r, 0), b(r, 0);
      a[i] = v, b[i] = v + 1;
      const double lo = order_statistic_input(T, k, G, a, 0).X[i][0], hi = order_statistic_input(T, k, G, b, 0).X[i][0];
      min_gap = std::min(min_gap, (abs(ArbBall(hi, kPrec) - ArbBall(lo, kPrec))).lower());
    }
  f.output_range = (ArbBall(min_gap, kPrec) * ArbBall(static_cast<double>(G - 1), kPrec)).lower();
  return f;
}

// Scalars one family evaluation touches: inputs × T × d (the cap keeps a run within minutes).
constexpr double kMaxFamilyScalars = 5e7;

void validate(const Model& m, const ModelBoundRequest& q) {
  if (m.arch.head_count() < 1) throw InputError("--weights", "the model has no attention head");
  for (const auto& h : m.arch.layers.empty() ? std::vector<HeadShape>{} : m.arch.layers[0].heads)
    if (h.value_dim < 1) throw InputError("--weights", "every head needs value dimension >= 1");
  if (m.arch.layers.size() != 1)
    throw InputError("--weights", "the class bound speaks of single-layer models; this file has " +
                                      std::to_string(m.arch.layers.size()) + " layers");
  if (q.target == "min-dot") {
    if (q.T < 3 || q.T > 12) throw InputError("--T", "expected 3 <= T <= 12 for min-dot (the completion family)");
    if (m.arch.d < 2) throw InputError("--weights", "min-dot needs token dimension d >= 2 (d = 1 has no separation)");
  } else if (q.target == "kth") {
    if (q.T < 2 || q.T > 64) throw InputError("--T", "expected 2 <= T <= 64 for kth");
    if (q.k < 1 || q.k > q.T) throw InputError("--k", "expected 1 <= k <= T");
    if (m.arch.d != 1) throw InputError("--weights", "kth takes scalar tokens: the model's d must be 1");
  } else {
    throw InputError("--target", "expected min-dot or kth, got '" + q.target + "'");
  }
  if (m.arch.positions > 0 && q.T > m.arch.positions)
    throw InputError("--T", "T = " + std::to_string(q.T) + " exceeds the model's positional table (" +
                                std::to_string(m.arch.positions) + " rows)");
  if (q.max_family_inputs < 1 || q.max_family_inputs > 1000000)
    throw InputError("--max-family-inputs", "expected 1 <= N <= 1e6");
}

}  // namespace

ModelBoundReport bound_single_layer_model(const Model& model, const ModelBoundRequest& q) {
  validate(model, q);
  ModelBoundReport rep;
  rep.target = q.target;
  rep.T = q.T;
  rep.k = q.k;
  rep.heads = model.arch.head_count();
  for (const auto& h : model.arch.layers[0].heads) rep.value_dim = std::max(rep.value_dim, h.value_dim);
  rep.positional = model.arch.positions > 0;
  // The model's own quantities are a check's computation when one is named; the bound is not (see the request).
  const auto own = [&] {
    std::unique_ptr<CheckComputation> s;
    if (!q.check_id.empty()) s = std::make_unique<CheckComputation>(q.check_id);
    return s;
  };
  auto scope = own();
  const ModelT<ArbBall> mb = convert_model<ArbBall>(model, Precision{kPrec});
  const LipschitzUpper L = readout_lipschitz_upper(mb);
  rep.lipschitz_upper = L.value;
  rep.lipschitz_method = L.method;
  for (double v : head_value_norms_on_box(mb, q.T, 0.0, 1.0)) rep.value_norm_box = std::max(rep.value_norm_box, v);
  scope.reset();

  // The packing bound on the largest grid family within the input budget.
  const SingleLayerClass cls{rep.heads, rep.value_dim};
  const bool min_dot = q.target == "min-dot";
  std::optional<CompletionFamilyCertificate> cert;
  if (min_dot) {
    cert = certify_completion_family(completion_family_for(q.T - 1, derive_seed(q.seed, "family-m" + std::to_string(q.T - 1))));
    if (!cert->certified) rep.note = "no certified completion family for T = " + std::to_string(q.T) + ": " + cert->failure;
  }
  const int r = min_dot ? q.T - 1 : revealed_order_statistics(q.T, q.k);
  std::vector<std::vector<ArbBall>> family_tokens;
  // Nested grids G − 1 = 1, 2, 4, …: finer grids make the bound larger when the model's error allows it.
  for (long G = 2; (!min_dot || cert->certified); G = 2 * G - 1) {
    const double inputs = std::pow(static_cast<double>(G), r) * r;
    if (inputs > static_cast<double>(q.max_family_inputs) || inputs * q.T * model.arch.d > kMaxFamilyScalars) break;
    const PackingFamily fam = min_dot ? PackingFamily{r, r, cert->output_range_lower, static_cast<double>(model.arch.d)}
                                      : kth_packing(q.T, q.k, G);
    scope = own();
    const double err = min_dot ? grid_family_error(mb, [&](auto visit) { enumerate_min_dot(cert->params, model.arch.d, G, visit); })
                               : grid_family_error(mb, [&](auto visit) { enumerate_kth(q.T, q.k, G, visit); });
    scope.reset();
    const auto tokens = min_dot ? min_dot_tokens(cert->params, model.arch.d, G) : kth_tokens(q.T, q.k, G);
    family_tokens.insert(family_tokens.end(), tokens.begin(), tokens.end());
    PackingEvaluation e;
    e.grid = G;
    e.family_inputs = static_cast<long>(inputs);
    e.family_error = err;
    e.exponent = static_cast<double>(fam.coordinates) / cls.embedding_dim() - 1;
    e.trivial = std::max(0.0, (fam.target_range - 2 * err) / (2.0 * cls.heads));
    e.bound = std::isfinite(err) && err < 1 && fam.output_range > 0
                  ? completion_packing_bound_at_grid(cls, fam, std::max(err, 1e-300), G, nullptr, kPrec)
                  : 0.0;
    e.vacuous = !(e.bound > e.trivial);
    if (rep.packing.grid == 0 || e.bound > rep.packing.bound) rep.packing = e;
  }
  if (rep.packing.grid == 0 && rep.note.empty()) rep.note = "no grid family within the input budget (--max-family-inputs)";
  // R as the bound uses it: on the family's tokens (the box bound, which covers every token, is reported beside
  // it and stands in when no family was evaluated).
  scope = own();
  for (double v : head_value_norms_on_tokens(mb, family_tokens, q.T)) rep.value_norm_family = std::max(rep.value_norm_family, v);
  if (family_tokens.empty()) rep.value_norm_family = rep.value_norm_box;
  rep.lr_family = (ArbBall(rep.lipschitz_upper, kPrec) * ArbBall(rep.value_norm_family, kPrec)).upper();
  scope.reset();
  rep.respects = rep.lr_family >= rep.packing.bound;
  if (min_dot && rep.heads == 1) {
    rep.dilution = check_model_against_dilution(model, q.T);
    rep.respects = rep.respects && rep.dilution->respects;
  }
  // Sampled error over random inputs, labelled as such.
  SplitMix64 rng(derive_seed(q.seed, "bound-sampled"));
  const Target F = min_dot ? min_pairwise_dot_target() : make_target("kth", [k = q.k](const auto& X) { return KthLargest{k}(X); });
  const ParamLayout layout(model.arch);
  for (int s = 0; s < q.random_samples; ++s) {
    const auto X = random_cube_sequence(q.T, model.arch.d, rng);
    rep.sampled_error = std::max(rep.sampled_error, std::fabs(forward(model, layout, X).y - F(X)));
  }
  return rep;
}

void to_json(json& j, const ModelBoundReport& r) {
  j = json{{"target", r.target},
           {"T", r.T},
           {"class", {{"heads", r.heads}, {"value_dim", r.value_dim}, {"positional", r.positional}}},
           {"readout_lipschitz", {{"upper", r.lipschitz_upper}, {"method", r.lipschitz_method}, {"grade", "certified"}}},
           {"value_norm", {{"family_tokens", r.value_norm_family}, {"box", r.value_norm_box}, {"grade", "certified"}}},
           {"LR", r.lr_family},
           {"packing", r.packing},
           {"sampled_error", {{"value", r.sampled_error}, {"grade", "sampled (random inputs, double)"}}},
           {"respects_class_bounds", r.respects}};
  if (r.target == "kth") j["k"] = r.k;
  j["packing"]["grade"] = "certified (family error in arb over every family input; bound in arb)";
  if (!r.note.empty()) j["note"] = r.note;
  if (r.dilution) j["dilution"] = *r.dilution;
}

std::string model_bound_table(const ModelBoundReport& r) {
  std::ostringstream o;
  auto num = [](double v) { return format_number(v, 4); };
  o << "model: one layer, h = " << r.heads << ", n = " << r.value_dim << (r.positional ? ", positional" : "")
    << "; target " << r.target << (r.target == "kth" ? " (k = " + std::to_string(r.k) + ")" : "") << ", T = " << r.T << "\n";
  o << "  readout L (certified upper)      " << num(r.lipschitz_upper) << "  [" << r.lipschitz_method << "]\n";
  o << "  value norm R, family (certified) " << num(r.value_norm_family) << "   over the box: " << num(r.value_norm_box) << "\n";
  o << "  L*R                              " << num(r.lr_family) << "\n";
  o << "  packing: grid G = " << r.packing.grid << " (" << r.packing.family_inputs << " inputs), family error (certified) "
    << num(r.packing.family_error) << ", class bound " << num(r.packing.bound)
    << (r.packing.vacuous ? " (vacuous: <= trivial " + num(r.packing.trivial) + ")" : "") << "\n";
  if (r.dilution) {
    // The dilution bound speaks of L·R with R on e1, e2 (its own tokens), not of the packing family's L·R above.
    const DilutionModelCheck& d = *r.dilution;
    o << "  dilution: R on e1, e2 (certified) " << num(d.value_norm) << ", L*R " << num(d.lr) << ", family error (certified) "
      << num(d.family_error) << ", class bound " << num(d.bound) << (d.bound > 0 ? "" : " (vacuous)");
    if (d.positional) o << " [(1-2e)T/4; the previous route's (1-2e)(T-2)/4: " << num(d.bound_previous) << "]";
    o << "\n";
  }
  o << "  sampled error (random inputs, not certified) " << num(r.sampled_error) << "\n";
  if (!r.note.empty()) o << "  note: " << r.note << "\n";
  o << (r.respects ? "consistent with" : "INCONSISTENT with") << " the class bounds (L*R >= every bound)\n";
  return o.str();
}

}  // namespace infoflow
