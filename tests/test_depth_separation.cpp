#include "numerics/fit/model_fitter.hpp"
#include "numerics/fit/single_layer_residual.hpp"
#include "numerics/fit/witness_search.hpp"
#include "numerics/lemmas/lipschitz_witness.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/model/sampled_error.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/depth_separation/adversarial_families.hpp"
#include "theorems/depth_separation/certify_construction.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/single_layer_evidence.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"

#include <catch2/catch.hpp>
#include <ceres/gradient_checker.h>

#include <cstdio>
#include <filesystem>

using namespace infoflow;

TEST_CASE("The two-layer construction is certified within eps, and MPFR samples stay below the bound", "[thm1]") {
  for (auto [d, T, eps] : {std::tuple{1, 1, 0.1}, {1, 2, 0.05}, {2, 3, 0.01}, {3, 5, 0.02}, {2, 8, 1e-3}, {1, 16, 0.3}}) {
    INFO("d = " << d << ", T = " << T << ", eps = " << eps);
    const TwoLayerMinDotConstruction c(d, T, eps);
    const MinDotCertificate cert = certify_two_layer_min_dot(c.model(), T);
    INFO("violations: " << (cert.violations.empty() ? "none" : cert.violations.front()));
    REQUIRE(cert.hypotheses_ok);
    REQUIRE(cert.total <= eps);
    REQUIRE(cert.total <= cert.total_simple);
    REQUIRE(c.ffn_width() == 2 * d * c.pieces());
    auto rng = test::rng_for("thm1-families");
    const auto hp = convert_model<mpfr::mpreal>(c.model(), Precision{128});
    const Target F = min_pairwise_dot_target();
    const int n = 4 * test::multiplier();
    for (const auto& fam : {random_cube_family(T, d, n, rng, 128), near_tie_family(T, d, n, rng, 128),
                            faces_corners_family(T, d, n, rng, 128), l1_worst_case_family(T, d, c.beta(), n, 128)}) {
      const SampledError e = sampled_error(hp, F, fam.inputs);
      INFO("family " << fam.name << ", worst input " << e.worst_input);
      REQUIRE(e.max_abs <= cert.total);
      REQUIRE(e.min_signed >= -cert.lower_deviation);
      if (fam.name == "l1-worst-case" && T >= 2) REQUIRE(e.max_abs >= 0.25 * cert.total);
    }
  }
}

TEST_CASE("A deliberately broken weight makes the certification fail", "[thm1]") {
  const double eps = 0.01;
  const TwoLayerMinDotConstruction c(2, 4, eps);
  const ParamLayout L(c.model().arch);
  const auto& f = L.layers()[0].ffn;
  const int G = MinDotSlots{2}.g();
  SECTION("an FFN output coefficient doubled: the arb bound on the interpolation error exceeds eps") {
    Model m = c.model();
    m.params[f.W2 + static_cast<std::size_t>(G) * f.width + 3] *= 2.0;
    const MinDotCertificate cert = certify_two_layer_min_dot(m, 4);
    REQUIRE(cert.hypotheses_ok);
    REQUIRE(cert.total > eps);
  }
  SECTION("a unit reading the wrong slot: a hypothesis is reported violated") {
    Model m = c.model();
    m.params[f.W1 + 5 * static_cast<std::size_t>(L.arch().E) + MinDotSlots{2}.one()] = 0.5;
    const MinDotCertificate cert = certify_two_layer_min_dot(m, 4);
    REQUIRE_FALSE(cert.hypotheses_ok);
    REQUIRE_THAT(cert.violations.front(), Catch::Contains("ffn.W1[5]"));
  }
  SECTION("the layer-1 score no longer the dot product") {
    Model m = c.model();
    m.params[L.layers()[0].heads[0].K] = 0.9;
    REQUIRE_FALSE(certify_two_layer_min_dot(m, 4).hypotheses_ok);
  }
  SECTION("a temperature halved: the L1 term doubles past the budget") {
    Model m = c.model();
    m.temperatures[0] *= 0.5;
    REQUIRE(certify_two_layer_min_dot(m, 4).total > eps);
  }
  SECTION("certified for a longer sequence than it was built for: S(T, beta) grows") {
    REQUIRE(certify_two_layer_min_dot(c.model(), 64).total > eps);
  }
}

TEST_CASE("Bad construction arguments are contract errors naming the parameter, never user-input errors", "[thm1]") {
  // The suite validates --d, --T and --eps before building anything: reaching the constructor with a
  // bad value is a bug (exit 3), and must not read as "--eps: expected ..." (exit 2).
  REQUIRE_THROWS_AS(TwoLayerMinDotConstruction(0, 4, 0.1), ContractError);
  REQUIRE_THROWS_WITH(TwoLayerMinDotConstruction(0, 4, 0.1), Catch::Contains("TwoLayerMinDotConstruction: d:"));
  REQUIRE_THROWS_WITH(TwoLayerMinDotConstruction(2, 0, 0.1), Catch::Contains("T:"));
  REQUIRE_THROWS_WITH(TwoLayerMinDotConstruction(2, 4, 0.0), Catch::Contains("eps:"));
  REQUIRE_THROWS_WITH(TwoLayerMinDotConstruction(2, 4, 1.0), Catch::Contains("eps:"));
  REQUIRE_THROWS_WITH(TwoLayerMinDotConstruction(2, 4, 1.0), !Catch::Contains("--eps"));
}

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
      REQUIRE(g.evaluate(params.data(), m.temperatures, X, nullptr) == Approx(forward(m, X).y).epsilon(1e-13));
    }
  }
}

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

TEST_CASE("A witness found by the search is certified in arb", "[thm1][witness]") {
  auto rng = test::rng_for("witness");
  const Model m = random_model(single_layer_fit_architecture(2, 3, 1, 4), rng, 0.3);
  const Target F = min_pairwise_dot_target();
  const double eps = 0.05;
  WitnessSearchOptions o;
  o.candidates = 300;
  o.refine = 2;
  o.seed = test::seed();
  const WitnessPair pair = search_witness(m, F, 3, eps, o);
  REQUIRE(pair.found);
  REQUIRE(pair.target_gap >= 3 * eps);
  const ArbBall F1 = F(convert_sequence<ArbBall>(pair.X1, Precision{128})), F2 = F(convert_sequence<ArbBall>(pair.X2, Precision{128}));
  const WitnessCertificate c = certify_witness(m, pair.X1, pair.X2, F1, F2, eps, 128);
  REQUIRE(c.valid);
  REQUIRE(c.state_distance_upper >= pair.state_distance - 1e-12);
  for (const auto& X : {pair.X1, pair.X2})
    for (const auto& x : X)
      for (double v : x) REQUIRE((v >= 0.0 && v <= 1.0));
}

TEST_CASE("Exported construction weights, run by the numpy reference, stay within the certified bound", "[thm1][reference]") {
  auto rng = test::rng_for("thm1-reference");
  const auto dir = std::filesystem::temp_directory_path() / ("infoflow-thm1-ref-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (auto [d, T, eps] : {std::tuple{2, 4, 0.05}, {1, 6, 0.01}}) {
    const TwoLayerMinDotConstruction c(d, T, eps);
    const double bound = certify_two_layer_min_dot(c.model(), T).total;
    nlohmann::json inputs = nlohmann::json::array();
    std::vector<double> targets;
    const Target F = min_pairwise_dot_target();
    for (const auto& fam : {random_cube_family(T, d, 10, rng, 64), near_tie_family(T, d, 10, rng, 64)})
      for (const auto& X : fam.inputs) {
        std::vector<std::vector<double>> Xd;
        for (const auto& x : X) {
          Xd.emplace_back();
          for (const auto& v : x) Xd.back().push_back(v.toDouble());
        }
        inputs.push_back(Xd);
        targets.push_back(F(Xd));
      }
    write_json_file((dir / "w.json").string(), weights_to_json(c.model()));
    write_json_file((dir / "x.json").string(), nlohmann::json{{"inputs", inputs}});
    const std::string cmd = "/usr/bin/python3 " INFOFLOW_SOURCE_DIR "/scripts/reference_forward.py " + (dir / "w.json").string() +
                            " " + (dir / "x.json").string();
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    while (std::size_t k = fread(buf, 1, sizeof buf, p)) out.append(buf, k);
    REQUIRE(pclose(p) == 0);
    const auto ys = nlohmann::json::parse(out)["outputs"];
    for (std::size_t i = 0; i < targets.size(); ++i) {
      INFO("input " << inputs[i].dump() << ": reference " << ys[i].get<double>() << ", target " << targets[i]);
      REQUIRE(std::fabs(ys[i].get<double>() - targets[i]) <= bound);
    }
  }
  std::filesystem::remove_all(dir);
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
