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
  return c;
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
  // Certified needs certified-grade evidence and a certifiable claim; otherwise supported.
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass)}, {claim_on("c", {"a"})})) == ClaimStatus::Certified);
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass)}, {claim_on("c", {"a"}, false)})) == ClaimStatus::Supported);
  CHECK(settled(suite_with({evidence_check("a", G::Sampled, V::Pass)}, {claim_on("c", {"a"})})) == ClaimStatus::Supported);
  // A certified or sampled failure refutes; a fitted one leaves the claim open (training bounds cost from above).
  CHECK(settled(suite_with({evidence_check("a", G::Certified, V::Pass), evidence_check("b", G::Sampled, V::Fail)},
                           {claim_on("c", {"a", "b"})})) == ClaimStatus::Refuted);
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
  Check control{"a.control", Grade::Fitted, Verdict::Pass, "the control", {}, {}};
  control.role = CheckRole::Control;
  control.control_of = "a";
  SuiteResult r = suite_with({evidence_check("a", Grade::Fitted, Verdict::Pass), control}, {claim_on("c", {"a"}, false)});
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
  SuiteResult framework = suite_with({}, {claim_on("f", {"t/x.*"}, false)});
  framework.suite = "framework";
  SuiteResult theorem = suite_with({evidence_check("x.1", Grade::Fitted, Verdict::Pass), evidence_check("x.2", Grade::Fitted, Verdict::Pass)},
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
