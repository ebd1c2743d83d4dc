#include "theorems/depth_separation/realisability_gap.hpp"

#include "numerics/fit/model_fitter.hpp"
#include "numerics/lower_bounds/completion_packing.hpp"
#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/util/rng.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/family_embedding.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

constexpr long kPrec = 128;

// Every grid index vector of m coordinates with G values each, in lexicographic order.
std::vector<std::vector<long>> grid_indices(int m, long G) {
  std::vector<std::vector<long>> out;
  std::vector<long> idx(m, 0);
  while (true) {
    out.push_back(idx);
    int k = 0;
    while (k < m && ++idx[k] == G) idx[k++] = 0;
    if (k == m) break;
  }
  return out;
}

struct FamilyInputs {
  Dataset train;                                           // double tokens, targets computed directly
  std::vector<std::vector<std::vector<ArbBall>>> exact;   // the same inputs as arb balls (the real family's)
  std::vector<ArbBall> targets;                            // min over pairs, in arb
  std::vector<std::vector<ArbBall>> tokens;                // every token that occurs
};

FamilyInputs family_inputs(const CompletionFamilyParams& p, long G) {
  FamilyInputs f;
  for (const auto& idx : grid_indices(p.m, G))
    for (int j = 0; j < p.m; ++j) {
      std::vector<double> theta(p.m);
      for (int k = 0; k < p.m; ++k) theta[k] = p.rho * static_cast<double>(idx[k]) / static_cast<double>(G - 1);
      const auto X = completion_family_input(p, theta, j);
      f.train.add(X, MinPairwiseDot{}(X));
      auto Xb = completion_family_input_arb(p, G, idx, j, kPrec);
      f.targets.push_back(MinPairwiseDot{}(Xb));
      for (const auto& t : Xb) f.tokens.push_back(t);
      f.exact.push_back(std::move(Xb));
    }
  return f;
}

// One row: the model's certified family error and L·R against the best certified bound at that error.
RealisabilityRow realisability_row(const DepthSeparationConfig& cfg, const CompletionFamilyCertificate& cert, long G,
                                   std::string model, double family_error, double lr) {
  const CompletionFamilyParams& p = cert.params;
  RealisabilityRow row;
  row.T = p.m + 1, row.G = G, row.model = std::move(model);
  row.inputs = static_cast<long>(std::pow(static_cast<double>(G), p.m)) * p.m;
  row.family_error = family_error, row.lr = lr;
  const double e = std::max(family_error, 1e-300);
  if (e < 1) {
    row.packing = completion_packing_bound_at_grid({1, 1}, PackingFamily{p.m, p.m, cert.output_range_lower, static_cast<double>(cfg.d)},
                                                   e, G, nullptr, kPrec);
    row.diameter = family_diameter_bound(cert.output_range_lower, e, 1);
  }
  return row;
}

}  // namespace

double family_diameter_bound(double range, double e, int heads) {
  const ArbBall margin = ArbBall(range, kPrec) - ArbBall(2.0, kPrec) * ArbBall(e, kPrec);
  if (!(margin.lower() > 0)) return 0;
  return (margin / ArbBall(2.0 * heads, kPrec)).lower();
}

std::vector<RealisabilityRow> realisability_rows(const DepthSeparationConfig& cfg, const SuiteContext& ctx,
                                                 const std::map<int, CompletionFamilyCertificate>& families_by_T) {
  std::vector<RealisabilityRow> rows;
  for (const auto& [T, cert] : families_by_T) {
    if (!cert.certified) continue;
    const CompletionFamilyParams& p = cert.params;
    for (long G : {2L, 3L}) {
      const FamilyInputs f = family_inputs(p, G);
      for (int width : {4, 8}) {
        const std::string tag = "realisability-T" + std::to_string(T) + "-G" + std::to_string(G) + "-p" + std::to_string(width);
        ModelFitOptions o;
        o.restarts = 6;
        o.max_iterations = 400;
        o.init_scale = 1.0;
        o.free_temperatures = true;  // the family's tokens are close together: attention must be able to sharpen
        o.adam_steps = 1000;
        o.seed = derive_seed(ctx.seed, tag);
        o.threads = ctx.threads;
        // The class C1 bounds no weight: the fit may use any scale (the temperature is redundant with Q then).
        const ModelFitResult fit = fit_single_layer(single_layer_fit_architecture(cfg.d, 4, 1, width), f.train, f.train, o);
        const ModelT<ArbBall> mb = convert_model<ArbBall>(fit.model, Precision{kPrec});
        const double L = readout_lipschitz_upper(mb).value;
        const double R = head_value_norms_on_tokens(mb, f.tokens, T).front();
        rows.push_back(realisability_row(cfg, cert, G, "fit p=" + std::to_string(width), family_error_upper(mb, f.exact, f.targets),
                                         (ArbBall(L, kPrec) * ArbBall(R, kPrec)).upper()));
      }
      // The class's least L·R on the family from above: the searched table, at two errors.
      FamilyGrid grid = family_grid(p.m, G);  // the same order as family_inputs: grid-major, then the completion
      grid.targets = f.train.y;
      const int restarts = f.exact.size() <= 24 ? 200 : 50;  // 81 inputs cost ~40 times more per evaluation
      for (double fraction : {1e-3, 1e-1}) {
        const double e = fraction * cert.output_range_lower;
        const std::string tag = "realisability-T" + std::to_string(T) + "-G" + std::to_string(G) + "-table-" + std::to_string(fraction);
        const FamilyEmbedding emb = optimise_family_embedding(grid, e, derive_seed(ctx.seed, tag), restarts);
        const EmbeddingCertificate c = certify_family_embedding(grid, emb, f.targets, e, kPrec);
        rows.push_back(realisability_row(cfg, cert, G, "C1 table", c.family_error, c.lr));
      }
    }
  }
  return rows;
}

}  // namespace infoflow
