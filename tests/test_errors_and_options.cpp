// Errors by kind and options that validate themselves: user input is an InputError (exit 2),
// a broken internal precondition a ContractError (exit 3), and unknown names are refused.
#include "numerics/fit/exponent_fit.hpp"
#include "numerics/fit/model_fitter.hpp"
#include "numerics/util/errors.hpp"
#include "reports/result.hpp"
#include "theorems/common/single_layer_study.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

TEST_CASE("FitOptions::is_valid names the field that is out of range", "[options]") {
  std::string why;
  REQUIRE(FitOptions{}.is_valid(&why));
  FitOptions o;
  o.confidence = 1.5;
  REQUIRE_FALSE(o.is_valid(&why));
  REQUIRE_THAT(why, Catch::StartsWith("confidence = 1.5"));
  o = FitOptions{};
  o.bootstrap_resamples = 0;
  REQUIRE_FALSE(o.is_valid(&why));
  REQUIRE_THAT(why, Catch::StartsWith("bootstrap_resamples = 0"));
  o.bootstrap_resamples = 10;
  o.confidence = 0.0;
  REQUIRE_THROWS_AS(fit_line({1, 2, 3}, {1, 2, 3}, o), ContractError);
}

TEST_CASE("ModelFitOptions::is_valid names the field that is out of range", "[options]") {
  std::string why;
  REQUIRE(ModelFitOptions{}.is_valid(&why));
  ModelFitOptions o;
  o.restarts = 0;
  REQUIRE_FALSE(o.is_valid(&why));
  REQUIRE_THAT(why, Catch::StartsWith("restarts = 0"));
  o = ModelFitOptions{};
  o.init_scale = -1;
  REQUIRE_FALSE(o.is_valid(&why));
  REQUIRE_THAT(why, Catch::StartsWith("init_scale"));
  o = ModelFitOptions{};
  o.max_iterations = 0;
  REQUIRE_FALSE(o.is_valid(&why));
  Dataset d;
  d.add({{0.5}}, 1.0);
  REQUIRE_THROWS_AS(fit_single_layer(single_layer_fit_architecture(1, 2, 1, 2), d, d, o), ContractError);
}

TEST_CASE("SingleLayerStudySettings::is_valid names the field that is out of range", "[options]") {
  std::string why;
  SingleLayerStudySettings s;
  s.tag = "t";
  s.widths = {2, 4};
  REQUIRE(s.is_valid(&why));
  s.widths = {};
  REQUIRE_FALSE(s.is_valid(&why));
  REQUIRE(why == "widths is empty");
  s.widths = {2, 0};
  REQUIRE_FALSE(s.is_valid(&why));
  s.widths = {2};
  s.train_samples = 0;
  REQUIRE_FALSE(s.is_valid(&why));
  REQUIRE_THAT(why, Catch::StartsWith("train_samples = 0"));
  s.train_samples = 10;
  s.tag = "";
  REQUIRE_FALSE(s.is_valid(&why));
}

TEST_CASE("Unknown verdict and grade names are refused, not read as inconclusive or exact", "[errors]") {
  REQUIRE(verdict_from_name("pass") == Verdict::Pass);
  REQUIRE(verdict_from_name("inconclusive") == Verdict::Inconclusive);
  REQUIRE_THROWS_AS(verdict_from_name("passs"), InputError);
  REQUIRE_THROWS_WITH(verdict_from_name("Pass"), Catch::Contains("expected a verdict pass, fail or inconclusive"));

  SuiteResult r;
  r.suite = "s";
  r.profile = "quick";
  r.checks.push_back({"c", Grade::Certified, Verdict::Pass, "statement", {}, {}});
  nlohmann::json j = to_json(r);
  REQUIRE(suite_result_from_json(j).checks[0].grade == Grade::Certified);
  j["checks"][0]["grade"] = "certfied";
  REQUIRE_THROWS_WITH(suite_result_from_json(j), Catch::Contains("expected a grade certified, sampled, fitted or exact"));
  j["checks"][0]["grade"] = "certified";
  j["checks"][0]["verdict"] = "ok";
  REQUIRE_THROWS_AS(suite_result_from_json(j), InputError);
  j["checks"][0]["verdict"] = "pass";
  // A compared count that is not a whole number >= -1, including one past long's range (which would wrap to -1).
  for (const nlohmann::json& forged : {nlohmann::json(18446744073709551615ull), nlohmann::json(-2), nlohmann::json(0.5),
                                       nlohmann::json("3")}) {
    j["checks"][0]["compared"] = forged;
    REQUIRE_THROWS_WITH(suite_result_from_json(j), Catch::Contains("compared: expected a whole number"));
  }
  j["checks"][0]["compared"] = 12;
  REQUIRE(suite_result_from_json(j).checks[0].compared == 12);
}

TEST_CASE("A result survives the JSON round trip field by field", "[errors]") {
  SuiteResult r;
  r.suite = "s";
  r.profile = "nightly";
  r.seed = 7;
  r.checks.push_back({"c", Grade::Sampled, Verdict::Fail, "statement", {{"x", 1}}, {{"y", 2}}});
  r.checks[0].bounds = {{"k", 0.25}};
  r.checks[0].bounds_are_upper = false;
  r.checks[0].role = CheckRole::SelfCheck;  // a failing self-check is a defect: the suite fails
  const SuiteResult back = suite_result_from_json(to_json(r));
  REQUIRE(back.seed == 7);
  REQUIRE(back.checks[0].grade == Grade::Sampled);
  REQUIRE(back.checks[0].verdict == Verdict::Fail);
  REQUIRE(back.checks[0].role == CheckRole::SelfCheck);
  REQUIRE(back.checks[0].bounds.at("k") == 0.25);
  REQUIRE_FALSE(back.checks[0].bounds_are_upper);
  REQUIRE(back.overall() == Verdict::Fail);
}

TEST_CASE("A contract error says where it was raised and is not an InputError", "[errors]") {
  try {
    throw ContractError("f", "x: expected > 0");
  } catch (const InputError&) {
    FAIL("a contract error must not be caught as user input");
  } catch (const ContractError& e) {
    REQUIRE(std::string(e.what()) == "f: x: expected > 0");
  }
}
