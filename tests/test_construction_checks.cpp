// The construction's checks are functions of typed records: each is tested here without a run or
// JSON, on a record that passes and on the plausible defect that must make it fail.
#include "theorems/depth_separation/construction_sweep.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

namespace {

ConstructionPoint good_point(int T, double eps) {
  ConstructionPoint p;
  p.T = T;
  p.eps = eps;
  p.pieces_m = TwoLayerMinDotConstruction::pieces_for(2, eps);
  p.ffn_width = 4 * p.pieces_m;
  p.M_ffn = p.exported_M_ffn = TwoLayerMinDotConstruction::ffn_parameters_for(2, eps);
  p.hypotheses_ok = true;
  p.certified = {0.3 * eps, 0.3 * eps, 0.3 * eps, 0.9 * eps, 1.2 * eps};
  p.sampled_max = 0.5 * eps;
  p.tightness_ratio = 0.6;
  return p;
}

std::vector<ConstructionPoint> good_sweep() { return {good_point(2, 0.1), good_point(4, 0.1), good_point(2, 0.01)}; }

}  // namespace

TEST_CASE("Construction checks pass on a sound sweep", "[thm1][checks]") {
  const auto pts = good_sweep();
  REQUIRE(construction_certified_check(pts, 2).verdict == Verdict::Pass);
  REQUIRE(construction_sampled_check(pts, 128).verdict == Verdict::Pass);
  REQUIRE(construction_tightness_check(pts).verdict == Verdict::Pass);
  REQUIRE(construction_width_fact(pts, 2).holds);
  REQUIRE(construction_certified_check(pts, 2).bounds.at("T=4,eps=0.1,d=2") == Approx(0.09));
}

TEST_CASE("Each construction check fails on the defect it guards against", "[thm1][checks]") {
  auto pts = good_sweep();
  SECTION("a certified bound above eps") {
    pts[1].certified.total = 0.11;
    REQUIRE(construction_certified_check(pts, 2).verdict == Verdict::Fail);
  }
  SECTION("a hypothesis that fails on the weights") {
    pts[0].hypotheses_ok = false;
    REQUIRE(construction_certified_check(pts, 2).verdict == Verdict::Fail);
  }
  SECTION("a sampled error above the certified bound") {
    pts[2].sampled_max = pts[2].certified.total * 1.01;
    REQUIRE(construction_sampled_check(pts, 128).verdict == Verdict::Fail);
  }
  SECTION("a loose bound") {
    pts[0].tightness_ratio = kMinTightnessRatio / 2;
    REQUIRE(construction_tightness_check(pts).verdict == Verdict::Fail);
  }
  SECTION("exported weights whose size is not the closed form") {
    pts[1].exported_M_ffn += 1;
    REQUIRE_FALSE(construction_width_fact(pts, 2).holds);
  }
}

TEST_CASE("A construction record reads back from its checkpoint form unchanged", "[thm1][checks]") {
  ConstructionPoint p = good_point(3, 0.05);
  p.sampled["random"] = FamilyError{0.01, 0.01, -0.002, 100};
  p.violations = {"w[0] out of range"};
  const ConstructionPoint q = nlohmann::json(p).get<ConstructionPoint>();
  REQUIRE(q.key() == p.key());
  REQUIRE(q.sampled.at("random").inputs == 100);
  REQUIRE(q.violations == p.violations);
  REQUIRE(q.certified.total_simple_form == p.certified.total_simple_form);
  nlohmann::json old = p;
  old.erase("tightness_ratio");  // a record from a version without the field
  REQUIRE_THROWS_AS(old.get<ConstructionPoint>(), nlohmann::json::exception);
}
