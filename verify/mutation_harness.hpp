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
  bool quick = false;  // each mutant on the suites it targets only (else on every suite)
  std::uint64_t seed = 20260529;
  int threads = 1;
  std::string out_dir;
  ProgressFn progress;
};

struct MutantOutcome {
  MutantInfo mutant;
  std::vector<std::string> killed;   // "suite/check" (or "suite/fact:id") that fail only under the mutant
  std::vector<std::string> stopped;  // suites that stopped with an error under the mutant
  bool caught() const { return !killed.empty(); }
};

struct MutationReport {
  std::vector<std::string> checks;                  // every verdict-carrying check of the baseline run that can fail
  std::vector<std::string> one_sided;               // pass-or-inconclusive evidence (Check::one_sided): listed apart
  std::vector<std::string> failing_without_mutant;  // checks that fail unmutated: they cannot be killed
  std::vector<std::string> controls;                // controls (they must not show their check's effect)
  std::map<std::string, Verdict> baseline;          // its verdicts
  std::map<std::string, CheckRole> roles;           // every check's role
  std::vector<MutantOutcome> outcomes;
  std::map<std::string, std::vector<std::string>> killed_by;  // check → mutants that made it fail

  int uncaught_mutants() const;
  std::vector<std::string> unkilled_checks() const;
  /// Whether some mutant that kills `check` lies outside its own computation (MutantInfo::inside).
  bool killed_from_outside(const std::string& check) const;
  /// Evidence checks no mutant outside their own computation kills: they have not been shown to bite.
  std::vector<std::string> evidence_without_outside_killer() const;
  std::string table() const;     // for people
  nlohmann::json to_json() const;  // for the report and machines
};

MutationReport run_mutation_harness(const MutationOptions& o);

}  // namespace infoflow
