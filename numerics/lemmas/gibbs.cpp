#include "numerics/lemmas/gibbs.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace infoflow {

namespace {
ArbBall e_const(long prec) {
  ArbBall e(prec);
  arb_const_e(e.raw(), prec);
  return e;
}
void require_T(long T) {
  if (T < 1) throw ContractError("gibbs_excess_sup", "T: expected a sequence length T >= 1, got " + std::to_string(T));
}
}  // namespace

ArbBall gibbs_excess_simple_bound(long T, const ArbBall& beta) {
  require_T(T);
  const ArbBall simple = ArbBall(static_cast<double>(T - 1), beta.prec()) / (e_const(beta.prec()) * beta);
  return mutated(Mutant::GibbsSimpleBoundHalved) ? simple * ArbBall(0.5, beta.prec()) : simple;
}

ArbBall gibbs_excess_sup(long T, const ArbBall& beta) {
  require_T(T);
  const ArbBall x = ArbBall(static_cast<double>(T - 1), beta.prec()) / e_const(beta.prec());
  const ArbBall sup = lambert_w(x) / beta;
  return mutated(Mutant::GibbsSupTooSmall) ? sup * ArbBall(0.9, beta.prec()) : sup;
}

ArbBall gibbs_excess_worst_gap(long T, const ArbBall& beta) {
  require_T(T);
  const ArbBall x = ArbBall(static_cast<double>(T - 1), beta.prec()) / e_const(beta.prec());
  return (ArbBall(1.0, beta.prec()) + lambert_w(x)) / beta;
}

double gibbs_excess_sup_bruteforce(long T, double beta) {
  require_T(T);
  const double n = static_cast<double>(T - 1);
  auto f = [&](double g) { return n * g * std::exp(-beta * g) / (1.0 + n * std::exp(-beta * g)); };
  // The excess of a general vector is a weighted average of per-gap terms, each maximised at a
  // common gap; scan the gap on a grid and refine by golden section around the best cell.
  const double hi = (std::log(n + 1.0) + 10.0) / beta;
  const int N = 20000;
  int best = 0;
  for (int i = 1; i <= N; ++i)
    if (f(hi * i / N) > f(hi * best / N)) best = i;
  double a = hi * std::max(0, best - 1) / N, b = hi * std::min(N, best + 1) / N;
  const double r = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 200; ++it) {
    const double c = b - r * (b - a), d = a + r * (b - a);
    if (f(c) > f(d)) b = d;
    else a = c;
  }
  return f((a + b) / 2);
}

ArbBall gap_retrieval_off_weight_bound(long T, const ArbBall& beta, const ArbBall& gap) {
  require_T(T);
  const ArbBall n(static_cast<double>(T - 1), beta.prec());
  const ArbBall q = n * exp(-(beta * gap));
  const ArbBall off = q / (ArbBall(1.0, beta.prec()) + q);
  return mutated(Mutant::L2BoundHalved) ? off * ArbBall(0.5, beta.prec()) : off;
}

double softmax_rank_weight_excess(const std::vector<double>& scores, double beta) {
  std::vector<double> s = scores;
  std::sort(s.begin(), s.end(), std::greater<>());
  double den = 0.0;
  for (double v : s) den += std::exp(beta * (v - s[0]));
  double worst = -1.0;
  for (std::size_t k = 0; k < s.size(); ++k) {
    const double w = std::exp(beta * (s[k] - s[0])) / den;
    worst = std::max(worst, w - 1.0 / static_cast<double>(mutated(Mutant::RankWeightThreshold) ? k + 2 : k + 1));
  }
  return worst;
}

}  // namespace infoflow
