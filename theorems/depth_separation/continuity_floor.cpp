#include "theorems/depth_separation/continuity_floor.hpp"

#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

namespace infoflow {

namespace {
constexpr long kPrec = 128;

// The family input P(θ)⊕z_j at sequence length T: the m' family tokens, T − 1 − m' copies of x_1, then z_j.
std::vector<std::vector<double>> padded_input(const CompletionFamilyParams& p, const std::vector<double>& theta, int j, int T) {
  const auto X = completion_family_input(p, theta, j);  // m' + 1 tokens
  std::vector<std::vector<double>> out(X.begin(), X.begin() + p.m);
  while (static_cast<int>(out.size()) < T - 1) out.push_back(X.front());
  out.push_back(X.back());
  return out;
}

double lower_abs(const ArbBall& e) { return std::max(0.0, std::max(e.lower(), -e.upper())); }
}  // namespace

double half_range_floor(double range_lower) {
  // Half the range: the two inputs of a fibre have targets the range apart and one output. (The mutant takes all of it.)
  const ArbBall half = mutated(Mutant::ContinuityFloorWholeRange) ? ArbBall(range_lower, kPrec)
                                                                  : ArbBall(range_lower, kPrec) / ArbBall(2.0, kPrec);
  return half.lower();
}

RevealingFamily completion_revealing_family(const CompletionFamilyParams& p, int T) {
  if (p.m < 2 || p.m > T - 1) throw ContractError("completion_revealing_family", "a family with 2 <= m' <= T - 1");
  RevealingFamily f;
  f.m = p.m;
  f.rho = p.rho;
  f.prefix = [p, T](const std::vector<double>& theta) {
    auto X = padded_input(p, theta, 0, T);
    X.pop_back();
    return X;
  };
  f.completion = [p](int j) {
    const std::vector<double> zero(p.m, 0.0);
    return std::vector<std::vector<double>>{completion_family_input(p, zero, j).back()};
  };
  f.target = [](const Sequence<ArbBall>& X) { return MinPairwiseDot{}(X); };
  return f;
}

std::optional<ContinuityFloor> continuity_floor(int T, int h, int n,
                                                const std::map<int, CompletionFamilyCertificate>& families_by_m) {
  if (T < 1 || h < 1 || n < 1) throw ContractError("continuity_floor", "T, h, n >= 1");
  std::optional<ContinuityFloor> best;
  for (const auto& [m, cert] : families_by_m) {
    // Lebesgue needs the box's dimension above the summary's, h(n+1); padding needs m' <= T - 1.
    if (m <= h * (n + 1) || m > T - 1 || !cert.certified || !(cert.output_range_lower > 0)) continue;
    if (best && cert.output_range_lower <= best->range_lower) continue;
    ContinuityFloor f;
    f.T = T, f.h = h, f.n = n, f.m = m;
    f.range_lower = cert.output_range_lower;
    f.floor_lower = half_range_floor(f.range_lower);
    best = f;
  }
  return best;
}

std::vector<double> prefix_summary(const Model& model, const ParamLayout& L,
                                   const std::vector<std::vector<double>>& prefix) {
  if (L.layers().size() != 1) throw ContractError("prefix_summary", "a single-layer model");
  const int E = model.arch.E;
  const std::vector<double> cls(model.params.begin() + static_cast<std::ptrdiff_t>(L.cls0()),
                                model.params.begin() + static_cast<std::ptrdiff_t>(L.cls0()) + E);
  const auto matvec = [&](std::size_t off, int rows, const std::vector<double>& x) {
    std::vector<double> y(rows, 0.0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < E; ++c) y[r] += model.params[row_major_index(off, E, r, c)] * x[c];
    return y;
  };
  std::vector<std::vector<double>> states;
  for (std::size_t t = 0; t < prefix.size(); ++t) states.push_back(token_state(model, L, prefix[t], static_cast<int>(t)));
  std::vector<double> out;
  for (const HeadOffsets& ho : L.layers().front().heads) {
    const std::vector<double> q = matvec(ho.Q, ho.key_dim, cls);
    const double beta = model.temperatures[ho.temperature];
    std::vector<double> logits;
    std::vector<std::vector<double>> values;
    for (const auto& u : states) {
      const std::vector<double> k = matvec(ho.K, ho.key_dim, u);
      double s = 0;
      for (int i = 0; i < ho.key_dim; ++i) s += q[i] * k[i];
      logits.push_back(beta * s);
      values.push_back(matvec(ho.V, ho.value_dim, u));
    }
    const double top = *std::max_element(logits.begin(), logits.end());
    double denom = 0;
    std::vector<double> mean(ho.value_dim, 0.0);
    for (std::size_t t = 0; t < logits.size(); ++t) {
      const double w = std::exp(logits[t] - top);
      denom += w;
      for (int i = 0; i < ho.value_dim; ++i) mean[i] += w * values[t][i];
    }
    out.push_back(top + std::log(denom));
    for (double v : mean) out.push_back(v / denom);
  }
  return out;
}

ContinuityWitness find_continuity_witness(const Model& model, const CompletionFamilyParams& p, int T, std::uint64_t seed,
                                          int starts) {
  return find_continuity_witness(model, completion_revealing_family(p, T), seed, starts);
}

ContinuityWitness find_continuity_witness(const Model& model, const RevealingFamily& family, std::uint64_t seed,
                                          int starts) {
  if (model.arch.layers.size() != 1) throw ContractError("find_continuity_witness", "a single-layer model");
  const int m = family.m;
  const double rho = family.rho;
  if (m < 2 || !(rho > 0)) throw ContractError("find_continuity_witness", "a family with m >= 2 and rho > 0");
  const ParamLayout layout(model.arch);
  const auto summary_of = [&](const std::vector<double>& theta) {
    return prefix_summary(model, layout, family.prefix(theta));
  };
  ContinuityWitness best;
  double best_residual = INFINITY;
  SplitMix64 rng(seed);
  for (int j = 0; j < m; ++j) {
    // Unknowns: θ and θ′ without their j-th coordinates (θ_j = 0, θ′_j = ρ), each in [0, ρ].
    const auto split = [&](const Eigen::VectorXd& z) {
      std::vector<double> a(m), b(m);
      int k = 0;
      for (int i = 0; i < m; ++i) {
        if (i == j) {
          a[i] = 0, b[i] = rho;
          continue;
        }
        a[i] = z[k], b[i] = z[k + m - 1];
        ++k;
      }
      return std::pair{a, b};
    };
    const auto residual = [&](const Eigen::VectorXd& z) {
      const auto [a, b] = split(z);
      const std::vector<double> sa = summary_of(a), sb = summary_of(b);
      Eigen::VectorXd r(static_cast<Eigen::Index>(sa.size()));
      for (std::size_t i = 0; i < sa.size(); ++i) r[static_cast<Eigen::Index>(i)] = sa[i] - sb[i];
      return r;
    };
    const Eigen::Index vars = 2 * (m - 1);
    for (int s = 0; s < starts; ++s) {
      ++best.starts;
      Eigen::VectorXd z(vars);
      for (Eigen::Index i = 0; i < vars; ++i) z[i] = rng.uniform(0, rho);
      Eigen::VectorXd r = residual(z);
      double lambda = 1e-3;
      for (int it = 0; it < 200 && r.lpNorm<Eigen::Infinity>() > 1e-14; ++it) {
        Eigen::MatrixXd J(r.size(), vars);
        for (Eigen::Index i = 0; i < vars; ++i) {
          Eigen::VectorXd zh = z;
          const double step = 1e-7 * rho * (z[i] > 0.5 * rho ? -1 : 1);
          zh[i] += step;
          J.col(i) = (residual(zh) - r) / step;
        }
        const Eigen::MatrixXd A = J.transpose() * J;
        const Eigen::VectorXd g = J.transpose() * r;
        bool improved = false;
        for (int tries = 0; tries < 8 && !improved; ++tries) {
          Eigen::MatrixXd D = A;
          D.diagonal().array() += lambda * (A.diagonal().array() + 1e-12);
          Eigen::VectorXd zn = z - D.ldlt().solve(g);
          for (Eigen::Index i = 0; i < vars; ++i) zn[i] = std::clamp(zn[i], 0.0, rho);
          const Eigen::VectorXd rn = residual(zn);
          if (rn.squaredNorm() < r.squaredNorm()) {
            z = zn, r = rn, lambda = std::max(lambda / 4, 1e-12), improved = true;
          } else {
            lambda *= 8;
          }
        }
        if (!improved) break;
      }
      const double res = r.lpNorm<Eigen::Infinity>();
      if (res < best_residual) {
        best_residual = res;
        const auto [a, b] = split(z);
        best.j = j, best.theta = a, best.theta_prime = b, best.summary_residual = res;
      }
      if (best_residual <= 1e-13) break;
    }
    if (best_residual <= 1e-13) break;
  }
  if (best.j < 0) return best;
  // The model at the two inputs, in arb: its outputs, its CLS states and the targets computed directly.
  const ModelT<ArbBall> mb = convert_model<ArbBall>(model, Precision{kPrec});
  const auto at = [&](const std::vector<double>& theta) {
    auto tokens = family.prefix(theta);
    for (auto& z : family.completion(best.j)) tokens.push_back(z);
    const Sequence<ArbBall> X = convert_sequence<ArbBall>(tokens, Precision{kPrec});
    return std::pair{forward(mb, X), family.target(X)};
  };
  const auto [r1, f1] = at(best.theta);
  const auto [r2, f2] = at(best.theta_prime);
  best.output_gap = abs(r1.y - r2.y).upper();
  best.error_lower = std::max(lower_abs(r1.y - f1), lower_abs(r2.y - f2));
  ArbBall gap2(0.0, kPrec);
  for (std::size_t i = 0; i < r1.cls_state.size(); ++i) gap2 += (r1.cls_state[i] - r2.cls_state[i]) * (r1.cls_state[i] - r2.cls_state[i]);
  best.state_gap = sqrt_nonneg(gap2).upper();
  best.target_gap = lower_abs(f1 - f2);
  best.readout_lipschitz = readout_lipschitz_upper(mb).value;
  const ArbBall any = (ArbBall(best.target_gap, kPrec) - ArbBall(best.readout_lipschitz, kPrec) * ArbBall(best.state_gap, kPrec)) /
                      ArbBall(2.0, kPrec);
  best.any_readout_error_lower = std::max(0.0, any.lower());
  best.found = std::isfinite(best.output_gap) && std::isfinite(best.state_gap);
  return best;
}

FloorWitness witness_against_floor(const Model& model, const RevealingFamily& family, double floor, std::uint64_t seed,
                                   const std::string& check_id) {
  FloorWitness w;
  {
    const CheckComputation own(check_id);
    w.witness = find_continuity_witness(model, family, seed);
  }
  w.ratio = w.witness.any_readout_error_lower / floor;
  w.holds = w.witness.found && w.witness.any_readout_error_lower >= floor * (1 - 1e-6);
  return w;
}

Model random_continuous_single_layer(int T, int h, int n, std::uint64_t seed, double scale, int d) {
  Architecture a;
  a.d = d;
  a.E = std::max(4, h * n);
  a.positions = T;
  a.encoder = MapShape{MapKind::Ffn, d, a.E, 8};
  LayerShape layer;
  for (int i = 0; i < h; ++i) layer.heads.push_back(HeadShape{2, n});
  a.layers = {layer};
  a.readout = MapShape{MapKind::Ffn, a.E, 1, 8};
  a.validate();
  SplitMix64 rng(seed);
  Model m = make_model<double>(a);
  for (auto& w : m.params) w = rng.uniform(-scale, scale);
  for (auto& b : m.temperatures) b = rng.uniform(0.5, 2.0);
  return m;
}

}  // namespace infoflow
