#include "theorems/infoflow/intrinsic_construction.hpp"

#include "numerics/model/forward.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace infoflow {

SquareInterpolant SquareInterpolant::make(int knot_count, double range) {
  if (knot_count < 1 || !(range > 0) || !std::isfinite(range))
    throw ContractError("SquareInterpolant::make", "knot_count >= 1 and a finite range > 0");
  SquareInterpolant g;
  // Between consecutive interpolation points k_j < k_{j+1} the interpolant of z² has slope k_j + k_{j+1}; each unit
  // pair adds the change of slope at its knot.
  double previous_slope = 0;
  for (int j = 0; j < knot_count; ++j) {
    const double k = range * j / knot_count, next = range * (j + 1) / knot_count;
    g.knots.push_back(k);
    g.coefficients.push_back(k + next - previous_slope);
    previous_slope = k + next;
  }
  return g;
}

double SquareInterpolant::operator()(double z) const {
  double g = 0;
  for (std::size_t j = 0; j < knots.size(); ++j)
    g += coefficients[j] * (std::max(0.0, z - knots[j]) + std::max(0.0, -z - knots[j]));
  return g;
}

bool valid_construction_width(int width_per_family) { return width_per_family >= 16 && width_per_family % 16 == 0; }

Architecture intrinsic_construction_architecture(int D, int width_per_family) {
  ExperimentCell c;
  c.kind = ExperimentKind::IntrinsicDimension;
  c.D = D;
  c.h1 = c.h2 = D;
  c.E = intrinsic_dimension_E(D);
  c.ffn_per_family = width_per_family;
  return experiment_architecture(c);
}

namespace {

// One family's rank-one terms: A = Σ_r σ_r U_r V_rᵀ, stored as a_r = √σ_r U_r and b_r = √σ_r V_r, with the knots'
// range c·√σ_r.
struct FamilyTerms {
  std::array<std::array<double, 4>, 4> a{}, b{};
  std::array<double, 4> range{};
};

FamilyTerms family_terms(const std::array<double, 16>& A, double range_multiplier) {
  Eigen::Matrix4d M;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) M(r, c) = A[4 * r + c];
  const Eigen::JacobiSVD<Eigen::Matrix4d> svd(M, Eigen::ComputeFullU | Eigen::ComputeFullV);
  FamilyTerms f;
  for (int r = 0; r < 4; ++r) {
    const double root = std::sqrt(svd.singularValues()(r));
    for (int c = 0; c < 4; ++c) {
      f.a[r][c] = root * svd.matrixU()(c, r);
      f.b[r][c] = root * svd.matrixV()(c, r);
    }
    // A singular term (σ_r = 0) contributes nothing; its knots still need a positive range.
    f.range[r] = range_multiplier * std::max(root, 1e-12);
  }
  return f;
}

double dot4(const std::array<double, 4>& w, const std::vector<double>& x) {
  return w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + w[3] * x[3];
}

void check_params(const IntrinsicDimensionTarget& target, const IntrinsicConstructionParams& p) {
  if (target.A.empty()) throw ContractError("intrinsic construction", "a target with D >= 1 families");
  if (!valid_construction_width(p.width_per_family))
    throw ContractError("intrinsic construction", "a width per family of 16m, m >= 1");
  if (!(p.range_multiplier > 0) || !(p.beta > 0) || !(p.y_scale > 0) || !std::isfinite(p.y_shift))
    throw ContractError("intrinsic construction", "a positive range multiplier, temperature and scale");
}

}  // namespace

Model intrinsic_dimension_construction(const IntrinsicDimensionTarget& target, const IntrinsicConstructionParams& p) {
  check_params(target, p);
  const int D = static_cast<int>(target.A.size());
  const Architecture arch = intrinsic_construction_architecture(D, p.width_per_family);
  const int E = arch.E;
  if (E < 5 * D + 4) throw ContractError("intrinsic_dimension_construction", "E >= 5D + 4");
  const ParamLayout L(arch);
  Model m = make_model<double>(arch);
  auto& w = m.params;
  const auto slot = [](int i) { return 4 + 4 * i; };  // the retrieved token of family i
  const int partial0 = 4 + 4 * D;                       // p̂_i sits at partial0 + i
  constexpr int kOut = 1, kOne = 0;                     // CLS coordinates: the layer-2 sum, the constant query

  for (int c = 0; c < 4; ++c) w[L.encoder().W + static_cast<std::size_t>(c) * 4 + c] = 1.0;
  w[L.cls0() + kOne] = 1.0;

  // Layer 1: head i scores (A_i q)·x(s) and copies x(s) into slot i.
  const LayerOffsets& l1 = L.layers()[0];
  for (int i = 0; i < D; ++i) {
    const HeadOffsets& h = l1.heads[i];
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) w[row_major_index(h.Q, E, r, c)] = target.A[i][4 * r + c];
      w[row_major_index(h.K, E, r, r)] = 1.0;
      w[row_major_index(h.V, E, r, r)] = 1.0;
      w[row_major_index(l1.W_O, l1.concat_dim, slot(i) + r, 4 * i + r)] = 1.0;
    }
    m.temperatures[h.temperature] = p.beta;
  }

  // The token FFN: for family i, term r, the squares of a_r·u ± b_r·x, each by its interpolant.
  const MapOffsets& f = l1.ffn;
  const int knots = p.width_per_family / 16;
  int unit = 0;
  for (int i = 0; i < D; ++i) {
    const FamilyTerms terms = family_terms(target.A[i], p.range_multiplier);
    for (int r = 0; r < 4; ++r) {
      const SquareInterpolant g = SquareInterpolant::make(knots, terms.range[r]);
      for (const double sign_b : {1.0, -1.0})        // (a·u + b·x)² enters with +¼, (a·u − b·x)² with −¼
        for (const double side : {1.0, -1.0})        // ReLU(z − k) and ReLU(−z − k)
          for (int j = 0; j < knots; ++j, ++unit) {
            for (int c = 0; c < 4; ++c) {
              w[row_major_index(f.W1, E, unit, slot(i) + c)] = side * terms.a[r][c];
              w[row_major_index(f.W1, E, unit, c)] = side * sign_b * terms.b[r][c];
            }
            w[f.b1 + unit] = -g.knots[j];
            w[row_major_index(f.W2, f.width, partial0 + i, unit)] = 0.25 * sign_b * g.coefficients[j];
          }
    }
  }

  // Layer 2: head i scores p̂_i(t) with the CLS's constant coordinate and retrieves it; W_O sums the heads.
  const LayerOffsets& l2 = L.layers()[1];
  for (int i = 0; i < D; ++i) {
    const HeadOffsets& h = l2.heads[i];
    w[row_major_index(h.Q, E, 0, kOne)] = 1.0;
    w[row_major_index(h.K, E, 0, partial0 + i)] = 1.0;
    w[row_major_index(h.V, E, 0, partial0 + i)] = 1.0;
    w[row_major_index(l2.W_O, l2.concat_dim, kOut, 2 * i)] = 1.0;
    m.temperatures[h.temperature] = p.beta;
  }
  w[L.readout().W + kOut] = 1.0 / p.y_scale;
  w[L.readout().b] = -p.y_shift / p.y_scale;
  return m;
}

double intrinsic_construction_direct(const IntrinsicDimensionTarget& target, const IntrinsicConstructionParams& p,
                                     const std::vector<std::vector<double>>& X) {
  check_params(target, p);
  const int knots = p.width_per_family / 16;
  double total = 0;
  for (const auto& A : target.A) {
    const FamilyTerms terms = family_terms(A, p.range_multiplier);
    std::array<SquareInterpolant, 4> g;
    for (int r = 0; r < 4; ++r) g[r] = SquareInterpolant::make(knots, terms.range[r]);
    double best = -std::numeric_limits<double>::infinity();
    for (const auto& xt : X) {
      // s* = argmax_s x(s)ᵀA x(t), the first on ties (the hard limit of layer 1's softmax).
      std::size_t s_star = 0;
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t s = 0; s < X.size(); ++s) {
        double score = 0;
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 4; ++c) score += X[s][r] * A[4 * r + c] * xt[c];
        if (score > top) top = score, s_star = s;
      }
      double partial = 0;
      for (int r = 0; r < 4; ++r) {
        const double au = dot4(terms.a[r], X[s_star]), bx = dot4(terms.b[r], xt);
        partial += 0.25 * (g[r](au + bx) - g[r](au - bx));
      }
      best = std::max(best, partial);
    }
    total += best;
  }
  return total;
}

ConstructionFloor intrinsic_construction_floor(int D, int T, int width_per_family, int tuning_samples, int samples,
                                               std::uint64_t target_seed, std::uint64_t sample_seed) {
  if (D < 1 || T < 1 || tuning_samples < 2 || samples < 2)
    throw ContractError("intrinsic_construction_floor", "D, T >= 1 and at least two tuning and evaluation samples");
  const IntrinsicDimensionTarget target = IntrinsicDimensionTarget::draw(D, target_seed);
  const std::string tag = "-D" + std::to_string(D) + "-T" + std::to_string(T) + "-w" + std::to_string(width_per_family);
  SplitMix64 tune_rng(derive_seed(sample_seed, "construction-tuning" + tag));
  std::vector<std::vector<std::vector<double>>> tuning;
  std::vector<double> F_tune;
  for (int n = 0; n < tuning_samples; ++n) {
    tuning.push_back(draw_experiment_sequence(ExperimentKind::IntrinsicDimension, T, tune_rng));
    F_tune.push_back(target(tuning.back()));
  }
  // The knots' range: the multiplier with the least centred squared error on the tuning sample. Too small a range
  // leaves the largest scores (the ones the maxima pick) on the linear tails; too large spreads the knots thin.
  IntrinsicConstructionParams p;
  p.width_per_family = width_per_family;
  double best_error = std::numeric_limits<double>::infinity(), best_bias = 0;
  for (int step = 4; step <= 28; ++step) {
    IntrinsicConstructionParams trial = p;
    trial.range_multiplier = 0.5 * step;
    std::vector<double> err;
    for (int n = 0; n < tuning_samples; ++n) err.push_back(intrinsic_construction_direct(target, trial, tuning[n]) - F_tune[n]);
    const double centred_error = population_variance(err);
    if (centred_error < best_error) best_error = centred_error, best_bias = mean_of(err), p.range_multiplier = trial.range_multiplier;
  }
  const double mu = mean_of(F_tune);
  p.y_scale = std::sqrt(population_variance(F_tune));
  p.y_shift = mu + best_bias;

  ConstructionFloor r;
  r.range_multiplier = p.range_multiplier;
  r.model = intrinsic_dimension_construction(target, p);
  const ParamLayout layout(r.model.arch);
  SplitMix64 eval_rng(derive_seed(sample_seed, "construction-evaluation" + tag));
  std::vector<double> sq_err, y;
  for (int n = 0; n < samples; ++n) {
    const auto X = draw_experiment_sequence(ExperimentKind::IntrinsicDimension, T, eval_rng);
    y.push_back((target(X) - mu) / p.y_scale);
    const double e = forward(r.model, layout, X).y - y.back();
    if (!std::isfinite(e)) throw NumericError("intrinsic_construction_floor: a non-finite output at D = " + std::to_string(D));
    sq_err.push_back(e * e);
  }
  r.result = score_squared_errors(std::move(sq_err), population_variance(y));
  r.result.parameters = layout.total_parameter_count();
  return r;
}

}  // namespace infoflow
