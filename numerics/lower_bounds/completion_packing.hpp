#pragma once
// Certified lower bounds on L·R for every single-layer model of the class C1(h, n, R, L) (docs/lower-bounds.md):
// h heads of value dimension n, any encoder (positions allowed), any scores and temperatures, value vectors
// ‖W_O^(i) V_i P(x, t)‖ ≤ R on the family's tokens, readout L-Lipschitz on the CLS state.
//
// Completion packing (docs/lower-bounds.md §3). A family of N = G^r prefixes, each of which is revealed by
// one of `completions` completions: for every two prefixes some completion makes the targets differ by
// g = range/(G − 1). The segment lemma embeds each prefix into (B_R^n × [0, 2R·completions])^h so that the
// CLS states after any completion are within the sum metric D of the embeddings; a model with error ≤ ε on
// the family therefore puts the N embeddings pairwise ≥ δ = (g − 2ε)/L apart in D, and disjoint D-balls give
//     N ≤ C · [((2 + t)/t)^n · (2·completions + t)/t]^h,   t = δ/R,   C = (h(n+1))!/(n!)^h.
// The right side decreases in t; with t_up certified to make it < N, t < t_up and L·R > (g − 2ε)/t_up.
//
// Dilution (§4, one head): four inputs force L·R ≥ (1 − 2ε)·T/2 without positions; 2T + 2 inputs force
// (1 − 2ε)·T/4 with them (the mediant of the 2T gap bounds; the previous route, a minimising position, gave (T − 2)/4).
#include "numerics/scalar/arb_ball.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace infoflow {

/// The class C1(h, n, ·, ·): the bound depends on the heads and value dimension only.
struct SingleLayerClass {
  int heads = 1;
  int value_dim = 1;
  int embedding_dim() const { return heads * (value_dim + 1); }  // h(n+1): the container's dimension
};

/// The part of a completion family the packing inequality reads (the family itself is the theorem's).
struct PackingFamily {
  int coordinates = 1;   // r: free prefix coordinates, each on a grid of G values
  int completions = 1;   // completions that reveal the coordinates
  double output_range = 0;  // the target's range per coordinate: neighbours on the grid differ by range/(G−1)
  double target_range = 0;  // the target's range over the whole domain (for the trivial bound)
};

struct ClassPackingBound {
  double eps = 0;
  long grid = 0;             // G, values per coordinate (0: no grid has g > 2ε)
  double gap = 0;            // g = range/(G − 1)
  double log10_prefixes = 0; // log10 N = r·log10 G
  double radius_upper = 0;   // t_up ≥ δ/R, certified
  double lr_lower = 0;       // certified: every model of the class with error ≤ ε on the family has L·R > this
  double trivial = 0;        // (target_range − 2ε)/(2h): what any model reaching ε needs anyway
  bool vacuous = true;       // lr_lower ≤ trivial
  double exponent = 0;       // r/(h(n+1)) − 1: the slope of log(L·R) against log(1/ε) as ε → 0
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassPackingBound, eps, grid, gap, log10_prefixes, radius_upper, lr_lower, trivial,
                                   vacuous, exponent)

/// The largest bound over the grid size G (chosen in double, certified in arb). Throws InputError for
/// heads, value_dim, coordinates or completions < 1, a range ≤ 0 or ε outside (0, 1).
ClassPackingBound completion_packing_bound(const SingleLayerClass& cls, const PackingFamily& fam, double eps,
                                           long prec = 128);

/// The bound for one grid size G ≥ 2 with g = range/(G−1) > 2ε (certified; 0 when N ≤ C gives nothing).
double completion_packing_bound_at_grid(const SingleLayerClass& cls, const PackingFamily& fam, double eps, long G,
                                        double* radius_upper = nullptr, long prec = 128);

/// The same inequality in plain double arithmetic: the test oracle for the arb computation.
double completion_packing_bound_double(const SingleLayerClass& cls, const PackingFamily& fam, double eps, long G);

/// Dilution (one head): L·R ≥ (1 − 2ε)·T/2 without positional encodings, (1 − 2ε)·T/4 with them (the mediant
/// bound); 0 when ε ≥ 1/2. Rounded down. Throws InputError for T < 2 or ε outside (0, 1).
double dilution_lower_bound(int T, double eps, bool positional);

/// The previous positional bound, (1 − 2ε)(T − 2)/4 from a minimising position (0 for T < 3): reported beside the
/// mediant bound for one release so the gain shows; the mediant bound is larger at every T.
double dilution_lower_bound_minimiser(int T, double eps);

}  // namespace infoflow
