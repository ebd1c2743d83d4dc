#include "theorems/depth_separation/realisability_gap.hpp"

#include "numerics/fit/model_fitter.hpp"
#include "numerics/lower_bounds/completion_packing.hpp"
#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/util/rng.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/family_embedding.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

constexpr long kPrec = 128;

struct FamilyInputs {
  Dataset train;                                           // double tokens, targets computed directly
  std::vector<std::vector<std::vector<ArbBall>>> exact;   // the same inputs as arb balls (the real family's)
  std::vector<ArbBall> targets;                            // min over pairs, in arb
  std::vector<std::vector<ArbBall>> tokens;                // every token that occurs
};

// The family's inputs in the order of `grid` (family_embedding.hpp), so that the searched tables and the fitted models
// see the same list; the grid's targets are set from the double inputs.
FamilyInputs family_inputs(const CompletionFamilyParams& p, FamilyGrid& grid) {
  FamilyInputs f;
  for (const auto& entries : grid.tokens) {
    const int j = entries[p.m] - static_cast<int>(p.m * grid.G);
    std::vector<long> idx(p.m);
    std::vector<double> theta(p.m);
    for (int k = 0; k < p.m; ++k) {
      idx[k] = entries[k] - k * grid.G;
      theta[k] = p.rho * static_cast<double>(idx[k]) / static_cast<double>(grid.G - 1);
    }
    const auto X = completion_family_input(p, theta, j);
    f.train.add(X, MinPairwiseDot{}(X));
    auto Xb = completion_family_input_arb(p, grid.G, idx, j, kPrec);
    f.targets.push_back(MinPairwiseDot{}(Xb));
    for (const auto& t : Xb) f.tokens.push_back(t);
    f.exact.push_back(std::move(Xb));
  }
  grid.targets = f.train.y;
  return f;
}

// One row: the model's certified family error and L·R against the best certified bound at that error.
RealisabilityRow realisability_row(const DepthSeparationConfig& cfg, const CompletionFamilyCertificate& cert,
                                   const FamilyGrid& grid, const FamilyInputs& f, std::string model, double family_error,
                                   double lr) {
  const CompletionFamilyParams& p = cert.params;
  RealisabilityRow row;
  row.T = p.m + 1, row.G = grid.G, row.model = std::move(model);
  row.inputs = static_cast<long>(grid.tokens.size());
  row.family_error = family_error, row.lr = lr;
  const double e = std::max(family_error, 1e-300);
  if (e < 1) {
    row.packing = completion_packing_bound_at_grid({1, 1}, PackingFamily{p.m, p.m, cert.output_range_lower, static_cast<double>(cfg.d)},
                                                   e, grid.G, nullptr, kPrec);
    row.diameter = family_diameter_bound(cert.output_range_lower, e, 1);
    row.interleaving = family_interleaving_bound(grid, f.targets, e, kPrec);
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
      FamilyGrid grid = family_grid(p.m, G);
      const FamilyInputs f = family_inputs(p, grid);
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
        rows.push_back(realisability_row(cfg, cert, grid, f, "fit p=" + std::to_string(width), family_error_upper(mb, f.exact, f.targets),
                                         (ArbBall(L, kPrec) * ArbBall(R, kPrec)).upper()));
      }
      // The class's least L·R on the family from above: the searched table, at two errors. L*(e) never grows with
      // e, so each error keeps the best of the tables found for either (a search can stall where the other did not).
      const int restarts = f.exact.size() <= 24 ? 200 : 30;  // an evaluation costs the square of the inputs: 81 is 11x 24
      const std::array<double, 2> errors{1e-3 * cert.output_range_lower, 1e-1 * cert.output_range_lower};
      std::vector<FamilyEmbedding> tables;
      for (std::size_t k = 0; k < errors.size(); ++k) {
        const std::string tag = "realisability-T" + std::to_string(T) + "-G" + std::to_string(G) + "-table-" + std::to_string(k);
        tables.push_back(optimise_family_embedding(grid, errors[k], derive_seed(ctx.seed, tag), restarts));
      }
      for (double e : errors) {
        EmbeddingCertificate best;
        best.lr = INFINITY;
        for (const FamilyEmbedding& table : tables) {
          const EmbeddingCertificate c = certify_family_embedding(grid, table, f.targets, e, kPrec);
          if (c.lr < best.lr) best = c;
        }
        rows.push_back(realisability_row(cfg, cert, grid, f, "C1 table", best.family_error, best.lr));
      }
    }
  }
  return rows;
}

}  // namespace infoflow
