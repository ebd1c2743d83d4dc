#include "numerics/lower_bounds/completion_packing.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace infoflow {

namespace {

void validate(const SingleLayerClass& cls, const PackingFamily& fam, double eps) {
  if (cls.heads < 1 || cls.heads > 64) throw InputError("--heads", "expected 1 <= h <= 64");
  if (cls.value_dim < 1 || cls.value_dim > 4096) throw InputError("--n", "expected 1 <= n <= 4096");
  if (fam.coordinates < 1 || fam.completions < 1) throw InputError("family", "expected >= 1 coordinate and completion");
  if (!(fam.output_range > 0) || !std::isfinite(fam.output_range))
    throw InputError("family", "expected a finite output range > 0");
  if (!(eps > 0 && eps < 1)) throw InputError("--eps", "expected 0 < eps < 1");
}

// The largest number of grid steps G − 1 tried: 2^62, so that G fits a long. Every candidate G − 1 is an integer that a
// double holds exactly (⌊s⌋ below 2^53, any double above), so arb receives it exactly; G itself is formed in arb.
constexpr double kLargestSteps = 4611686018427387904.0;  // 2^62

// G − 1 as the double that holds it exactly (a grid the packing cannot represent is a bug in the caller).
double exact_steps(long G) {
  const double steps = static_cast<double>(G - 1);
  if (!(steps <= kLargestSteps) || static_cast<long>(steps) != G - 1)
    throw ContractError("completion_packing_bound", "G - 1 must be an integer a double holds exactly, <= 2^62");
  return steps;
}

// The container's dimension per head: n + 1 (value mean and normaliser); the mutant forgets the normaliser.
int container_dim_per_head(const SingleLayerClass& cls) {
  return mutated(Mutant::PackingWithoutNormaliser) ? cls.value_dim : cls.value_dim + 1;
}

// ln C = ln((h(n+1))!) − h·ln(n!).
template <class Log>
auto log_constant(const SingleLayerClass& cls, Log log_of) {
  auto acc = log_of(1.0);
  for (int k = 2; k <= cls.heads * container_dim_per_head(cls); ++k) acc += log_of(static_cast<double>(k));
  for (int head = 0; head < cls.heads; ++head)
    for (int k = 2; k <= cls.value_dim; ++k) acc -= log_of(static_cast<double>(k));
  return acc;
}

// ln of the right side of the packing inequality at t = δ/R (decreasing in t), with ln C computed once by the caller
// (it sums up to h(n + 1) logarithms and does not depend on t).
double log_capacity_double(const SingleLayerClass& cls, const PackingFamily& fam, double logC, double t) {
  const int u_factor = container_dim_per_head(cls) - cls.value_dim;  // 1, or 0 under the mutant
  const double sign = mutated(Mutant::PackingNormaliserSignFlipped) ? -1.0 : 1.0;
  return logC + cls.heads * (cls.value_dim * std::log1p(2.0 / t) + sign * u_factor * std::log1p(2.0 * fam.completions / t));
}

ArbBall log_capacity_arb(const SingleLayerClass& cls, const PackingFamily& fam, const ArbBall& t, long prec) {
  const ArbBall logC = log_constant(cls, [&](double v) { return log(ArbBall(v, prec)); });
  const int u_factor = container_dim_per_head(cls) - cls.value_dim;
  const ArbBall one(1.0, prec), two(2.0, prec);
  ArbBall per_head = ArbBall(static_cast<double>(cls.value_dim), prec) * log(one + two / t);
  if (u_factor) {
    const ArbBall normaliser = log(one + ArbBall(2.0 * fam.completions, prec) / t);
    per_head += mutated(Mutant::PackingNormaliserSignFlipped) ? -normaliser : normaliser;
  }
  return logC + ArbBall(static_cast<double>(cls.heads), prec) * per_head;
}

// The t at which the capacity equals N (double); +inf when N never exceeds the capacity (N ≤ C). 200 bisection steps
// on ln t, stopping early once the bracket stops moving: a step that leaves lo and hi unchanged leaves them unchanged
// for good (the next step is the same computation), so the early stop returns what all 200 steps would.
double radius_at_capacity(const SingleLayerClass& cls, const PackingFamily& fam, double logN) {
  const double logC = log_constant(cls, [](double v) { return std::log(v); });
  if (logN <= log_capacity_double(cls, fam, logC, 1e300)) return INFINITY;
  double lo = -745.0, hi = 690.0;  // ln t
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    const double before_lo = lo, before_hi = hi;
    if (log_capacity_double(cls, fam, logC, std::exp(mid)) > logN) lo = mid;
    else hi = mid;
    if (lo == before_lo && hi == before_hi) break;
  }
  return std::exp(hi);
}

}  // namespace

double completion_packing_bound_double(const SingleLayerClass& cls, const PackingFamily& fam, double eps, long G) {
  validate(cls, fam, eps);
  if (G < 2) return 0;
  const double g = fam.output_range / static_cast<double>(G - 1);
  if (!(g > 2 * eps)) return 0;
  const double t = radius_at_capacity(cls, fam, fam.coordinates * std::log(static_cast<double>(G)));
  return std::isfinite(t) ? (g - 2 * eps) / t : 0.0;
}

double completion_packing_bound_at_grid(const SingleLayerClass& cls, const PackingFamily& fam, double eps, long G,
                                        double* radius_upper, long prec) {
  validate(cls, fam, eps);
  if (radius_upper) *radius_upper = INFINITY;
  if (G < 2) return 0;
  const ArbBall steps(exact_steps(G), prec);
  const ArbBall gap = ArbBall(fam.output_range, prec) / steps;
  const ArbBall margin = gap - ArbBall(2.0 * eps, prec);
  if (!(margin.lower() > 0)) return 0;
  const ArbBall logN = ArbBall(static_cast<double>(fam.coordinates), prec) * log(steps + ArbBall(1.0, prec));
  const double t_guess = radius_at_capacity(cls, fam, logN.mid());
  if (!std::isfinite(t_guess)) return 0;
  // Certify t_up: capacity(t_up) < N, so the true δ/R lies below t_up (the capacity decreases in t).
  for (double widen = 1e-12; widen < 1.0; widen *= 100) {
    const double t_up = t_guess * (1 + widen);
    const ArbBall t(t_up, prec);
    if (less(log_capacity_arb(cls, fam, t, prec), logN) == Tribool::True) {
      if (radius_upper) *radius_upper = t_up;
      const double lr = (margin / t).lower();
      return std::isfinite(lr) && lr > 0 ? lr : 0.0;
    }
  }
  return 0;
}

ClassPackingBound completion_packing_bound(const SingleLayerClass& cls, const PackingFamily& fam, double eps, long prec) {
  validate(cls, fam, eps);
  ClassPackingBound b;
  b.eps = eps;
  b.exponent = static_cast<double>(fam.coordinates) / cls.embedding_dim() - 1.0;
  b.trivial = std::max(0.0, (fam.target_range - 2 * eps) / (2.0 * cls.heads));
  // Grid sizes to try: G − 1 from the largest with g > 2ε down by factors of 1.25, the analytic optimum
  // g = 2εα/(α − 1) (α = r/(h(n+1)) > 1) and its neighbours, and G = 2.
  // G − 1 steps with g > 2ε; at most kLargestSteps (below the ε that needs more, the grid stops refining and the bound
  // stops growing, still valid).
  const double steps_max = std::min(std::floor(fam.output_range / (2 * eps) * (1 - 1e-12)), kLargestSteps);
  std::set<long> candidates{2};
  if (steps_max >= 1 && !mutated(Mutant::PackingGridStuckAtTwo)) {
    for (double s = steps_max; s >= 1; s /= 1.25) candidates.insert(static_cast<long>(std::floor(s)) + 1);
    const double alpha = static_cast<double>(fam.coordinates) / cls.embedding_dim();
    if (alpha > 1) {
      const double steps_opt = fam.output_range / (2 * eps * alpha / (alpha - 1));
      for (double f : {0.9, 0.95, 1.0, 1.05, 1.1}) {
        const double s = std::floor(steps_opt * f);
        if (s >= 1 && s <= steps_max) candidates.insert(static_cast<long>(s) + 1);
      }
    }
  }
  long best_G = 0;
  double best = 0;
  for (long G : candidates) {
    const double v = completion_packing_bound_double(cls, fam, eps, G);
    if (v > best) best = v, best_G = G;
  }
  if (best_G == 0) return b;
  b.grid = best_G;
  b.gap = fam.output_range / static_cast<double>(best_G - 1);
  b.log10_prefixes = fam.coordinates * std::log10(static_cast<double>(best_G));
  b.lr_lower = completion_packing_bound_at_grid(cls, fam, eps, best_G, &b.radius_upper, prec);
  b.vacuous = !(b.lr_lower > b.trivial);
  return b;
}

namespace {

// 1 − 2ε as a ball; the callers return 0 for ε ≥ 1/2.
ArbBall dilution_margin(double eps, long prec) {
  return ArbBall(1.0, prec) - ArbBall(2.0, prec) * ArbBall(eps, prec);
}

void validate_dilution(int T, double eps) {
  if (T < 2) throw InputError("--T", "expected T >= 2");
  if (!(eps > 0 && eps < 1)) throw InputError("--eps", "expected 0 < eps < 1");
}

}  // namespace

double dilution_lower_bound(int T, double eps, bool positional) {
  validate_dilution(T, eps);
  if (eps >= 0.5) return 0;
  const long prec = 128;
  // Without positions: the smaller of the two state gaps is ≤ 2R/T. With them: the mediant of the 2T gap bounds
  // is 4R/T (docs/lower-bounds.md §4), so some gap is ≤ 4R/T.
  const double factor = positional ? 4.0 : mutated(Mutant::DilutionBoundDoubled) ? 1.0 : 2.0;
  return (dilution_margin(eps, prec) * ArbBall(static_cast<double>(T), prec) / ArbBall(factor, prec)).lower();
}

double dilution_lower_bound_minimiser(int T, double eps) {
  validate_dilution(T, eps);
  if (eps >= 0.5 || T < 3) return 0;
  const long prec = 128;
  return (dilution_margin(eps, prec) * ArbBall(T - 2.0, prec) / ArbBall(4.0, prec)).lower();
}

}  // namespace infoflow
