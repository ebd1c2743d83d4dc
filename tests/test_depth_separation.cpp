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

