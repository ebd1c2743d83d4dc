// The class lower bounds' proof steps that no suite check recomputes (docs/lower-bounds.md §1, §3, §6): the segment
// lemma on random single-layer models with positions and several heads, the D-ball volume by Monte Carlo, and the
// step from L·R to parameter counts for weights in [−1, 1], each against a second route.
#include "numerics/lower_bounds/model_quantities.hpp"
#include "numerics/lower_bounds/parameter_bound.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <vector>

using namespace infoflow;

namespace {

Architecture bounded_architecture(int d, int T, int heads, int n, const BoundedWeightWidths& w) {
  Architecture a;
  a.d = d, a.E = w.E, a.positions = w.positions ? T : 0;
  a.encoder = w.encoder_width > 0 ? MapShape{MapKind::Ffn, d, w.E, w.encoder_width} : MapShape{MapKind::Affine, d, w.E, 0};
  a.layers = {LayerShape{std::vector<HeadShape>(heads, HeadShape{1, n}), 0}};
  a.readout = w.readout_width > 0 ? MapShape{MapKind::Ffn, w.E, 1, w.readout_width} : MapShape{MapKind::Affine, w.E, 1, 0};
  return a;
}

}  // namespace

TEST_CASE("parameter bound: a model of the class has at least the certified count, by a second route", "[lower-bounds]") {
  SplitMix64 rng = test::rng_for("parameter-bound-models");
  for (int trial = 0; trial < 40 * test::multiplier(); ++trial) {
    const int d = 2 + static_cast<int>(rng.uniform_index(2)), T = 2 + static_cast<int>(rng.uniform_index(6));
    const int h = 1 + static_cast<int>(rng.uniform_index(2)), n = 1 + static_cast<int>(rng.uniform_index(2));
    const BoundedWeightWidths w{1 + static_cast<int>(rng.uniform_index(5)), static_cast<int>(rng.uniform_index(4)),
                                static_cast<int>(rng.uniform_index(4)), rng.uniform() < 0.5};
    const BoundedWeightClass cls{d, T, h, n};
    const Architecture arch = bounded_architecture(d, T, h, n, w);
    // The count: the architecture's own layout, less queries and keys (not counted by the class).
    const ParamLayout layout(arch);
    double counted = static_cast<double>(layout.size());
    for (const HeadOffsets& ho : layout.layers()[0].heads) counted -= 2.0 * ho.key_dim * w.E;
    CHECK(counted == counted_parameters(cls, w));
    // L·R of random models with weights in [−1, 1] (and of the all-ones model), computed from their weights in arb:
    // never above the inequality's n E² f_r U.
    const double allowed = largest_lr_for_widths(cls, w);
    for (int which = 0; which < 2; ++which) {
      Model m = random_model(arch, rng, 1.0);
      if (which == 1)
        for (double& p : m.params) p = 1.0;
      const ModelT<ArbBall> mb = convert_model<ArbBall>(m, Precision{128});
      const double L = readout_lipschitz_upper(mb).value;
      double R = 0;
      for (double r : head_value_norms_on_box(mb, T, 0.0, 1.0, 2)) R = std::max(R, r);
      INFO("trial " << trial << " E=" << w.E << " p_e=" << w.encoder_width << " p_r=" << w.readout_width
                    << " positions=" << w.positions << " L=" << L << " R=" << R << " allowed=" << allowed);
      // The model quantities are arb upper bounds (R over interval cells, rounded up): 1e-6 covers their slack.
      CHECK(L * R <= allowed * (1 + 1e-6));
      // The all-ones model attains the inequality (docs/lower-bounds.md §6): it cannot be improved for the class.
      if (which == 1) CHECK(L * R >= allowed * (1 - 1e-6));
    }
    // And at the largest L·R these widths allow, the certified least count does not exceed theirs.
    CHECK(least_parameters_for_lr(cls, allowed).parameters <= counted);
  }
}

TEST_CASE("parameter bound: closed form, growth, and bad input", "[lower-bounds]") {
  const BoundedWeightClass cls{2, 9, 1, 1};
  double previous = 0;
  for (double B : {0.0, 1.0, 1e2, 1e4, 1e8, 1e12}) {
    const ParameterLowerBound b = least_parameters_for_lr(cls, B);
    CHECK(b.parameters >= previous);
    CHECK(b.parameters >= 2 + 4 + 2);  // the smallest model of the class: d + 4 + 2hn
    previous = b.parameters;
  }
  // For large B the FFN-encoder route decides: 2√(B/((d + 1)n)) + 2hn + 1 − 1/(d + 1), rounded up.
  const double B = 1e12;
  CHECK(least_parameters_for_lr(cls, B).parameters == std::ceil(2 * std::sqrt(B / 3) + 2 + 1 - 1.0 / 3));
  CHECK_THROWS_AS(least_parameters_for_lr(cls, -1), InputError);
  CHECK_THROWS_AS(least_parameters_for_lr(cls, INFINITY), InputError);
  CHECK_THROWS_AS(least_parameters_for_lr(BoundedWeightClass{2, 9, 0, 1}, 1), InputError);
}

TEST_CASE("two-layer construction: its counted parameters and its weights in [-1, 1]", "[lower-bounds]") {
  for (int d : {2, 3})
    for (double eps : {0.1, 0.01, 1e-3}) {
      const TwoLayerMinDotConstruction con(d, 4, eps);
      CHECK(TwoLayerMinDotConstruction::parameters_for(d, eps) == static_cast<double>(con.model().params.size()));
      for (double w : con.model().params) CHECK(std::fabs(w) <= 1.0);
    }
  // Below the widest model built the count still follows the architecture: M_ffn ∝ ε^−1/2.
  const double small = TwoLayerMinDotConstruction::parameters_for(2, 1e-20), smaller = TwoLayerMinDotConstruction::parameters_for(2, 1e-22);
  CHECK_THAT(smaller / small, Catch::Matchers::WithinRel(10.0, 1e-6));
}

TEST_CASE("packing: the unit ball of the sum norm has volume (2 n! V_n)^h / (h(n+1))! (Monte Carlo)", "[lower-bounds]") {
  // Uniform points in the cube [−1, 1]^{h(n+1)}; the fraction inside {Σ_i ‖a_i‖ + |v_i| ≤ 1} times 2^{h(n+1)}.
  SplitMix64 rng = test::rng_for("d-ball-volume");
  const long samples = 400000L * test::multiplier();
  for (const auto& [h, n] : {std::pair{1, 1}, std::pair{1, 2}, std::pair{2, 1}, std::pair{1, 3}}) {
    const int dim = h * (n + 1);
    long inside = 0;
    for (long s = 0; s < samples; ++s) {
      double norm = 0;
      for (int i = 0; i < h; ++i) {
        double sq = 0;
        for (int k = 0; k < n; ++k) {
          const double x = rng.uniform(-1, 1);
          sq += x * x;
        }
        norm += std::sqrt(sq) + std::fabs(rng.uniform(-1, 1));
      }
      inside += norm <= 1;
    }
    const double cube = std::ldexp(1.0, dim), p = static_cast<double>(inside) / samples;
    const double measured = p * cube, sigma = cube * std::sqrt(p * (1 - p) / samples);
    const double V_n = std::pow(std::numbers::pi, n / 2.0) / std::tgamma(n / 2.0 + 1);  // Euclidean unit n-ball
    const double formula = std::pow(2 * std::tgamma(n + 1.0) * V_n, h) / std::tgamma(dim + 1.0);
    INFO("h=" << h << " n=" << n << " Monte Carlo " << measured << " +- " << sigma << ", formula " << formula);
    CHECK(std::fabs(measured - formula) <= 5 * sigma);
  }
}

TEST_CASE("segment lemma: on random one-layer models with positions and several heads", "[lower-bounds]") {
  // ‖c(P⊕Z_j) − c(P′⊕Z_j)‖ ≤ D(P, P′) = Σ_i ‖a_i(P) − a_i(P′)‖ + 2R|u_i(P) − u_i(P′)|, with a_i, Ψ_i and u_i computed
  // here from the weights, and c from the toolkit's forward pass (a second route to the state).
  SplitMix64 rng = test::rng_for("segment-lemma");
  const int d = 2, E = 4, n = 2, m = 3, c_count = 3, T = m + 2;  // prefixes of m tokens, completions of 2
  long pairs = 0;
  double tightest = 0;  // the largest ‖Δc‖/D seen (≤ 1 by the lemma)
  for (int trial = 0; trial < 30 * test::multiplier(); ++trial) {
    const int heads = 1 + static_cast<int>(rng.uniform_index(3));
    Architecture a;
    a.d = d, a.E = E, a.positions = T;
    a.encoder = MapShape{MapKind::Affine, d, E, 0};
    a.layers = {LayerShape{std::vector<HeadShape>(heads, HeadShape{2, n}), 0}};
    a.readout = MapShape{MapKind::Affine, E, 1, 0};
    const Model model = random_model(a, rng, 1.5);
    const ParamLayout L(a);
    const LayerOffsets& lo = L.layers()[0];
    auto p = [&](std::size_t i) { return model.params[i]; };
    auto token_state = [&](const std::vector<double>& x, int t) {
      std::vector<double> u(E);
      for (int e = 0; e < E; ++e) {
        u[e] = p(L.encoder().b + e) + p(row_major_index(L.positional(), E, t, e));
        for (int k = 0; k < d; ++k) u[e] += p(row_major_index(L.encoder().W, d, e, k)) * x[k];
      }
      return u;
    };
    // Per head: the weight ψ_i(x, t) and the value w_i(x, t) = W_O^(i) V_i u.
    auto head_terms = [&](int i, const std::vector<double>& x, int t, std::vector<double>& w) {
      const HeadOffsets& ho = lo.heads[i];
      const std::vector<double> u = token_state(x, t);
      double score = 0;
      for (int r = 0; r < ho.key_dim; ++r) {
        double q = 0, k = 0;
        for (int e = 0; e < E; ++e) {
          q += p(row_major_index(ho.Q, E, r, e)) * p(L.cls0() + e);
          k += p(row_major_index(ho.K, E, r, e)) * u[e];
        }
        score += q * k;
      }
      std::vector<double> v(n, 0.0);
      for (int r = 0; r < n; ++r)
        for (int e = 0; e < E; ++e) v[r] += p(row_major_index(ho.V, E, r, e)) * u[e];
      w.assign(E, 0.0);
      for (int e = 0; e < E; ++e)
        for (int r = 0; r < n; ++r) w[e] += p(row_major_index(lo.W_O, lo.concat_dim, e, i * n + r)) * v[r];
      return std::exp(model.temperatures[ho.temperature] * score);
    };
    // Segment sums over positions [from, from + tokens.size()).
    struct Segment {
      std::vector<double> Psi;                 // per head
      std::vector<std::vector<double>> mean;   // per head, in R^E
    };
    double R = 0;
    auto segment = [&](const std::vector<std::vector<double>>& tokens, int from) {
      Segment s{std::vector<double>(heads, 0.0), std::vector<std::vector<double>>(heads, std::vector<double>(E, 0.0))};
      for (int i = 0; i < heads; ++i) {
        for (std::size_t t = 0; t < tokens.size(); ++t) {
          std::vector<double> w;
          const double psi = head_terms(i, tokens[t], from + static_cast<int>(t), w);
          double norm = 0;
          for (double v : w) norm += v * v;
          R = std::max(R, std::sqrt(norm));
          s.Psi[i] += psi;
          for (int e = 0; e < E; ++e) s.mean[i][e] += psi * w[e];
        }
        for (double& v : s.mean[i]) v /= s.Psi[i];
      }
      return s;
    };
    auto random_tokens = [&](int count) { return random_cube_sequence(count, d, rng); };
    std::vector<std::vector<std::vector<double>>> completions;
    std::vector<Segment> Z;
    for (int j = 0; j < c_count; ++j) completions.push_back(random_tokens(T - m));
    std::vector<std::vector<std::vector<double>>> prefixes;
    for (int k = 0; k < 6; ++k) prefixes.push_back(random_tokens(m));
    std::vector<Segment> P;
    for (const auto& pre : prefixes) P.push_back(segment(pre, 0));
    for (const auto& z : completions) Z.push_back(segment(z, m));
    auto cls_of = [&](const std::vector<std::vector<double>>& pre, const std::vector<std::vector<double>>& z) {
      std::vector<std::vector<double>> X = pre;
      X.insert(X.end(), z.begin(), z.end());
      return forward(model, X).cls_state;
    };
    for (std::size_t x = 0; x < prefixes.size(); ++x)
      for (std::size_t y = x + 1; y < prefixes.size(); ++y) {
        double D = 0;
        for (int i = 0; i < heads; ++i) {
          double gap = 0, u = 0, u_other = 0;
          for (int e = 0; e < E; ++e) gap += (P[x].mean[i][e] - P[y].mean[i][e]) * (P[x].mean[i][e] - P[y].mean[i][e]);
          for (int j = 0; j < c_count; ++j) {
            u += P[x].Psi[i] / (P[x].Psi[i] + Z[j].Psi[i]);
            u_other += P[y].Psi[i] / (P[y].Psi[i] + Z[j].Psi[i]);
          }
          D += std::sqrt(gap) + 2 * R * std::fabs(u - u_other);
        }
        for (int j = 0; j < c_count; ++j) {
          const auto c1 = cls_of(prefixes[x], completions[j]), c2 = cls_of(prefixes[y], completions[j]);
          // The decomposition c = ĉ0 + Σ_i λ a_i(P) + (1 − λ) a_i(Z) the lemma starts from, against the forward pass.
          for (int e = 0; e < E; ++e) {
            double mine = p(L.cls0() + e);
            for (int i = 0; i < heads; ++i)
              mine += (P[x].Psi[i] * P[x].mean[i][e] + Z[j].Psi[i] * Z[j].mean[i][e]) / (P[x].Psi[i] + Z[j].Psi[i]);
            CHECK_THAT(c1[e], Catch::Matchers::WithinAbs(mine, 1e-9 * (1 + std::fabs(mine))));
          }
          double diff = 0;
          for (int e = 0; e < E; ++e) diff += (c1[e] - c2[e]) * (c1[e] - c2[e]);
          ++pairs;
          tightest = std::max(tightest, std::sqrt(diff) / D);
          INFO("trial " << trial << " heads " << heads << " pair " << x << "," << y << " completion " << j);
          CHECK(std::sqrt(diff) <= D * (1 + 1e-9) + 1e-12);
        }
      }
  }
  INFO("pairs " << pairs << ", largest ||dc||/D " << tightest);
  CHECK(pairs > 0);
  CHECK(tightest > 0.01);  // the comparison is not vacuous: D is not astronomically larger than the gaps
}
