#include "numerics/fit/witness_search.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <ceres/ceres.h>

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {

using Seq = std::vector<std::vector<double>>;

Seq unflatten(const double* v, int T, int d) {
  Seq X(T, std::vector<double>(d));
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) X[t][i] = v[t * d + i];
  return X;
}
std::vector<double> flatten(const Seq& X) {
  std::vector<double> v;
  for (const auto& x : X) v.insert(v.end(), x.begin(), x.end());
  return v;
}

double state_distance(const Model& m, const ParamLayout& L, const Seq& X1, const Seq& X2) {
  const auto s1 = forward(m, L, X1).cls_state, s2 = forward(m, L, X2).cls_state;
  double d2 = 0;
  for (std::size_t i = 0; i < s1.size(); ++i) d2 += (s1[i] - s2[i]) * (s1[i] - s2[i]);
  return std::sqrt(d2);
}

// Residuals: the E state differences, and a hinge that is zero once the target gap reaches the goal.
struct WitnessResidual {
  const Model& m;
  const ParamLayout& L;
  const Target& F;
  int T, d;
  double goal, weight;
  bool operator()(double const* const* p, double* r) const {
    const Seq X1 = unflatten(p[0], T, d), X2 = unflatten(p[1], T, d);
    const auto s1 = forward(m, L, X1).cls_state, s2 = forward(m, L, X2).cls_state;
    for (std::size_t i = 0; i < s1.size(); ++i) r[i] = s1[i] - s2[i];
    r[s1.size()] = weight * std::max(0.0, goal - std::fabs(F(X1) - F(X2)));
    return true;
  }
};

}  // namespace

WitnessPair search_witness(const Model& model, const Target& F, int T, double eps, const WitnessSearchOptions& o) {
  if (!(eps > 0)) throw ContractError("search_witness", "eps: expected eps > 0");
  const int d = model.arch.d, E = model.arch.E;
  const ParamLayout L(model.arch);
  const double gap_factor = mutated(Mutant::WitnessGapRelaxed) ? 1.5 : 3.0;
  const double goal = gap_factor * eps * (1.0 + o.margin);
  SplitMix64 rng(derive_seed(o.seed, "witness"));

  struct Cand {
    double dist;
    Seq X1, X2;
  };
  std::vector<Cand> pool;
  for (int c = 0; c < o.candidates; ++c) {
    Seq X1(T, std::vector<double>(d)), X2;
    for (auto& x : X1)
      for (auto& v : x) v = rng.uniform();
    X2 = X1;
    if (c % 2 == 0) {  // a fresh pair
      for (auto& x : X2)
        for (auto& v : x) v = rng.uniform();
    } else {  // move one token, or scale every token toward a corner
      const double step = rng.uniform(0.0, 1.0);
      auto& x = X2[rng.uniform_index(T)];
      for (auto& v : x) v = std::clamp(v + step * (rng.uniform() - 0.5) * 2.0, 0.0, 1.0);
    }
    if (std::fabs(F(X1) - F(X2)) < goal) continue;
    pool.push_back({state_distance(model, L, X1, X2), X1, X2});
  }
  std::sort(pool.begin(), pool.end(), [](const Cand& a, const Cand& b) { return a.dist < b.dist; });
  if (pool.size() > static_cast<std::size_t>(o.refine)) pool.resize(o.refine);

  WitnessPair best;
  for (const auto& c : pool) {
    std::vector<double> x1 = flatten(c.X1), x2 = flatten(c.X2);
    ceres::Problem problem;
    auto* cost = new ceres::DynamicNumericDiffCostFunction<WitnessResidual, ceres::CENTRAL>(
        new WitnessResidual{model, L, F, T, d, goal, 10.0});
    cost->AddParameterBlock(T * d);
    cost->AddParameterBlock(T * d);
    cost->SetNumResiduals(E + 1);
    problem.AddResidualBlock(cost, nullptr, x1.data(), x2.data());
    for (double* blk : {x1.data(), x2.data()})
      for (int i = 0; i < T * d; ++i) {
        problem.SetParameterLowerBound(blk, i, 0.0);
        problem.SetParameterUpperBound(blk, i, 1.0);
      }
    ceres::Solver::Options so;
    so.max_num_iterations = o.max_iterations;
    so.linear_solver_type = ceres::DENSE_QR;
    so.num_threads = 1;
    so.logging_type = ceres::SILENT;
    ceres::Solver::Summary summary;
    ceres::Solve(so, &problem, &summary);
    // Keep the refined pair only if it still meets the gap; otherwise the candidate itself.
    Seq R1 = unflatten(x1.data(), T, d), R2 = unflatten(x2.data(), T, d);
    if (std::fabs(F(R1) - F(R2)) < gap_factor * eps * (1.0 + o.margin / 2)) R1 = c.X1, R2 = c.X2;
    const double dist = state_distance(model, L, R1, R2);
    if (dist < best.state_distance) {
      best.found = true;
      best.state_distance = dist;
      best.target_gap = std::fabs(F(R1) - F(R2));
      best.X1 = R1;
      best.X2 = R2;
    }
  }
  return best;
}

}  // namespace infoflow
