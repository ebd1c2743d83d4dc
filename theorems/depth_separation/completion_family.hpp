#pragma once
// Theorem 1's completion family (docs/lower-bounds.md §2), d = 2: m = T − 1 prefix tokens
//     x_j = (1, 1) − (r + θ_j)(cos φ_j, sin φ_j),   θ ∈ [0, ρ]^m,
// and m completions z_j = s(cos φ_j, sin φ_j) at position T. The family is valid when, for every θ in the
// box and every j, the minimising pair of P⊕z_j is (z_j, x_j): then F(P⊕z_j) = s(cos φ_j + sin φ_j − r − θ_j),
// and completion j reveals θ_j with output scale s. Angles are φ_j = 2·atan(t_j) with t_j a double, so
// cos φ_j = (1 − t²)/(1 + t²) and sin φ_j = 2t/(1 + t²) are rationals that arb encloses exactly.
//
// Each condition is affine, bilinear, or a convex quadratic in at most three coordinates of θ. The search
// (double) finds parameters with a large range ρ·s; the certification decides every condition over its whole
// box in arb, splitting boxes until each is certified, and reports how many boxes that took.
#include "numerics/scalar/arb_ball.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace infoflow {

struct CompletionFamilyParams {
  int m = 0;            // prefix length T − 1
  double r = 0, s = 0, rho = 0;
  std::vector<double> t;  // φ_j = 2 atan(t_j), t_j in (0, 1)
  double output_range() const { return rho * s; }  // what neighbouring grid values move the target by, in all
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompletionFamilyParams, m, r, s, rho, t)

struct CompletionFamilyCertificate {
  CompletionFamilyParams params;
  bool certified = false;
  long conditions = 0;   // conditions decided
  long boxes = 0;        // boxes (or vertices) evaluated in arb, over all conditions
  std::string failure;   // the first condition that could not be certified
  double output_range_lower = 0;  // ρ·s rounded down (certified)
  std::string method = "boxes";   // "boxes" (interval evaluation, splitting) or "vertices" (exact at the extreme points)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompletionFamilyCertificate, params, certified, conditions, boxes, failure,
                                   output_range_lower, method)

/// The smallest value over θ ∈ [0, ρ]^m of every condition's slack (double; exact up to rounding: bilinear
/// functions are minimised at corners, the quadratics at their clamped vertex). ≥ 0 means valid.
double completion_family_min_slack(const CompletionFamilyParams& p);

/// Deterministic search (seeded) for parameters with a large ρ·s and every slack > 0 at ρ reduced by 5%.
CompletionFamilyParams search_completion_family(int m, std::uint64_t seed, int evaluations = 4000);

/// The family used for prefix length m: for 2 ≤ m ≤ 11 parameters found once by the search (4 seeds × 20,000
/// evaluations, ~1 min), for other m the search itself (4,000 evaluations, seeded). Either way nothing is
/// trusted: the suite certifies the parameters it gets before it uses them.
CompletionFamilyParams completion_family_for(int m, std::uint64_t seed);

/// Decides every condition over the whole box in arb. Boxes are split (widest side) until each condition is
/// certified or `max_boxes_per_condition` is reached (then certified = false and `failure` says which).
CompletionFamilyCertificate certify_completion_family(const CompletionFamilyParams& p, long max_boxes_per_condition = 4096,
                                                      long prec = 128);

/// The same r, s, t with ρ = keep·ρ_max, ρ_max the largest range with every slack ≥ 0 and every token in the square
/// (bisection in double). The stored families keep 0.95 of ρ_max; keep = 1 − 1e-6 raises the packing bound by up to
/// 0.95^−α (docs/lower-bounds.md §2). Nothing is trusted: certify the result.
CompletionFamilyParams tightened_completion_family(const CompletionFamilyParams& p, double keep = 1 - 1e-6);

/// Decides every condition exactly where its minimum can be: each slack is affine in each variable separately,
/// except a_k² in XX(k = k), a separable convex term; so the minimum over the box is at a vertex, or at the
/// parabola's vertex in the squared variable. Each candidate is evaluated in arb (the ends r and r + ρ rounded up
/// are doubles, the angles rationals), which decides a family a millionth below ρ_max where box splitting cannot.
CompletionFamilyCertificate certify_completion_family_at_vertices(const CompletionFamilyParams& p, long prec = 128);

/// The family input P(θ)⊕z_j as double tokens (for sampling and for `bound`): T = m + 1 tokens in [0,1]^2.
std::vector<std::vector<double>> completion_family_input(const CompletionFamilyParams& p, const std::vector<double>& theta,
                                                         int j);
/// The exact family input on the grid θ_k = ρ·index_k/(G − 1) followed by z_j, as arb balls (the tokens are the
/// real family's, enclosed; the double version above rounds them).
std::vector<std::vector<ArbBall>> completion_family_input_arb(const CompletionFamilyParams& p, long G,
                                                             const std::vector<long>& index, int j, long prec = 128);

/// The target on that input as the family says it is: s(cos φ_j + sin φ_j − r − θ_j).
double completion_family_value(const CompletionFamilyParams& p, const std::vector<double>& theta, int j);

}  // namespace infoflow
