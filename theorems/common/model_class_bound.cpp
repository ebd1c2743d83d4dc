#include "theorems/common/model_class_bound.hpp"

#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
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

// Every grid index vector of r coordinates with G values each, in a fixed order.
template <class Visit>
void for_each_grid_point(int r, long G, Visit visit) {
  std::vector<long> idx(r, 0);
  while (true) {
    visit(idx);
    int i = 0;
    while (i < r && ++idx[i] == G) idx[i++] = 0;
    if (i == r) break;
  }
}

// One grid family: its inputs (arb), the targets (arb), the family tokens (double, for R), and the packing data.
struct GridFamily {
  std::vector<std::vector<std::vector<ArbBall>>> inputs;
  std::vector<ArbBall> targets;
  std::vector<std::vector<ArbBall>> tokens;
  PackingFamily packing;
};

GridFamily min_dot_grid(const CompletionFamilyCertificate& cert, int d, long G) {
  GridFamily f;
  const CompletionFamilyParams& p = cert.params;
  f.packing = PackingFamily{p.m, p.m, cert.output_range_lower, static_cast<double>(d)};
  for_each_grid_point(p.m, G, [&](const std::vector<long>& idx) {
    for (int j = 0; j < p.m; ++j) {
      auto X = completion_family_input_arb(p, G, idx, j, kPrec);
      for (auto& x : X) x.resize(d, ArbBall(0.0, kPrec));  // d > 2: zero padding leaves every product unchanged
      f.targets.push_back(MinPairwiseDot{}(X));
      // The prefix tokens recur in every completion: keep them once (j = 0), the completion always.
      for (std::size_t t = j == 0 ? 0 : X.size() - 1; t < X.size(); ++t) f.tokens.push_back(X[t]);
      f.inputs.push_back(std::move(X));
    }
  });
  return f;
}

GridFamily kth_grid(int T, int k, long G) {
  GridFamily f;
  f.packing = order_statistic_packing_family(T, k);
  const int r = f.packing.coordinates;
  // The grid's values are doubles: the gap the packing may use is the smallest difference of neighbouring
  // values actually present (exact in arb), times G − 1.
  double min_gap = INFINITY;
  for (int i = 0; i < r; ++i)
    for (long v = 0; v + 1 < G; ++v) {
      std::vector<long> a(r, 0), b(r, 0);
      a[i] = v, b[i] = v + 1;
      const double lo = order_statistic_input(T, k, G, a, 0).X[i][0], hi = order_statistic_input(T, k, G, b, 0).X[i][0];
      min_gap = std::min(min_gap, (abs(ArbBall(hi, kPrec) - ArbBall(lo, kPrec))).lower());
    }
  f.packing.output_range = (ArbBall(min_gap, kPrec) * ArbBall(static_cast<double>(G - 1), kPrec)).lower();
  for_each_grid_point(r, G, [&](const std::vector<long>& idx) {
    for (int a = 0; a < r; ++a) {
      const OrderStatisticInput in = order_statistic_input(T, k, G, idx, a);
      const Sequence<ArbBall> X = convert_sequence<ArbBall>(in.X, Precision{kPrec});
      f.targets.push_back(KthLargest{k}(X));
      if (a == 0) f.tokens.insert(f.tokens.end(), X.begin(), X.end());
      else f.tokens.push_back(X.back());
      f.inputs.push_back(X);
    }
  });
  return f;
}

void validate(const Model& m, const ModelBoundRequest& q) {
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
  const ModelT<ArbBall> mb = convert_model<ArbBall>(model, Precision{kPrec});
  const LipschitzUpper L = readout_lipschitz_upper(mb);
  rep.lipschitz_upper = L.value;
  rep.lipschitz_method = L.method;
  for (double v : head_value_norms_on_box(mb, q.T, 0.0, 1.0)) rep.value_norm_box = std::max(rep.value_norm_box, v);

  // The packing bound on the largest grid family within the input budget (G = 2, 3, …).
  const SingleLayerClass cls{rep.heads, rep.value_dim};
  const bool min_dot = q.target == "min-dot";
  std::optional<CompletionFamilyCertificate> cert;
  if (min_dot) {
    cert = certify_completion_family(completion_family_for(q.T - 1, derive_seed(q.seed, "family-m" + std::to_string(q.T - 1))));
    if (!cert->certified) throw ContractError("bound", "the completion family for T = " + std::to_string(q.T) + " did not certify");
  }
  const int r = min_dot ? q.T - 1 : revealed_order_statistics(q.T, q.k);
  std::vector<std::vector<ArbBall>> family_tokens;
  // Nested grids G − 1 = 1, 2, 4, …: finer grids make the bound larger when the model's error allows it.
  for (long G = 2; std::pow(static_cast<double>(G), r) * r <= static_cast<double>(q.max_family_inputs); G = 2 * G - 1) {
    const GridFamily fam = min_dot ? min_dot_grid(*cert, model.arch.d, G) : kth_grid(q.T, q.k, G);
    const double err = family_error_upper(mb, fam.inputs, fam.targets);
    family_tokens.insert(family_tokens.end(), fam.tokens.begin(), fam.tokens.end());
    PackingEvaluation e;
    e.grid = G;
    e.family_inputs = static_cast<long>(fam.inputs.size());
    e.family_error = err;
    e.exponent = static_cast<double>(fam.packing.coordinates) / cls.embedding_dim() - 1;
    e.trivial = std::max(0.0, (fam.packing.target_range - 2 * err) / (2.0 * cls.heads));
    e.bound = std::isfinite(err) && err < 1 && fam.packing.output_range > 0
                  ? completion_packing_bound_at_grid(cls, fam.packing, std::max(err, 1e-300), G, nullptr, kPrec)
                  : 0.0;
    e.vacuous = !(e.bound > e.trivial);
    if (rep.packing.grid == 0 || e.bound > rep.packing.bound) rep.packing = e;
  }
  // R as the bound uses it: on the family's tokens (the box bound, which covers every token, is reported beside it).
  for (double v : head_value_norms_on_tokens(mb, family_tokens, q.T)) rep.value_norm_family = std::max(rep.value_norm_family, v);
  rep.lr_family = (ArbBall(rep.lipschitz_upper, kPrec) * ArbBall(rep.value_norm_family, kPrec)).upper();
  rep.respects = rep.lr_family >= rep.packing.bound;
  if (min_dot && rep.heads == 1) {
    rep.dilution = check_model_against_dilution(model, q.T);
    rep.respects = rep.respects && rep.dilution->respects;
  }
  // Sampled error over random inputs, labelled as such.
  SplitMix64 rng(derive_seed(q.seed, "bound-sampled"));
  const Target F = min_dot ? min_pairwise_dot_target() : make_target("kth", [k = q.k](const auto& X) { return KthLargest{k}(X); });
  for (int s = 0; s < q.random_samples; ++s) {
    const auto X = random_cube_sequence(q.T, model.arch.d, rng);
    rep.sampled_error = std::max(rep.sampled_error, std::fabs(forward(model, X).y - F(X)));
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
  if (r.dilution)
    o << "  dilution: family error (certified) " << num(r.dilution->family_error) << ", class bound " << num(r.dilution->bound)
      << (r.dilution->bound > 0 ? "" : " (vacuous)") << "\n";
  o << "  sampled error (random inputs, not certified) " << num(r.sampled_error) << "\n";
  o << (r.respects ? "consistent with" : "INCONSISTENT with") << " the class bounds (L*R >= every bound)\n";
  return o.str();
}

}  // namespace infoflow
