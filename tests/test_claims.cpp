// The claims ledger (reports/claims.hpp, docs/claims.md): a status is computed from the evidence, never written,
// and a suite's verdict comes from its claims only.
#include "numerics/util/errors.hpp"
#include "reports/claims.hpp"
#include "reports/regression.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

namespace {

Check evidence_check(const std::string& id, Grade grade, Verdict v) {
  Check c{id, grade, v, "a check", {}, {}};
  c.role = CheckRole::Evidence;
  c.route = "an independent route";
  c.figure = id + " figure";
  return c;
}

Claim claim_on(const std::string& id, std::vector<std::string> evidence, bool certifiable = true) {
  Claim c;
  c.id = id;
  c.source = "Theorem X";
  c.statement = "something";
  c.evidence = std::move(evidence);
  c.certifiable = certifiable;
  // A claim names its figure: the first evidence check here (a pattern's first match is found when it is expanded).
  if (!c.evidence.empty()) {
    c.figure_check = c.evidence.front();
    if (c.figure_check.back() == '*') c.figure_check.back() = '1';
  }
  return c;
}

Check control_of(const std::string& of, Verdict v) {
  Check k{of + ".control", Grade::Fitted, v, "the control", {}, {}};
  k.role = CheckRole::Control;
  k.control_of = of;
  return k;
}

SuiteResult suite_with(std::vector<Check> checks, std::vector<Claim> claims) {
  SuiteResult r;
  r.suite = "s";
  r.checks = std::move(checks);
  r.claims = std::move(claims);
  return r;
}

ClaimStatus settled(SuiteResult r) {
  settle_claims(r);
  return r.claims.front().status;
}

}  // namespace

TEST_CASE("A claim's status follows its evidence", "[claims]") {
  using G = Grade;
  using V = Verdict;
  // Certified needs every evidence check certified or exact, and a certifiable claim.
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass)}, {claim_on("c", {"a"})})) == ClaimStatus::Certified);
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Exact, V::Pass)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Certified);
  // One certified check among others is not enough (the rule used to be "any"): with a sampled one beside it and no
  // control, the claim is open; with a control the sampled check separates from, supported.
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Sampled, V::Pass)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Open);
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Sampled, V::Pass),
                            control_of("b", V::Fail)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Supported);
  // A claim that is not certifiable is at most supported; certified evidence needs no control.
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass)}, {claim_on("c", {"a"}, false)})) == ClaimStatus::Supported);
  CHECK(settled(suite_with({evidence_check("a", G::Sampled, V::Pass)}, {claim_on("c", {"a"})})) == ClaimStatus::Open);
  // A certified or exact failure refutes; a sampled or fitted one leaves the claim open (no certified counterexample).
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Exact, V::Fail)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Refuted);
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Sampled, V::Fail)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Open);
  CHECK(settled(suite_with({evidence_check("a", G::Fitted, V::Fail)}, {claim_on("c", {"a"})})) == ClaimStatus::Open);
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Inconclusive)}, {claim_on("c", {"a"})})) == ClaimStatus::Open);
  // No evidence: open, with the reason given.
  Claim none = claim_on("c", {});
  none.undecided = "nothing decides it";
  SuiteResult r = suite_with({}, {none});
  settle_claims(r);
  CHECK(r.claims[0].status == ClaimStatus::Open);
  CHECK(r.claims[0].reason == "nothing decides it");
}

TEST_CASE("A control that shows the effect too leaves its check undecided", "[claims]") {
  SuiteResult r = suite_with({evidence_check("a", Grade::Fitted, Verdict::Pass), control_of("a", Verdict::Pass)},
                             {claim_on("c", {"a"}, false)});
  settle_claims(r);
  CHECK(r.claims[0].status == ClaimStatus::Open);
  CHECK(r.claims[0].reason.find("shows the effect too") != std::string::npos);
  r.checks[1].verdict = Verdict::Fail;  // the control does not show it: the check decides
  settle_claims(r);
  CHECK(r.claims[0].status == ClaimStatus::Supported);
}

TEST_CASE("Claims are never settled by self-checks, evidence without a route, or evidence no claim names", "[claims]") {
  Check self{"a", Grade::Certified, Verdict::Pass, "a self-check", {}, {}};
  self.role = CheckRole::SelfCheck;
  SuiteResult r = suite_with({self}, {claim_on("c", {"a"})});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
  Check no_route = evidence_check("a", Grade::Certified, Verdict::Pass);
  no_route.route.clear();
  r = suite_with({no_route}, {claim_on("c", {"a"})});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
  Check one_sided = evidence_check("a", Grade::Fitted, Verdict::Pass);
  one_sided.one_sided = true;
  r = suite_with({one_sided}, {claim_on("c", {"a"})});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
  r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass), evidence_check("orphan", Grade::Certified, Verdict::Pass)},
                 {claim_on("c", {"a"})});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
}

TEST_CASE("Evidence in another suite and patterns are found when every result is at hand", "[claims]") {
  Claim f = claim_on("f", {"t/x.*"}, false);
  f.figure_check = "t/x.2";  // its own figure, not the theorem's
  SuiteResult framework = suite_with({}, {f});
  framework.suite = "framework";
  SuiteResult theorem = suite_with({evidence_check("x.1", Grade::Fitted, Verdict::Pass), evidence_check("x.2", Grade::Fitted, Verdict::Pass),
                                    control_of("x.1", Verdict::Fail), control_of("x.2", Verdict::Fail)},
                                   {claim_on("t", {"x.*"}, false)});
  theorem.suite = "t";
  std::vector<SuiteResult> all{framework, theorem};
  settle_all_claims(all);
  CHECK(all[0].claims[0].status == ClaimStatus::Supported);
  CHECK(all[0].claims[0].reason.find("t/x.2") != std::string::npos);
  // Alone, the framework's claim is open: its evidence did not run. It does not enter the framework's verdict.
  settle_claims(framework);
  CHECK(framework.claims[0].status == ClaimStatus::Open);
  CHECK(framework.claims[0].reason.find("did not run") != std::string::npos);
  CHECK(framework.overall() == Verdict::Pass);
}

TEST_CASE("A suite's verdict comes from its claims and its defects only", "[claims]") {
  SuiteResult r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})});
  settle_claims(r);
  CHECK(r.overall() == Verdict::Pass);
  // A diagnostic that is inconclusive does not make the suite inconclusive.
  Check diag{"d", Grade::Certified, Verdict::Inconclusive, "a per-model figure", {}, {}};
  diag.role = CheckRole::Diagnostic;
  r.checks.push_back(diag);
  CHECK(r.overall() == Verdict::Pass);
  // A self-check that fails is a defect.
  Check self{"s", Grade::Exact, Verdict::Fail, "a self-check", {}, {}};
  self.role = CheckRole::SelfCheck;
  r.checks.push_back(self);
  CHECK(r.overall() == Verdict::Fail);
  r.checks.pop_back();
  r.checks[0].verdict = Verdict::Inconclusive;
  settle_claims(r);
  CHECK(r.overall() == Verdict::Inconclusive);
  r.checks[0].verdict = Verdict::Fail;
  settle_claims(r);
  CHECK(r.overall() == Verdict::Fail);
}

TEST_CASE("A claim's status moving backwards is a regression", "[claims][regress]") {
  CHECK(claim_regressed(ClaimStatus::Certified, ClaimStatus::Supported));
  CHECK(claim_regressed(ClaimStatus::Supported, ClaimStatus::Open));
  CHECK(claim_regressed(ClaimStatus::Open, ClaimStatus::Refuted));
  CHECK_FALSE(claim_regressed(ClaimStatus::Open, ClaimStatus::Supported));
  CHECK_FALSE(claim_regressed(ClaimStatus::Certified, ClaimStatus::Certified));
  SuiteResult base = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})});
  settle_claims(base);
  SuiteResult now = base;
  now.checks[0].verdict = Verdict::Inconclusive;
  settle_claims(now);
  const RegressionReport rep = compare_results({base}, {now});
  bool flagged = false;
  for (const auto& i : rep.items) flagged |= i.kind == "claim" && i.regression;
  CHECK(flagged);
  CHECK(compare_results({base}, {base}).regressions() == 0);
}

TEST_CASE("Results round-trip with their claims and roles", "[claims]") {
  SuiteResult r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})});
  r.profile = "quick";
  settle_claims(r);
  const SuiteResult back = suite_result_from_json(to_json(r));
  REQUIRE(back.claims.size() == 1);
  CHECK(back.claims[0].status == ClaimStatus::Certified);
  CHECK(back.claims[0].figure == "a figure");
  CHECK(back.checks[0].role == CheckRole::Evidence);
  CHECK(back.checks[0].route == "an independent route");
  CHECK_FALSE(back.legacy);
}

#include "theorems/suite.hpp"

TEST_CASE("A suite that stopped fails, and the ledger of the others is still settled", "[claims]") {
  // Its record used to carry an evidence check no claim named: settling every result then threw (exit 3, no report).
  SuiteInfo info;
  info.id = "stopped";
  info.title = "a suite that threw";
  SuiteContext ctx;
  std::vector<SuiteResult> all{stopped_suite_result(info, ctx, "boom"),
                               suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})})};
  REQUIRE_NOTHROW(settle_all_claims(all));
  CHECK(all[0].overall() == Verdict::Fail);
  CHECK(all[1].claims[0].status == ClaimStatus::Certified);
  // Read back from its file, the same.
  std::vector<SuiteResult> again{suite_result_from_json(to_json(all[0]))};
  REQUIRE_NOTHROW(settle_loaded_claims(again, "--results"));
  CHECK(again[0].overall() == Verdict::Fail);
}

TEST_CASE("Claims that cannot be settled in a result file are the file's fault, not a crash", "[claims]") {
  SuiteResult r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})});
  r.checks[0].route.clear();  // evidence without a route, as a hand-edited file could hold
  std::vector<SuiteResult> loaded{r};
  CHECK_THROWS_AS(settle_loaded_claims(loaded, "--results"), InputError);
  // A result/1 file's claims are not read: nothing it says is a settled status.
  nlohmann::json j = to_json(suite_with({}, {claim_on("c", {})}));
  j["schema"] = kLegacyResultSchema;
  j["claims"][0]["status"] = "certified";
  const SuiteResult legacy = suite_result_from_json(j);
  CHECK(legacy.legacy);
  CHECK(legacy.claims.empty());
}

TEST_CASE("Each claim names a figure of its own, one of its evidence checks", "[claims]") {
  // No figure named: a programming error, never "the first check" by default.
  Claim unnamed = claim_on("c", {"a"});
  unnamed.figure_check.clear();
  SuiteResult r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {unnamed});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
  // A figure from a check that is not the claim's evidence.
  Claim elsewhere = claim_on("c", {"a"});
  elsewhere.figure_check = "b";
  r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass), evidence_check("b", Grade::Certified, Verdict::Pass)},
                 {elsewhere, claim_on("d", {"b"})});
  CHECK_THROWS_AS(settle_claims(r), ContractError);
  // Two claims showing one figure: the ledger would print the same figure on two rows.
  r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass), evidence_check("b", Grade::Certified, Verdict::Pass)},
                 {claim_on("c", {"a", "b"}), claim_on("d", {"a", "b"})});
  std::vector<SuiteResult> all{r};
  CHECK_THROWS_AS(settle_all_claims(all), ContractError);
  // Across suites too ("SUITE/ID" and the home suite's "ID" name the same check).
  SuiteResult other = suite_with({}, {claim_on("f", {"s/a"})});
  other.suite = "framework";
  all = {suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})}), other};
  CHECK_THROWS_AS(settle_all_claims(all), ContractError);
  std::vector<SuiteResult> loaded = all;
  CHECK_THROWS_AS(settle_loaded_claims(loaded, "--results"), InputError);
}

TEST_CASE("Evidence that compared nothing is inconclusive, never a pass, and evidence must say what it compared",
          "[claims]") {
  SuiteResult r = suite_with({evidence_check("a", Grade::Certified, Verdict::Pass)}, {claim_on("c", {"a"})});
  r.checks[0].compared = 0;
  settle_compared(r);
  CHECK(r.checks[0].verdict == Verdict::Inconclusive);
  settle_claims(r);
  CHECK(r.claims[0].status == ClaimStatus::Open);
  r.checks[0].compared = -1;  // does not say
  CHECK_THROWS_AS(settle_compared(r), ContractError);
  r.checks[0].compared = 7;
  r.checks[0].verdict = Verdict::Pass;
  REQUIRE_NOTHROW(settle_compared(r));
  CHECK(r.checks[0].verdict == Verdict::Pass);
}

TEST_CASE("An evidence route names two different computations", "[claims]") {
  CHECK_THROWS_AS(require_independent_route("x", evidence("f", "f", "the same function on both sides")), ContractError);
  CHECK_THROWS_AS(require_independent_route("x", evidence("f", "", "no comparison named")), ContractError);
  CHECK_THROWS_AS(require_independent_route("x", evidence("f", "g", "")), ContractError);
  REQUIRE_NOTHROW(require_independent_route("x", evidence("f", "g", "f against g")));
  // classify_checks applies it to every evidence check of a suite.
  SuiteResult r = suite_with({Check{"a", Grade::Certified, Verdict::Pass, "a", {}, {}}}, {});
  CHECK_THROWS_AS(classify_checks(r, {{"a", evidence("same", "same", "words")}}), ContractError);
  REQUIRE_NOTHROW(classify_checks(r, {{"a", evidence("claimed", "compared", "words")}}));
  CHECK(r.checks[0].claimed_by == "claimed");
  CHECK(r.checks[0].compared_by == "compared");
}

#include <unistd.h>

#include <filesystem>

TEST_CASE("A suite adopts another build's points with --adopt-build, and its result says so", "[claims][sweep]") {
  const auto dir = std::filesystem::temp_directory_path() / ("infoflow-adopt-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SuiteContext ctx;
  ctx.profile = Profile::Quick;
  ctx.seed = 7;
  ctx.out_dir = dir.string();
  {
    // What build 0123456789ab left behind: the fingerprint as SuiteContext::checkpoint writes it, with its stamp.
    SweepCheckpoint old((dir / "points.checkpoint.jsonl").string(), "quick/seed=7/v1/build=0123456789ab");
    for (int i = 0; i < 3; ++i) old.append("p" + std::to_string(i), i * 10);
  }
  const std::vector<std::string> keys{"p0", "p1", "p2"};
  SuiteInfo info;
  info.id = "adopting";
  info.title = "a suite over three points";
  int computed = 0;
  info.run = [&](const SuiteContext& c) {
    SweepCheckpoint cp = c.checkpoint("points", "v1");
    (void)run_sweep<int>("points", keys, [&](std::size_t i) { ++computed; return static_cast<int>(i) * 10; }, cp, 1);
    return SuiteResult{};
  };
  SECTION("without --adopt-build every point is recomputed") {
    (void)run_suite(info, ctx);
    CHECK(computed == 3);
  }
  SECTION("with it, two are recomputed and the note names the build") {
    ctx.adopt_build = "0123456789ab";
    const SuiteResult r = run_suite(info, ctx);
    CHECK(computed == 2);
    REQUIRE(r.notes.size() == 1);
    CHECK_THAT(r.notes[0], Catch::Contains("1 point(s) adopted (--adopt-build) from build 0123456789ab"));
    // A later run without the option resumes every point and its result still names the build.
    SuiteContext later = ctx;
    later.adopt_build.clear();
    later.adoption_notes = std::make_shared<std::vector<std::string>>();
    const SuiteResult again = run_suite(info, later);
    CHECK(computed == 2);
    CHECK(again.notes == r.notes);
  }
  std::filesystem::remove_all(dir);
}
