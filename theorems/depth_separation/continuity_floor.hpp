#pragma once
// The continuity floor (docs/lower-bounds.md §7): no continuous single-layer model of C1(h, n) reaches sup error below
// half the range of a completion family with more than h(n+1) coordinates, whatever its size.
//
// Why. For a prefix P, the CLS state of P⊕z depends on P only through Φ(P) = (a_i(P), log Ψ_i(P))_i ∈ R^{h(n+1)}
// (the segment lemma, §1). If the encoder, scores and values are continuous in the token, θ ↦ Φ(P(θ)) is a continuous
// map from the family's box [0, ρ]^{m'} to R^{h(n+1)}. By Lebesgue's covering theorem, when h(n+1) < m' some fibre of it
// has sup-diameter ρ: there are θ, θ′ in the box with Φ(P(θ)) = Φ(P(θ′)) and |θ_j − θ′_j| = ρ for some j. The model then
// gives P(θ)⊕z_j and P(θ′)⊕z_j the same output (any readout), while their targets differ by s·ρ: one of the two errors
// is at least s·ρ/2. No Lipschitz constant, weight bound or width enters.
//
// This file computes that floor in arb from a certified family, and searches a given model for the pair the theorem
// promises (its outputs evaluated in arb at the two inputs: a certified lower bound on that model's sup error).
#include "numerics/model/forward.hpp"
#include "numerics/model/model.hpp"
#include "numerics/scalar/arb_ball.hpp"
#include "theorems/depth_separation/completion_family.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace infoflow {

/// The floor for C1(h, n) at sequence length T from the certified families (by prefix length m'): the best family
/// with h(n+1) < m' ≤ T − 1. Empty when none qualifies (h(n+1) ≥ T − 1, or no certified family of such a length).
struct ContinuityFloor {
  int T = 0, h = 0, n = 0;
  int m = 0;                // the family's prefix length m'
  double range_lower = 0;   // s·ρ of that family, certified (rounded down)
  double floor_lower = 0;   // s·ρ/2 rounded down: every continuous model of C1(h, n) errs at least this much
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ContinuityFloor, T, h, n, m, range_lower, floor_lower)

std::optional<ContinuityFloor> continuity_floor(int T, int h, int n,
                                                const std::map<int, CompletionFamilyCertificate>& families_by_m);

/// The pair the theorem promises for one model, found by search, with the model's errors there in arb.
struct ContinuityWitness {
  bool found = false;
  int j = -1;                       // the revealed coordinate: θ_j = 0, θ′_j = ρ
  std::vector<double> theta, theta_prime;
  double summary_residual = 0;      // max |Φ(θ) − Φ(θ′)| after the search (double)
  double output_gap = 0;            // |ŷ(X) − ŷ(X′)|, upper end in arb
  double error_lower = 0;           // max(|ŷ − F| at X, at X′), lower end in arb: the model's sup error is at least this
  double target_gap = 0;            // |F(X) − F(X′)|, lower end in arb (s·ρ on a valid family)
  double state_gap = 0;             // ‖c(X) − c(X′)‖ of the CLS states, upper end in arb
  double readout_lipschitz = 0;     // L of the model's readout, certified upper bound
  /// (|F(X) − F(X′)| − L·‖c(X) − c(X′)‖)/2, lower end: what every readout of this encoder and attention with Lipschitz
  /// constant ≤ L errs at least, on one of the two inputs (the states nearly coincide, so this is about the range/2)
  double any_readout_error_lower = 0;
  long starts = 0;                  // search starts used
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ContinuityWitness, found, j, theta, theta_prime, summary_residual, output_gap,
                                   error_lower, target_gap, state_gap, readout_lipschitz, any_readout_error_lower, starts)

/// A family on which completions reveal the coordinates of a prefix, as the theorem needs it: m coordinates
/// θ ∈ [0, ρ]^m make a prefix (its tokens occupy the first positions), completion j (the last positions) makes the
/// target move by the family's range as θ_j goes from 0 to ρ, whatever the other coordinates.
struct RevealingFamily {
  int m = 0;
  double rho = 0;
  std::function<std::vector<std::vector<double>>(const std::vector<double>& theta)> prefix;
  std::function<std::vector<std::vector<double>>(int j)> completion;
  std::function<ArbBall(const Sequence<ArbBall>&)> target;
};

/// Theorem 1's completion family at sequence length T (prefix padded with copies of x_1 to T − 1 tokens).
RevealingFamily completion_revealing_family(const CompletionFamilyParams& p, int T);

/// Half a family's certified range, rounded down in arb: the floor every continuous model of a class whose summary
/// has fewer than m numbers stays above.
double half_range_floor(double range_lower);

/// Searches a single-layer model for the pair the theorem promises on `family`: for each j, θ with θ_j = 0 and θ′ with
/// θ′_j = ρ such that the prefix summaries agree, by damped Gauss–Newton from `starts` seeded random starts per j;
/// then evaluates the model at the two inputs in arb.
ContinuityWitness find_continuity_witness(const Model& model, const RevealingFamily& family, std::uint64_t seed,
                                          int starts = 24);
/// The same on Theorem 1's completion family `p` at sequence length T.
ContinuityWitness find_continuity_witness(const Model& model, const CompletionFamilyParams& p, int T, std::uint64_t seed,
                                          int starts = 24);

/// One model held against a floor: the witness (its search recorded as `check_id`'s own computation, the floor being
/// what the check judges), its ratio to the floor, and whether every readout's error at the pair reaches the floor
/// (up to a relative 1e-6: the two states coincide only to the search's residual).
struct FloorWitness {
  ContinuityWitness witness;
  double ratio = 0;
  bool holds = false;
};
FloorWitness witness_against_floor(const Model& model, const RevealingFamily& family, double floor, std::uint64_t seed,
                                   const std::string& check_id);

/// A random continuous single-layer model of C1(h, n): token dimension d, an FFN encoder of width 8, a positional table
/// of T rows, h heads of value dimension n, an FFN readout; weights of scale `scale` (seeded).
Model random_continuous_single_layer(int T, int h, int n, std::uint64_t seed, double scale, int d = 2);

/// The prefix summary Φ(P) of a single-layer model: per head, log Ψ and the weighted mean of V u (double). `layout` is
/// ParamLayout(model.arch), taken from the caller since the witness search evaluates the summary thousands of times.
std::vector<double> prefix_summary(const Model& model, const ParamLayout& layout,
                                   const std::vector<std::vector<double>>& prefix);

}  // namespace infoflow
