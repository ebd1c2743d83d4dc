// reports/regression.cpp: one change in the current results gives exactly one regression item.
#include "reports/regression.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

namespace {

SuiteResult baseline_suite() {
  SuiteResult r;
  r.suite = "s";
  r.profile = "quick";
  Check certified{"c.bound", Grade::Certified, Verdict::Pass, "a certified bound", {}, {}};
  certified.bounds = {{"T=2", 0.5}, {"T=4", 0.7}};
  r.checks.push_back(certified);
  r.checks.push_back({"c.other", Grade::Sampled, Verdict::Pass, "another check", {}, {}});
  Series s = Series::make("slope", "a fitted series", "x", "y");
  s.x = {1, 2, 4};
  s.y = {1, 2, 4};
  LineFit f;
  f.n = 3;
  f.slope = 1.0;
  f.interval = Interval{0.9, 1.1};
  s.fit = f;
  s.band = Interval{0.5, 1.5};
  s.verdict = Verdict::Pass;
  r.series.push_back(s);
  return r;
}

int regressions_after(const std::function<void(SuiteResult&)>& change) {
  SuiteResult current = baseline_suite();
  change(current);
  return compare_results({baseline_suite()}, {current}).regressions();
}

}  // namespace

TEST_CASE("Unchanged results have no regression", "[regress]") {
  const RegressionReport rep = compare_results({baseline_suite()}, {baseline_suite()});
  REQUIRE(rep.regressions() == 0);
  REQUIRE(rep.items.size() == 6);  // 2 verdicts, 2 bounds, 1 series verdict, 1 exponent
}

TEST_CASE("Each kind of change is exactly one regression", "[regress]") {
  SECTION("a check that went from pass to fail") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.checks[1].verdict = Verdict::Fail; }) == 1);
  }
  SECTION("a check that went from pass to inconclusive") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.checks[1].verdict = Verdict::Inconclusive; }) == 1);
  }
  SECTION("an upper bound that grew") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.checks[0].bounds["T=4"] = 0.71; }) == 1);
  }
  SECTION("an upper bound that shrank is no regression") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.checks[0].bounds["T=4"] = 0.69; }) == 0);
  }
  SECTION("a lower bound that shrank") {
    SuiteResult base = baseline_suite(), cur = baseline_suite();
    base.checks[0].bounds_are_upper = cur.checks[0].bounds_are_upper = false;
    cur.checks[0].bounds["T=2"] = 0.4;
    REQUIRE(compare_results({base}, {cur}).regressions() == 1);
  }
  SECTION("a bound no longer computed") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.checks[0].bounds.erase("T=2"); }) == 1);
  }
  SECTION("an exponent that moved beyond both intervals") {
    REQUIRE(regressions_after([](SuiteResult& r) {
              r.series[0].fit->slope = 1.3;
              r.series[0].fit->interval = Interval{1.25, 1.35};
            }) == 1);
  }
  SECTION("an exponent that moved within the intervals is no regression") {
    REQUIRE(regressions_after([](SuiteResult& r) { r.series[0].fit->slope = 1.05; }) == 0);
  }
  SECTION("a vanished suite") {
    REQUIRE(compare_results({baseline_suite()}, {}).regressions() == 1);
  }
}

TEST_CASE("Regression items name the check in JUnit XML", "[regress]") {
  SuiteResult cur = baseline_suite();
  cur.checks[1].verdict = Verdict::Fail;
  const std::string xml = compare_results({baseline_suite()}, {cur}).junit_xml();
  REQUIRE_THAT(xml, Catch::Contains("name=\"verdict:c.other\"><failure"));
  REQUIRE_THAT(xml, Catch::Contains("failures=\"1\""));
}

TEST_CASE("A baseline from another build is named, without counting as a regression", "[regress]") {
  SuiteResult base = baseline_suite(), cur = baseline_suite();
  base.build_commit = "aaaa";
  cur.build_commit = "bbbb";
  const RegressionReport rep = compare_results({base}, {cur});
  REQUIRE(rep.regressions() == 0);
  REQUIRE_THAT(rep.table(), Catch::Contains("commit") && Catch::Contains("aaaa") && Catch::Contains("bbbb"));
}

TEST_CASE("A verdict lost because the check changed is still a regression, and says so", "[regress]") {
  SuiteResult base = baseline_suite(), cur = baseline_suite();
  base.checks[0].verdict = Verdict::Pass;
  cur.checks[0].verdict = Verdict::Inconclusive;
  const std::string plain = compare_results({base}, {cur}).table();
  REQUIRE_THAT(plain, !Catch::Contains("the check itself changed"));
  cur.checks[0].statement += " Decided against a control.";
  const RegressionReport rep = compare_results({base}, {cur});
  REQUIRE(rep.regressions() == 1);
  REQUIRE_THAT(rep.table(), Catch::Contains("the check itself changed"));
}
