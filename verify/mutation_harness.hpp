#pragma once
// The mutation harness: runs the suites once with no defect and once per deliberate defect
// (numerics/util/mutation.hpp), and records which verdict-carrying checks each defect makes fail.
// A mutant that no check catches is a blind spot; a check that no mutant kills is a check that has
// not been shown able to fail. docs/mutation.md explains how to read and extend it.
#include "numerics/util/mutation.hpp"
#include "theorems/suite.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace infoflow {

struct MutationOptions {
  /// Each mutant only on the suites it is meant for (MutantInfo::suites) whose unmutated run read its switch, and
  /// within them only the stages that read it (the others replayed from the unmutated run, theorems/stage.hpp: the
  /// same verdicts as running them, by determinism). Else every mutant on every suite, every stage run.
  bool quick = false;
  /// Quick only: skip the suites a mutant is not meant for (off in the harness's own test, whose planted suite no
  /// mutant names).
  bool declared_suites_only = true;
  /// The suites to run (default: every registered suite); a test plants its own.
  std::vector<SuiteInfo> suites = {};
  std::uint64_t seed = 20260529;
  int threads = 1;
  std::string out_dir;
  ProgressFn progress;
};

struct MutantOutcome {
  MutantInfo mutant;
  std::vector<std::string> killed;   // "suite/check" (or "suite/fact:id") that fail only under the mutant
  std::vector<std::string> stopped;  // suites that stopped with an error under the mutant
  int suites_run = 0;                // suites run under it (the rest never read its switch)
  int stages_replayed = 0;           // stages taken from the unmutated run (they never read its switch)
  int stages_run = 0;
  bool caught() const { return !killed.empty() || !mutant.caught_by_test.empty(); }
};

struct MutationReport {
  std::vector<std::string> checks;                  // every verdict-carrying check of the baseline run that can fail
  std::vector<std::string> one_sided;               // pass-or-inconclusive evidence (Check::one_sided): listed apart
  std::vector<std::string> failing_without_mutant;  // checks that fail unmutated: they cannot be killed
  std::vector<std::string> controls;                // controls (they must not show their check's effect)
  /// Fitted evidence that does not pass at the harness's size (the paper's size is not the quick one): listed apart.
  std::vector<std::string> undecided_at_size;
  std::map<std::string, Verdict> baseline;          // its verdicts
  std::map<std::string, CheckRole> roles;           // every check's role
  std::vector<MutantOutcome> outcomes;
  std::map<std::string, std::vector<std::string>> killed_by;  // check → mutants that made it fail
  /// The switches each check's own computation (CheckComputation) read in the unmutated run, by "suite/check"; a
  /// check absent here has no recorded computation.
  std::map<std::string, MutantSet> computation_reads;
  /// The switches each suite's stages read in the unmutated run, by "suite/stage" ("suite/(outside stages)" for reads
  /// in no stage).
  std::map<std::string, MutantSet> stage_reads;
  std::map<std::string, double> stage_seconds;  // each stage's time in the unmutated (recording) run

  int uncaught_mutants() const;
  std::vector<std::string> unkilled_checks() const;
  /// Whether `mutant` lies outside `check`'s own computation: the check's computation was recorded and never read
  /// its switch.
  bool outside(const std::string& check, const std::string& mutant) const;
  /// Whether some mutant that kills `check` lies outside its own computation.
  bool killed_from_outside(const std::string& check) const;
  /// Evidence checks no mutant outside their own computation kills: they have not been shown to bite.
  std::vector<std::string> evidence_without_outside_killer() const;
  std::string table() const;     // for people
  nlohmann::json to_json() const;  // for the report and machines
};

MutationReport run_mutation_harness(const MutationOptions& o);

}  // namespace infoflow
