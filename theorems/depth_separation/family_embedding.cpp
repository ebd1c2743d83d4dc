#include "theorems/depth_separation/family_embedding.hpp"

#include "numerics/util/rng.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace infoflow {

namespace {

// Log-weights beyond ±40 change no state by more than e^−80 relative: the search gains nothing past them.
constexpr double kLogWeightLimit = 40;

// The search's coordinates: an unconstrained value (through tanh) and a clamped log-weight per table entry.
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
  if (m < 1 || G < 2) throw std::invalid_argument("family_grid: need m >= 1 and G >= 2");
  FamilyGrid grid;
  grid.m = m, grid.G = G;
  std::vector<int> idx(m, 0);
  while (true) {
    for (int j = 0; j < m; ++j) {
      std::vector<int> tokens(m + 1);
      for (int t = 0; t < m; ++t) tokens[t] = static_cast<int>(t * G + idx[t]);
      tokens[m] = static_cast<int>(m * G + j);
      grid.tokens.push_back(std::move(tokens));
    }
    int k = 0;
    while (k < m && ++idx[k] == G) idx[k++] = 0;
    if (k == m) break;
  }
  return grid;
}

std::vector<double> embedding_states(const FamilyGrid& grid, const FamilyEmbedding& emb) {
  std::vector<double> states;
  states.reserve(grid.tokens.size());
  for (const auto& tokens : grid.tokens) {
    // Weights relative to the input's largest, so that no exp overflows or underflows to a zero total.
    double top = -INFINITY;
    for (int k : tokens) top = std::max(top, emb.log_weight[k]);
    double mass = 0, moment = 0;
    for (int k : tokens) {
      const double psi = std::exp(emb.log_weight[k] - top);
      mass += psi;
      moment += psi * emb.value[k];
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
    for (int s = 0; s < steps && step > 1e-9; ++s) {
      for (std::size_t k = 0; k < x.size(); ++k) y[k] = x[k] + step * rng.normal();
      const double fy = cost(y);
      // One-fifth rule: grow the step on a success, shrink it on a failure, so that about 1 in 5 succeeds.
      if (fy <= fx) {
        x.swap(y), fx = fy, step *= 1.5;
      } else {
        step *= std::pow(1.5, -0.25);
      }
    }
    // Compass polish: the optimum sits on bounds (values ±1, negligible weights) and on ties of the max over pairs,
    // where a random step rarely improves; moving one coordinate at a time, with halving steps, gets there.
    // At most four sweeps per step length: along a ridge the gains shrink geometrically and would never stop.
    for (double h = 8; h > 1e-9; h /= 2)
      for (int sweep = 0, moved = 1; moved && sweep < 4; ++sweep) {
        moved = 0;
        for (std::size_t k = 0; k < x.size(); ++k)
          for (double sign : {1.0, -1.0}) {
            y = x;
            y[k] += sign * h;
            const double fy = cost(y);
            if (fy < fx) x.swap(y), fx = fy, moved = 1;
          }
      }
    if (fx < best) best = fx, best_x = x;
  }
  return embedding_from(best_x, entries);
}

EmbeddingCertificate certify_family_embedding(const FamilyGrid& grid, const FamilyEmbedding& emb,
                                              const std::vector<ArbBall>& targets, double e, long prec) {
  if (targets.size() != grid.tokens.size())
    throw std::invalid_argument("certify_family_embedding: one target per family input is needed");
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
      c.lipschitz = std::max(c.lipschitz, gap.lower() > 0 ? (need / gap).upper() : INFINITY);
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
    c.family_error = std::max(c.family_error, abs(f - targets[i]).upper());
  }
  return c;
}

}  // namespace infoflow
