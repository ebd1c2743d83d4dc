#include "numerics/util/errors.hpp"
#include "theorems/infoflow/planner.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

constexpr auto arch = &PlanArchitecture::make;

TEST_CASE("Targets parse into their comparison structure", "[infoflow]") {
  const auto a = parse_target("min_{s,t} dot(x[s], x[t])");
  REQUIRE(a.structure.order == 2);
  REQUIRE(a.structure.families == 1);
  REQUIRE(a.structure.comparisons == "T^2");
  const auto b = parse_target("sum_{i=1..4} max_{s,t} bil_i(x[s], x[t])");
  REQUIRE(b.structure.families == 4);
  REQUIRE(b.structure.order == 2);
  const auto c = parse_target("min_{t1,t2,t3} norm(x[t1] + x[t2] + x[t3])");
  REQUIRE(c.structure.order == 3);
  REQUIRE(c.structure.comparisons == "T^3");
  const auto d = parse_target("x[1] + x[2] + x[3]");
  REQUIRE(d.structure.order == 0);
  REQUIRE(d.structure.linear_in_tokens);
  REQUIRE(d.structure.fixed_positions == std::vector<int>{1, 2, 3});
  const auto e = parse_target("kth_largest(2, x[t])");
  REQUIRE(e.structure.kth_rank == 2);
  const auto f = parse_target("min_{s} max_{t} dot(x[s], x[t])");  // nesting
  REQUIRE(f.structure.order == 2);
  REQUIRE(f.structure.tree.find("min over {s}") != std::string::npos);
}

TEST_CASE("Malformed targets name the column and what was expected", "[infoflow]") {
  REQUIRE_THROWS_WITH(parse_target("min_{s,t dot(x[s], x[t])"), Catch::Contains("column 10") && Catch::Contains("'}'"));
  REQUIRE_THROWS_WITH(parse_target("min_{s,t} dot(x[s], x[t]"), Catch::Contains("')' to close"));
  REQUIRE_THROWS_WITH(parse_target("frob(x[1])"), Catch::Contains("column 1") && Catch::Contains("known function"));
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[u]"), Catch::Contains("free index 'u'"));
  REQUIRE_THROWS_WITH(parse_target("dot(x[1])"), Catch::Contains("2 argument(s)"));
  REQUIRE_THROWS_WITH(parse_target("x[1] +"), Catch::Contains("the end of the target"));
  REQUIRE_THROWS_WITH(parse_target("x[0]"), Catch::Contains("position >= 1"));
  REQUIRE_THROWS_AS(parse_target(""), InputError);
  // A non-ASCII character is named whole (valid UTF-8 in the message), a stray byte in hex.
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[t] \xC3\xA9"), Catch::Contains("'\xC3\xA9' (U+00E9)"));
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[t] \xE2\x88\x91"), Catch::Contains("(U+2211)"));
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[t] \xC3"), Catch::Contains("the byte 0xC3"));
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[t] \xC0\xAF"), Catch::Contains("the byte 0xC0"));  // overlong
  REQUIRE_THROWS_WITH(parse_target("max_{t} x[t] \x07"), Catch::Contains("control character 0x07"));
}

TEST_CASE("Prediction (i): Theorem 1's separation", "[infoflow]") {
  const auto t = parse_target("min_{s,t} dot(x[s], x[t])");
  for (int T : {4, 64, 1024}) {
    const Plan one = plan_target(t, arch(1, {1}, 6, 2, T, false));
    REQUIRE(one.feasible);
    REQUIRE_FALSE(one.bounded);
    REQUIRE(one.cost.grows());
    REQUIRE(plan_target(t, arch(2, {1, 1}, 6, 2, T, false)).bounded);
  }
}

TEST_CASE("Prediction (ii): the intrinsic dimension needs h1 >= D and h2 >= D", "[infoflow]") {
  for (int D = 1; D <= 6; ++D) {
    const auto t = parse_target("sum_{i=1.." + std::to_string(D) + "} max_{s,t} bil_i(x[s], x[t])");
    for (int h1 = 1; h1 <= 7; ++h1)
      for (int h2 = 1; h2 <= 7; ++h2) {
        INFO("D = " << D << ", heads (" << h1 << ", " << h2 << ")");
        REQUIRE(plan_target(t, arch(2, {h1, h2}, 24, 4, 64, false)).bounded == (h1 >= D && h2 >= D));
      }
  }
}

TEST_CASE("Prediction (iii): the triangle centre has no bounded plan as T grows", "[infoflow]") {
  const auto t = parse_target("min_{t1,t2,t3} norm(x[t1] + x[t2] + x[t3])");
  for (int L = 1; L <= 3; ++L)
    for (int h = 1; h <= 6; ++h) {
      const Plan p = plan_target(t, arch(L, std::vector<int>(L, h), 48, 2, 64, true));
      REQUIRE_FALSE(p.bounded);
      REQUIRE(p.cost.at(1024) > p.cost.at(64));
    }
}

TEST_CASE("Prediction (iv): a fixed-position sum is one specific-position step, only with positions", "[infoflow]") {
  const auto t = parse_target("x[1] + x[2] + x[3]");
  const Plan with = plan_target(t, arch(1, {1}, 8, 2, 64, true));
  REQUIRE(with.bounded);
  REQUIRE(with.cost.at(64) == 0.0);
  REQUIRE(with.assignment[0].size() == 1);
  REQUIRE(with.assignment[0][0].mode == HeadMode::Specific);
  REQUIRE_FALSE(plan_target(t, arch(2, {4, 4}, 48, 2, 64, false)).feasible);
}

TEST_CASE("Prediction (v): one layer needs h >= D for D max-retrievals", "[infoflow]") {
  for (int D = 1; D <= 6; ++D) {
    const auto t = parse_target("sum_{i=1.." + std::to_string(D) + "} max_{t} lin_i(x[t])");
    for (int h = 1; h <= 7; ++h) REQUIRE(plan_target(t, arch(1, {h}, 16, 2, 64, false)).bounded == (h >= D));
  }
}

TEST_CASE("Architectures are validated", "[infoflow]") {
  const auto t = parse_target("x[1]");
  REQUIRE_THROWS_WITH(plan_target(t, arch(3, {1, 1}, 8, 1, 8, true)), Catch::Contains("--heads"));
  REQUIRE_THROWS_WITH(plan_target(t, arch(1, {1}, 8, 1, 0, true)), Catch::Contains("--T"));
  REQUIRE_THROWS_WITH(plan_target(t, arch(0, {}, 8, 1, 8, true)), Catch::Contains("--layers"));
}

TEST_CASE("Plans render as JSON and DOT", "[infoflow]") {
  const auto t = parse_target("min_{s,t} dot(x[s], x[t])");
  const auto a = arch(2, {1, 1}, 6, 2, 16, false);
  const Plan p = plan_target(t, a);
  const auto j = plan_json(t, a, p);
  REQUIRE(j["bounded"] == true);
  REQUIRE(j["information_sets"].size() == 6);
  REQUIRE(plan_dot(t, a, p).find("digraph") != std::string::npos);
}
