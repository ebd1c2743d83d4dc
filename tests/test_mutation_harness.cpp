// The mutation harness measures "outside" (docs/mutation.md): a mutant is outside a check only when the check's own
// computation (CheckComputation) never read its switch in the unmutated run. A planted suite reads one switch in a
// stage that makes the check's input and another inside the check's computation.
#include "test_support.hpp"

#include "numerics/util/mutation.hpp"
#include "theorems/suite.hpp"
#include "verify/mutation_harness.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace infoflow;

namespace {

SuiteInfo planted_suite() {
  SuiteInfo s;
  s.id = "planted";
  s.title = "a suite with one planted mutant inside its check and one outside";
  s.run = [](const SuiteContext& ctx) {
    SuiteResult r;
    // The input the check judges: its mutant (l2-bound-halved) is outside the check's computation.
    const auto input = run_stage(ctx, r, "input", [] { return mutated(Mutant::L2BoundHalved) ? 2.0 : 1.0; });
    // A stage that reads no switch: replayed under every mutant.
    run_stage(ctx, r, "notes", [&] { r.notes.push_back("a stage that reads nothing"); });
    run_stage(
        ctx, r, "check",
        [&](double value) {
          Check c{"planted.evidence", Grade::Certified, Verdict::Pass, "the input is 1", {}, {}};
          {
            // The check's own computation reads l5-bound-halved: that mutant is inside it.
            const CheckComputation own(c.id);
            const double expected = mutated(Mutant::L5BoundHalved) ? 0.5 : 1.0;
            c.verdict = value == expected ? Verdict::Pass : Verdict::Fail;
          }
          c.compared = 1;
          r.checks.push_back(c);
        },
        input);
    classify_checks(r, {{"planted.evidence", evidence("the planted input stage", "the planted check", "a test")}});
    Claim k;
    k.id = "planted.claim";
    k.source = "a test";
    k.statement = "the input is 1";
    k.evidence = {"planted.evidence"};
    k.certifiable = true;
    k.figure_check = "planted.evidence";
    r.claims = {k};
    return r;
  };
  return s;
}

}  // namespace

TEST_CASE("mutation harness: a mutant inside a check's computation is reported inside, one outside it outside",
          "[mutants]") {
  MutationOptions o;
  o.quick = true;
  o.declared_suites_only = false;
  o.threads = 1;
  o.suites = {planted_suite()};
  o.out_dir = test::temp_path("planted-mutants");
  const MutationReport rep = run_mutation_harness(o);
  std::filesystem::remove_all(o.out_dir);
  const std::string check = "planted/planted.evidence";
  REQUIRE(rep.killed_by.count(check));
  const auto& killers = rep.killed_by.at(check);
  CHECK(std::find(killers.begin(), killers.end(), "l2-bound-halved") != killers.end());
  CHECK(std::find(killers.begin(), killers.end(), "l5-bound-halved") != killers.end());
  CHECK(rep.outside(check, "l2-bound-halved"));
  CHECK_FALSE(rep.outside(check, "l5-bound-halved"));
  CHECK(rep.killed_from_outside(check));
  CHECK(rep.evidence_without_outside_killer().empty());
  // The recorded computation read exactly the one switch.
  REQUIRE(rep.computation_reads.count(check));
  CHECK(rep.computation_reads.at(check).names() == std::vector<std::string>{"l5-bound-halved"});
  // Stage replay: under l5-bound-halved the input and notes stages were replayed, the check stage run; a mutant the
  // suite never read was not run at all.
  for (const auto& m : rep.outcomes) {
    if (m.mutant.name == "l5-bound-halved") {
      CHECK(m.suites_run == 1);
      CHECK(m.stages_replayed == 2);
      CHECK(m.stages_run == 1);
    }
    if (m.mutant.name == "l2-bound-halved") {
      CHECK(m.stages_replayed == 1);  // notes only: the check stage takes the input stage's value
      CHECK(m.stages_run == 2);
    }
    if (m.mutant.name == "construction-beta-halved") CHECK(m.suites_run == 0);
  }
  CHECK(rep.stage_reads.at("planted/input").names() == std::vector<std::string>{"l2-bound-halved"});
  CHECK(rep.stage_reads.at("planted/check").names() ==
        (std::vector<std::string>{"l2-bound-halved", "l5-bound-halved"}));  // its input's reads are its own
  CHECK(rep.stage_reads.at("planted/notes").names().empty());
}

TEST_CASE("mutation harness: switch reads are recorded in every open scope, and only while recording", "[mutants]") {
  set_mutant_read_recording(false);
  {
    const ReadScope idle;
    (void)mutated(Mutant::L2BoundHalved);
    CHECK_FALSE(idle.active());
    CHECK(idle.reads().empty());
  }
  set_mutant_read_recording(true);
  {
    const ReadScope outer;
    (void)mutated(Mutant::L2BoundHalved);
    {
      const ReadScope inner;
      (void)mutated(Mutant::L5BoundHalved);
      CHECK(inner.reads().names() == std::vector<std::string>{"l5-bound-halved"});
    }
    CHECK(outer.reads().contains(Mutant::L2BoundHalved));
    CHECK(outer.reads().contains(Mutant::L5BoundHalved));
  }
  set_mutant_read_recording(false);
}
