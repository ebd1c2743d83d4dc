// numerics/fit/model_fitter.cpp: the fitter on a known answer, and warm-start embedding.
#include "numerics/fit/model_fitter.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace infoflow;

TEST_CASE("The fitter recovers a target a single layer can represent (validation on a known answer)", "[thm1][fit]") {
  // F(X) = softmax-free mean of the first coordinate: one head with Q = 0 averages uniformly.
  auto rng = test::rng_for("fitter-known");
  Dataset train, valid;
  for (int i = 0; i < 200; ++i) {
    for (Dataset* ds : {&train, &valid}) {
      const auto X = random_cube_sequence(4, 1, rng);
      ds->add(X, (X[0][0] + X[1][0] + X[2][0] + X[3][0]) / 4.0);
    }
  }
  Architecture a = single_layer_fit_architecture(1, 2, 1, 6);
  ModelFitOptions o;
  o.restarts = 4;
  o.max_iterations = 100;
  o.seed = test::seed();
  o.threads = 2;
  const ModelFitResult r = fit_single_layer(a, train, valid, o);
  INFO("valid rmse " << r.valid.rmse << ", max " << r.valid.max_abs);
  REQUIRE(r.valid.rmse < 0.02);
  REQUIRE(r.restart_valid_rmse.size() == 4);
}

TEST_CASE("A narrower model embedded in a wider architecture computes the same function", "[thm1][fit]") {
  auto rng = test::rng_for("embed");
  for (int rep = 0; rep < 5 * test::multiplier(); ++rep) {
    const Model small = random_model(single_layer_fit_architecture(2, 4, 2, 3), rng, 0.8);
    const Model big = embed_in_wider(small, single_layer_fit_architecture(2, 4, 2, 7), rng.next(), 0.5);
    REQUIRE(ParamLayout(big.arch).size() > ParamLayout(small.arch).size());
    for (int k = 0; k < 10; ++k) {
      const auto X = random_cube_sequence(1 + static_cast<int>(rng.uniform_index(5)), 2, rng);
      REQUIRE(forward(big, X).y == Approx(forward(small, X).y).epsilon(1e-13));
    }
  }
  REQUIRE_THROWS_AS(embed_in_wider(random_model(single_layer_fit_architecture(2, 4, 2, 7), rng), single_layer_fit_architecture(2, 4, 2, 3), 1, 0.5),
                    ContractError);
}

TEST_CASE("A box-constrained fit keeps every weight in [-1, 1] and moves the free temperature", "[thm1][fit]") {
  auto rng = test::rng_for("fitter-bounded");
  Dataset train, valid;
  for (int i = 0; i < 150; ++i)
    for (Dataset* ds : {&train, &valid}) {
      const auto X = random_cube_sequence(3, 2, rng);
      ds->add(X, MinPairwiseDot{}(X));
    }
  ModelFitOptions o;
  o.restarts = 2;
  o.max_iterations = 30;
  o.seed = test::seed();
  o.threads = 2;
  o.weight_bound = 1.0;
  o.free_temperatures = true;
  const ModelFitResult r = fit_single_layer(single_layer_fit_architecture(2, 4, 1, 6), train, valid, o);
  double largest = 0;
  for (double w : r.model.params) largest = std::max(largest, std::fabs(w));
  INFO("largest |w| " << largest << ", beta " << r.model.temperatures[0] << ", valid rmse " << r.valid.rmse);
  REQUIRE(largest <= 1.0);
  REQUIRE(r.model.temperatures[0] != 1.0);  // the temperature is a parameter of the fit
  REQUIRE(r.model.temperatures[0] >= kMinTemperature);
  REQUIRE(std::isfinite(r.valid.rmse));
  // Without the bound the same fit leaves the box (so the bound is what keeps it in).
  o.weight_bound = 0;
  const ModelFitResult u = fit_single_layer(single_layer_fit_architecture(2, 4, 1, 6), train, valid, o);
  double unbounded = 0;
  for (double w : u.model.params) unbounded = std::max(unbounded, std::fabs(w));
  INFO("unbounded largest |w| " << unbounded);
  CHECK(unbounded > 1.0);
}

TEST_CASE("AdamW candidates beside LM: the LM candidates are unchanged and the kept fit is never worse", "[thm1][fit]") {
  auto rng = test::rng_for("fitter-adam");
  Dataset train, valid;
  for (int i = 0; i < 120; ++i)
    for (Dataset* ds : {&train, &valid}) {
      const auto X = random_cube_sequence(3, 2, rng);
      ds->add(X, MinPairwiseDot{}(X));
    }
  ModelFitOptions o;
  o.restarts = 2;
  o.max_iterations = 1;  // LM barely moves: the AdamW candidates must win
  o.seed = test::seed();
  const Architecture arch = single_layer_fit_architecture(2, 4, 1, 4);
  const ModelFitResult plain = fit_single_layer(arch, train, valid, o);
  o.adam_steps = 400;
  const ModelFitResult both = fit_single_layer(arch, train, valid, o);
  INFO("one LM iteration: " << plain.valid.rmse << "; with AdamW candidates: " << both.valid.rmse);
  REQUIRE(both.restart_valid_rmse.size() == 4);
  // Bit for bit, within this build. That they also equal the LM of earlier builds is guarded by the quick-baseline
  // test (the fits' results are part of it).
  for (int r = 0; r < 2; ++r) REQUIRE(both.restart_valid_rmse[r] == plain.restart_valid_rmse[r]);
  REQUIRE(both.valid.rmse <= plain.valid.rmse);
  CHECK(both.valid.rmse < plain.valid.rmse);
  CHECK(both.method == FitMethod::AdamW);
  CHECK(both.best_restart >= 2);
  CHECK(both.termination == "STEPS");
  REQUIRE(both.valid.rmse == *std::min_element(both.restart_valid_rmse.begin(), both.restart_valid_rmse.end()));
  // The width sweep's warm start is the best LM candidate, so the next width's LM candidates stay unchanged.
  REQUIRE(model_errors(both.best_lm_model, valid).rmse ==
          *std::min_element(both.restart_valid_rmse.begin(), both.restart_valid_rmse.begin() + 2));
  REQUIRE(both.max_route_gap <= 1e-6);
  // With enough LM iterations an LM candidate can win again; either way the kept one is the lowest.
  o.max_iterations = 200;
  const ModelFitResult long_lm = fit_single_layer(arch, train, valid, o);
  REQUIRE(long_lm.valid.rmse == *std::min_element(long_lm.restart_valid_rmse.begin(), long_lm.restart_valid_rmse.end()));
  REQUIRE((long_lm.method == FitMethod::AdamW) == (long_lm.best_restart >= 2));
  // Minibatch AdamW candidates: the LM candidates are still unchanged.
  o.max_iterations = 1;
  o.adam_batch = 32;
  const ModelFitResult minibatch = fit_single_layer(arch, train, valid, o);
  for (int r = 0; r < 2; ++r) REQUIRE(minibatch.restart_valid_rmse[r] == plain.restart_valid_rmse[r]);
  for (int r = 2; r < 4; ++r) {
    // The option is used: minibatches give other AdamW candidates than full batches from the same starts.
    INFO("AdamW candidate " << r << ": full batch " << both.restart_valid_rmse[r] << ", minibatch "
                            << minibatch.restart_valid_rmse[r]);
    REQUIRE(std::isfinite(minibatch.restart_valid_rmse[r]));
    REQUIRE(minibatch.restart_valid_rmse[r] != both.restart_valid_rmse[r]);
  }
  REQUIRE(minibatch.valid.rmse <= plain.valid.rmse);
  o.adam_batch = -1;
  REQUIRE_THROWS_AS(fit_single_layer(arch, train, valid, o), ContractError);
  o.adam_batch = 0;
  o.adam_steps = -1;
  REQUIRE_THROWS_AS(fit_single_layer(arch, train, valid, o), ContractError);
}

TEST_CASE("An exact LM fit gets no AdamW candidate: it is marked not trained and cannot be chosen", "[thm1][fit]") {
  auto rng = test::rng_for("fitter-exact");
  // A constant target: the readout's bias represents it exactly, and LM reaches it to rounding.
  Dataset train, valid;
  for (int i = 0; i < 60; ++i)
    for (Dataset* ds : {&train, &valid}) ds->add(random_cube_sequence(3, 2, rng), 0.7);
  ModelFitOptions o;
  o.restarts = 2;
  o.max_iterations = 50;
  o.adam_steps = 200;
  o.seed = test::seed();
  const ModelFitResult r = fit_single_layer(single_layer_fit_architecture(2, 4, 1, 4), train, valid, o);
  INFO("restart RMSEs " << r.restart_valid_rmse[0] << ", " << r.restart_valid_rmse[1] << ", "
                        << r.restart_valid_rmse[2] << ", " << r.restart_valid_rmse[3]);
  REQUIRE(r.restart_valid_rmse.size() == 4);
  // Per restart: AdamW is trained exactly when LM's validation RMSE is above 1e-6 of the targets' RMS (0.7).
  const double exact_below = 1e-6 * std::sqrt(0.7 * 0.7);
  int exact = 0;
  for (int k = 0; k < 2; ++k) {
    const bool lm_exact = r.restart_valid_rmse[k] <= exact_below;
    exact += lm_exact;
    REQUIRE(lm_exact == (r.restart_valid_rmse[2 + k] == std::numeric_limits<double>::infinity()));
    if (!lm_exact) REQUIRE(std::isfinite(r.restart_valid_rmse[2 + k]));
  }
  REQUIRE(exact >= 1);  // the constant is within LM's reach from at least one start
  REQUIRE(r.method == FitMethod::LevenbergMarquardt);
  REQUIRE(r.best_restart < 2);
  REQUIRE(r.max_route_gap <= 1e-6);
}
