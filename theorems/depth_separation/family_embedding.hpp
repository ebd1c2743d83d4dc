#pragma once
// The least L·R a model of C1(1, 1, R, L) needs on a finite completion family, from above (docs/lower-bounds.md §3,
// "realisability"). On the family's inputs a model of the class is, in the class's own terms, a table: the encoder
// is any function of (token, position), so each token that occurs has a weight ψ > 0 and a value w on the line S
// (n = 1), and the CLS state of an input is the ψ-weighted mean of its tokens' values. The readout may be any
// L-Lipschitz function of the state; the least L that meets error e on the family is
//     L*(e) = max over pairs of inputs (|y_i − y_k| − 2e)₊ / |p_i − p_k|,
// attained by the McShane extension f(p) = min_k (y_k + e + L*|p − p_k|). So the only free choice is the table,
// and `optimise_family_embedding` searches it; `certify_family_embedding` then encloses the states in arb and
// returns L*·R rounded up together with the McShane readout's own family error. A certified bound above that L·R
// would be refuted by this model; the ratio of the two says how far the certified constant is from the truth.
#include "numerics/scalar/arb_ball.hpp"

#include <cstdint>
#include <vector>

namespace infoflow {

/// The family's inputs as the class sees them: input i is the prefix grid index vector idx (m coordinates, G
/// values each) followed by completion j, with target y_i. Inputs are listed grid-major, then j.
struct FamilyGrid {
  int m = 0;
  long G = 0;
  std::vector<std::vector<int>> tokens;  // per input: its m + 1 table entries (prefix t·G + idx_t, then m·G + j)
  std::vector<double> targets;           // y_i, rounded to double (what the search optimises against)
  long entries() const { return static_cast<long>(m) * G + m; }
};
/// The grid of m coordinates with G values and its m completions; `targets` are set by the caller.
FamilyGrid family_grid(int m, long G);

/// The table of one model of C1(1, 1, R, L) on the family: entry e has weight exp(log_weight[e]) and value
/// value[e] ∈ [−1, 1] (so R ≤ 1; L·R is invariant under scaling the values).
struct FamilyEmbedding {
  std::vector<double> log_weight;
  std::vector<double> value;
};

/// The CLS states (ψ-weighted means) of every input, in double.
std::vector<double> embedding_states(const FamilyGrid& grid, const FamilyEmbedding& emb);

/// L*(e) in double: the least Lipschitz constant of a readout with error ≤ e on the family (+inf when two inputs
/// whose targets differ by more than 2e share a state).
double embedding_least_lipschitz(const FamilyGrid& grid, const FamilyEmbedding& emb, double e);

/// A seeded search for the table with the smallest L*(e)·R: `restarts` runs of a (1+1) evolution strategy with the
/// one-fifth step rule, each from a random table, `steps` proposals each, then a compass search (one coordinate at a
/// time, halving steps). Deterministic for a given seed. At m = 2, G = 2 with two-level targets it finds the golden
/// table of docs/lower-bounds.md §3 to within 1% (a test; the runs seen came within 0.2%).
FamilyEmbedding optimise_family_embedding(const FamilyGrid& grid, double e, std::uint64_t seed, int restarts = 200,
                                          int steps = 3000);

struct EmbeddingCertificate {
  double lipschitz = 0;     // L: certified ≥ every pair's (|y_i − y_k| − 2e)/|p_i − p_k| (arb, rounded up)
  double value_radius = 0;  // R: the largest |value| (exact)
  double lr = 0;            // L·R rounded up; +inf when the states do not separate the targets
  double family_error = 0;  // max_i |f(p_i) − y_i| of the McShane readout with that L, in arb, rounded up
};
/// Encloses the states in arb (the weights exp(log_weight) as balls, the values exact) against the exact targets
/// (`targets[i]`, arb balls of the real family's F), and certifies L and the readout's error on the family.
EmbeddingCertificate certify_family_embedding(const FamilyGrid& grid, const FamilyEmbedding& emb,
                                              const std::vector<ArbBall>& targets, double e, long prec = 128);

/// The interleaving bound (docs/lower-bounds.md §3), a lower bound on L·R for every model of C1(1, 1, R, L) with error
/// ≤ e on the family: pick two coordinates j1 ≠ j2, the others at grid index 0, each of the two at index 0 or G − 1;
/// under completion j an input is *high* when its coordinate j is at 0 and *low* otherwise. The states of the eight
/// inputs cannot be split by a threshold (the prefix vectors are sums over positions, so two highs and two lows have
/// the same total), hence some low lies between two highs or some high between two lows, and with D the least
/// |y_high − y_low| over the sixteen high-low pairs of the eight, 2(D − 2e) ≤ L·2R. Returns max over (j1, j2) of D − 2e rounded down, or 0 when it
/// is not positive or m < 2. `targets` are the exact family targets in the grid's order.
double family_interleaving_bound(const FamilyGrid& grid, const std::vector<ArbBall>& targets, double e, long prec = 128);

}  // namespace infoflow
