#include "theorems/depth_separation/family_embedding.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/grid_points.hpp"
#include "numerics/util/rng.hpp"

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {

// Log-weights beyond ±40 change no state by more than e^−80 relative: the search gains nothing past them.
constexpr double kLogWeightLimit = 40;

// The search's coordinates: a value clamped to [−1, 1] (so the search can sit on the bound, where optima lie) and a
// clamped log-weight per table entry.
FamilyEmbedding embedding_from(const std::vector<double>& x, long entries) {
  FamilyEmbedding emb;
  emb.value.resize(entries);
  emb.log_weight.resize(entries);
  for (long k = 0; k < entries; ++k) {
    emb.value[k] = std::clamp(x[k], -1.0, 1.0);
    emb.log_weight[k] = std::clamp(x[entries + k], -kLogWeightLimit, kLogWeightLimit);
  }
  return emb;
}

double value_radius(const FamilyEmbedding& emb) {
  double R = 0;
  for (double v : emb.value) R = std::max(R, std::abs(v));
  return R;
}

}  // namespace

FamilyGrid family_grid(int m, long G) {
  if (m < 1 || G < 2) throw ContractError("family_grid", "need m >= 1 and G >= 2");
  if (std::pow(static_cast<double>(G), m) * m > 1e6) throw ContractError("family_grid", "more than 10^6 inputs");
  FamilyGrid grid;
  grid.m = m, grid.G = G;
  for_each_grid_point(m, G, [&](const std::vector<long>& idx) {
    for (int j = 0; j < m; ++j) {
      std::vector<int> tokens(m + 1);
      for (int t = 0; t < m; ++t) tokens[t] = static_cast<int>(t * G + idx[t]);
      tokens[m] = static_cast<int>(m * G + j);
      grid.tokens.push_back(std::move(tokens));
    }
  });
  return grid;
}

std::vector<double> embedding_states(const FamilyGrid& grid, const FamilyEmbedding& emb) {
  // Weights relative to the table's largest: |log ψ| ≤ 40 on the search's tables, so no exp over- or underflows to a
  // zero total (e^−80 is a normal double), and each entry's exp is taken once.
  const double top = *std::max_element(emb.log_weight.begin(), emb.log_weight.end());
  std::vector<double> psi(emb.log_weight.size());
  for (std::size_t k = 0; k < psi.size(); ++k) psi[k] = std::exp(emb.log_weight[k] - top);
  std::vector<double> states;
  states.reserve(grid.tokens.size());
  for (const auto& tokens : grid.tokens) {
    double mass = 0, moment = 0;
    for (int k : tokens) {
      mass += psi[k];
      moment += psi[k] * emb.value[k];
    }
    states.push_back(moment / mass);
  }
  return states;
}

double embedding_least_lipschitz(const FamilyGrid& grid, const FamilyEmbedding& emb, double e) {
  const std::vector<double> p = embedding_states(grid, emb);
  double L = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t k = i + 1; k < p.size(); ++k) {
      const double need = std::abs(grid.targets[i] - grid.targets[k]) - 2 * e;
      if (need <= 0) continue;
      const double gap = std::abs(p[i] - p[k]);
      L = std::max(L, gap > 0 ? need / gap : INFINITY);
    }
  return L;
}

FamilyEmbedding optimise_family_embedding(const FamilyGrid& grid, double e, std::uint64_t seed, int restarts, int steps) {
  if (restarts < 1 || steps < 0) throw ContractError("optimise_family_embedding", "need restarts >= 1 and steps >= 0");
  const long entries = grid.entries();
  const auto cost = [&](const std::vector<double>& x) {
    const FamilyEmbedding emb = embedding_from(x, entries);
    return embedding_least_lipschitz(grid, emb, e) * value_radius(emb);
  };
  std::vector<double> best_x;
  double best = INFINITY;
  for (int run = 0; run < restarts; ++run) {
    SplitMix64 rng(derive_seed(seed, "embedding-restart-" + std::to_string(run)));
    std::vector<double> x(2 * entries);
    for (double& v : x) v = 2 * rng.normal();
    double fx = cost(x), step = 1;
    std::vector<double> y(x.size());
    for (int s = 0; s < steps && step > 1e-9 && fx > 0; ++s) {
      for (std::size_t k = 0; k < x.size(); ++k) y[k] = x[k] + step * rng.normal();
      const double fy = cost(y);
      // One-fifth rule: grow the step on a success, shrink it on a failure, so that about 1 in 5 succeeds. The step
      // is capped, and a zero cost (e at half the range: every readout works) ends the run, so a flat cost cannot
      // grow the step without end.
      if (fy <= fx) {
        x.swap(y), fx = fy, step = std::min(1.5 * step, 16.0);
      } else {
        step *= std::pow(1.5, -0.25);
      }
    }
    // Compass polish: the optimum sits on bounds (values ±1, negligible weights) and on ties of the max over pairs,
    // where a random step rarely improves; moving one coordinate at a time, with halving steps, gets there. At most
    // three sweeps per step length: along a ridge the gains shrink geometrically and would never stop.
    for (double h = 8; h > 1e-9 && fx > 0; h /= 2)
      for (int sweep = 0, moved = 1; moved && sweep < 3; ++sweep) {
        moved = 0;
        for (std::size_t k = 0; k < x.size(); ++k)
          for (double sign : {1.0, -1.0}) {
            y = x;
            y[k] += sign * h;
            const double fy = cost(y);
            if (fy < fx) x.swap(y), fx = fy, moved = 1;
          }
      }
    if (best_x.empty() || fx < best) best = fx, best_x = x;  // the first stands even when every cost is infinite
  }
  return embedding_from(best_x, entries);
}

EmbeddingCertificate certify_family_embedding(const FamilyGrid& grid, const FamilyEmbedding& emb,
                                              const std::vector<ArbBall>& targets, double e, long prec) {
  if (targets.size() != grid.tokens.size())
    throw ContractError("certify_family_embedding", "one target per family input is needed");
  if (emb.value.size() != static_cast<std::size_t>(grid.entries()) || emb.log_weight.size() != emb.value.size())
    throw ContractError("certify_family_embedding", "the table needs one weight and one value per entry");
  if (!(std::isfinite(e) && e >= 0)) throw ContractError("certify_family_embedding", "the error e must be finite and >= 0");
  for (std::size_t k = 0; k < emb.value.size(); ++k)
    if (!(std::isfinite(emb.log_weight[k]) && std::abs(emb.value[k]) <= 1))
      throw ContractError("certify_family_embedding", "table entries must be finite with |value| <= 1");
  for (const ArbBall& y : targets)
    if (!y.is_finite()) throw ContractError("certify_family_embedding", "every target must be a finite ball");
  // A NaN bound must count as no bound: std::max would drop it.
  const auto raise = [](double& bound, double candidate) {
    if (!(candidate <= bound)) bound = std::isnan(candidate) ? INFINITY : candidate;
  };
  std::vector<ArbBall> p;
  p.reserve(grid.tokens.size());
  for (const auto& tokens : grid.tokens) {
    ArbBall mass(0.0, prec), moment(0.0, prec);
    for (int k : tokens) {
      const ArbBall psi = exp(ArbBall(emb.log_weight[k], prec));
      mass += psi;
      moment += psi * ArbBall(emb.value[k], prec);
    }
    p.push_back(moment / mass);
  }
  const ArbBall two_e = ArbBall(2.0, prec) * ArbBall(e, prec);
  EmbeddingCertificate c;
  c.value_radius = value_radius(emb);
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t k = i + 1; k < p.size(); ++k) {
      const ArbBall need = abs(targets[i] - targets[k]) - two_e;
      if (need.upper() <= 0) continue;
      const ArbBall gap = abs(p[i] - p[k]);
      raise(c.lipschitz, gap.lower() > 0 ? (need / gap).upper() : INFINITY);
    }
  c.lr = std::isfinite(c.lipschitz) ? (ArbBall(c.lipschitz, prec) * ArbBall(c.value_radius, prec)).upper() : INFINITY;
  if (!std::isfinite(c.lr)) {
    c.family_error = INFINITY;
    return c;
  }
  // The McShane readout f(p) = min_k (y_k + e + L|p − p_k|) with the certified L, evaluated at every state.
  const ArbBall L(c.lipschitz, prec), eb(e, prec);
  for (std::size_t i = 0; i < p.size(); ++i) {
    ArbBall f = targets[i] + eb;
    for (std::size_t k = 0; k < p.size(); ++k) f = min(f, targets[k] + eb + L * abs(p[i] - p[k]));
    raise(c.family_error, abs(f - targets[i]).upper());
  }
  return c;
}

namespace {

// The position of input (idx, j) in the grid's order (for_each_grid_point's, the completion innermost).
std::size_t grid_input(const FamilyGrid& grid, const std::vector<long>& idx, int j) {
  std::size_t prefix = 0;
  for (int k = grid.m - 1; k >= 0; --k) prefix = prefix * static_cast<std::size_t>(grid.G) + static_cast<std::size_t>(idx[k]);
  return prefix * static_cast<std::size_t>(grid.m) + static_cast<std::size_t>(j);
}

}  // namespace

double family_interleaving_bound(const FamilyGrid& grid, const std::vector<ArbBall>& targets, double e, long prec) {
  if (targets.size() != grid.tokens.size())
    throw ContractError("family_interleaving_bound", "one target per family input is needed");
  if (!(std::isfinite(e) && e >= 0)) throw ContractError("family_interleaving_bound", "the error e must be finite and >= 0");
  double best = 0;
  for (int j1 = 0; j1 < grid.m; ++j1)
    for (int j2 = j1 + 1; j2 < grid.m; ++j2) {
      // The eight inputs: coordinates j1, j2 at index 0 or G − 1 (the ends of the grid), the rest at 0.
      std::vector<std::size_t> high, low;
      for (long a : {0L, grid.G - 1})
        for (long b : {0L, grid.G - 1})
          for (int j : {j1, j2}) {
            std::vector<long> idx(grid.m, 0);
            idx[j1] = a, idx[j2] = b;
            (idx[j] == 0 ? high : low).push_back(grid_input(grid, idx, j));
          }
      ArbBall least_gap = abs(targets[high[0]] - targets[low[0]]);
      for (std::size_t h : high)
        for (std::size_t l : low) least_gap = min(least_gap, abs(targets[h] - targets[l]));
      const ArbBall margin = least_gap - ArbBall(2.0, prec) * ArbBall(e, prec);
      const double lower = margin.lower();
      if (lower > best) best = lower;  // a NaN never raises the bound
    }
  return best;
}

}  // namespace infoflow
