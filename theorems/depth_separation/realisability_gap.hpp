#pragma once
// How far the certified class bound is from what single-layer models need (docs/lower-bounds.md §3, "realisability"):
// at small T and small grids G, single-layer models (one head, n = 1, weights free) are fitted to the completion
// family's G^m·m inputs; each model's error on those inputs is certified in arb, and its own readout L·R (certified
// from its weights) is set against the best certified bound at that error: the packing at that G, or the family's
// diameter bound (range − 2e)/(2h) (two prefixes the full range apart under one completion; the states lie in a set
// of diameter 2hR). A model below the bound would refute the derivation; the ratio above it is how far the certified
// constant sits from the models found. Fits minimise the error, not L·R, so their ratio overstates the true gap; the
// searched C1 table (family_embedding.hpp) minimises L·R itself at a chosen error, and bounds the truth from above.
#include "theorems/depth_separation/completion_family.hpp"
#include "theorems/depth_separation/depth_separation_config.hpp"
#include "theorems/suite.hpp"

#include <algorithm>
#include <map>

namespace infoflow {

struct RealisabilityRow {
  int T = 0;
  long G = 0;
  std::string model;          // "fit p=W" (a fitted transformer, FFN width W) or "C1 table" (family_embedding.hpp)
  long inputs = 0;            // G^m · m family inputs
  double family_error = 0;    // certified: max |model − F| over those inputs (arb)
  double lr = 0;              // certified: the model's readout L times R on the family's tokens
  double packing = 0;         // certified: the packing bound at that G and error
  double diameter = 0;        // certified: (range − 2e)/2 (one head)
  double interleaving = 0;    // certified: D − 2e (one head, n = 1; family_embedding.hpp)
  double bound() const { return std::max({packing, diameter, interleaving}); }  // the best certified bound at this error
  double ratio() const { return bound() > 0 ? lr / bound() : INFINITY; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RealisabilityRow, T, G, model, inputs, family_error, lr, packing, diameter, interleaving)

/// The diameter bound on the family: every model of C1(h, ·) with error ≤ e on two inputs whose targets differ by
/// `range` has L·R ≥ (range − 2e)/(2h), rounded down (0 when e ≥ range/2).
double family_diameter_bound(double range, double e, int heads);

/// Fits and certifies the rows for every T of `families_by_T` (the tightened family of m = T − 1) at G = 2 and 3:
/// fitted transformers (FFN widths 4 and 8), and the searched C1 table (family_embedding.hpp) at e = 0.001 and 0.1
/// times the family's range, which bounds the least L·R of the class on the family from above.
std::vector<RealisabilityRow> realisability_rows(const DepthSeparationConfig& cfg, const SuiteContext& ctx,
                                                 const std::map<int, CompletionFamilyCertificate>& families_by_T);

}  // namespace infoflow
