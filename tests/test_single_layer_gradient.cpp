// numerics/fit/single_layer_gradient.cpp: the analytic Jacobian against Ceres's numeric one.
#include "numerics/fit/single_layer_residual.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <catch2/catch.hpp>
#include <ceres/gradient_checker.h>

using namespace infoflow;

TEST_CASE("Analytic single-layer Jacobians agree with ceres::GradientChecker", "[thm1][gradient]") {
  auto rng = test::rng_for("gradient-check");
  std::vector<Architecture> archs;
  archs.push_back(single_layer_fit_architecture(2, 4, 1, 5));
  archs.push_back(single_layer_fit_architecture(3, 5, 2, 3));
  Architecture a = single_layer_fit_architecture(2, 4, 2, 4);
  a.positions = 6;
  a.encoder = MapShape{MapKind::Affine, 2, 4, 0};
  a.layers[0].heads.push_back(HeadShape{3, 1});
  archs.push_back(a);
  for (const auto& arch : archs) {
    for (int rep = 0; rep < 3 * test::multiplier(); ++rep) {
      const Model m = random_model(arch, rng, 0.8);
      const ParamLayout L(arch);
      const SingleLayerGradient g(L);
      const auto X = random_cube_sequence(1 + static_cast<int>(rng.uniform_index(6)), arch.d, rng);
      const SingleLayerResidual residual(g, m.temperatures, X, 0.3, static_cast<int>(L.size()));
      // GradientChecker differentiates by Ridders' method, whose first step (1e-2 relative by default)
      // crosses ReLU kinks; a small first step keeps the numeric side on one linear piece.
      ceres::NumericDiffOptions nd;
      nd.ridders_relative_initial_step_size = 1e-5;
      const std::vector<const ceres::Manifold*>* no_manifolds = nullptr;
      ceres::GradientChecker checker(&residual, no_manifolds, nd);
      ceres::GradientChecker::ProbeResults results;
      std::vector<double> params = m.params;
      const double* blocks[] = {params.data()};
      const bool ok = checker.Probe(blocks, 1e-5, &results);
      INFO("max relative error " << results.maximum_relative_error << "\n" << results.error_log);
      REQUIRE(ok);
      // The analytic value is the generic forward pass.
      REQUIRE(g.evaluate(params.data(), m.temperatures.data(), X, nullptr) == Approx(forward(m, X).y).epsilon(1e-13));

      // Free temperatures: a second parameter block, checked the same way (both blocks at once).
      const SingleLayerResidual free_residual(g, X, 0.3, static_cast<int>(L.size()), static_cast<int>(L.temperature_count()));
      ceres::GradientChecker free_checker(&free_residual, no_manifolds, nd);
      std::vector<double> temps = m.temperatures;
      const double* free_blocks[] = {params.data(), temps.data()};
      ceres::GradientChecker::ProbeResults free_results;
      const bool free_ok = free_checker.Probe(free_blocks, 1e-5, &free_results);
      INFO("free temperatures: max relative error " << free_results.maximum_relative_error << "\n" << free_results.error_log);
      REQUIRE(free_ok);
      // The temperature gradient alone (no weight gradient asked) is the same.
      std::vector<double> both(L.temperature_count()), alone(L.temperature_count());
      std::vector<double> wgrad(L.size());
      g.evaluate(params.data(), temps.data(), X, wgrad.data(), both.data());
      g.evaluate(params.data(), temps.data(), X, nullptr, alone.data());
      REQUIRE(both == alone);
    }
  }
}
