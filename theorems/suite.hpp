#pragma once
// What a check suite is: an id, a title, and a function from a context (profile, seed, threads,
// output folder) to a SuiteResult. theorems/README.md gives the recipe for adding one.
#include "numerics/sweep/sweep_runner.hpp"
#include "reports/result.hpp"
#include "theorems/stage.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace infoflow {

enum class Profile { Quick, Full, Nightly };
const char* profile_name(Profile p);
/// Throws InputError("--profile", ...) for anything but quick|full|nightly.
Profile parse_profile(const std::string& s);

/// A suite-specific command-line option (e.g. --eps); its value reaches the suite as text, and the
/// suite parses it with the helpers in suite_options.hpp, which name the option in every error.
struct SuiteOption {
  std::string name;  // with dashes, e.g. "--eps"
  std::string help;
};

struct SuiteContext {
  Profile profile = Profile::Quick;
  std::uint64_t seed = 20260529;
  int threads = 1;
  std::string out_dir;  // the suite's own folder: checkpoints, exported weights, result.json
  std::string command;  // the command line that reproduces this run
  ProgressFn progress;
  std::map<std::string, std::string> options;  // suite options given on the command line, by name
  /// Set by the mutation harness only: its record of the unmutated run's stages, to replay (theorems/stage.hpp).
  std::shared_ptr<StageMemo> stages = nullptr;
  /// `--adopt-build COMMIT`: the points another build of this configuration left in the checkpoints are adopted once
  /// this build recomputes two of them to the same records (SweepCheckpoint::Adoption); empty: never.
  std::string adopt_build;
  /// What the checkpoints adopted, one line each; run_suite adds them to the result's notes.
  std::shared_ptr<std::vector<std::string>> adoption_notes = std::make_shared<std::vector<std::string>>();
  /// A checkpoint in out_dir whose fingerprint ties it to this seed, profile and build, and to `version`.
  SweepCheckpoint checkpoint(const std::string& name, const std::string& version) const;
};

/// How a suite classifies one of its checks (docs/claims.md): its role and, for evidence, the independent route the
/// verdict compares against. The classification of every check is written down in its suite's file. (A control
/// names the check it belongs to where it is made: Check::control_of.)
struct CheckClass {
  CheckRole role = CheckRole::SelfCheck;
  std::string route = {};
  std::string claimed_by = {};   // evidence: what computes the thing the claim is about
  std::string compared_by = {};  // evidence: what computes the comparison (must differ from claimed_by)
};
/// Evidence, with its route as data: `claimed_by` names the function (or stored figure) that computes what the claim is
/// about, `compared_by` the one that computes what it is held against, `route` says it in words.
inline CheckClass evidence(std::string claimed_by, std::string compared_by, std::string route) {
  return {CheckRole::Evidence, std::move(route), std::move(claimed_by), std::move(compared_by)};
}
inline const CheckClass kControl{CheckRole::Control};
inline const CheckClass kSelfCheck{CheckRole::SelfCheck};
inline const CheckClass kDiagnostic{CheckRole::Diagnostic};

/// Sets the role (route, control) of every check and banded series of `r` from `classes`: keys are check ids,
/// "series:ID" for series, and may hold one '*' matching any characters ("experiments.triangle-centre.*.control"); the
/// first key that matches decides. A check or
/// banded series that no key matches is a ContractError: no check reaches a verdict unclassified. One-sided
/// checks and series are diagnostics whatever the key says (they cannot fail, so they are never evidence).
void classify_checks(SuiteResult& r, const std::vector<std::pair<std::string, CheckClass>>& classes);
/// Throws ContractError unless evidence `id` names both sides of its route and they differ.
void require_independent_route(const std::string& id, const CheckClass& c);
/// Every evidence check must say how many items it compared (Check::compared); one that compared nothing and passed
/// is made inconclusive (with a note): a check over nothing is no evidence. Throws ContractError when one does not say.
void settle_compared(SuiteResult& r);

struct SuiteInfo {
  std::string id;          // e.g. "thm1-depth-separation"
  std::string alias;       // CLI subcommand, e.g. "thm1"
  std::string title;
  std::function<SuiteResult(const SuiteContext&)> run;
  std::vector<SuiteOption> options = {};
  /// Checks the options before anything runs (bad input exits 2 before any work); may be empty.
  std::function<void(const SuiteContext&)> validate = {};
};

/// Every registered suite, in the order `infoflow-verify all` runs them.
const std::vector<SuiteInfo>& all_suites();
const SuiteInfo* find_suite(const std::string& id_or_alias);

/// Runs a suite: times it, stamps profile/seed/commit/command, writes out_dir/result.json.
SuiteResult run_suite(const SuiteInfo& suite, const SuiteContext& ctx);

/// The result of a suite that stopped on `error`: a failed self-check `suite.completed` (a defect of the run, so the
/// suite fails) and no claim. `all` reports it and goes on with the other suites.
SuiteResult stopped_suite_result(const SuiteInfo& suite, const SuiteContext& ctx, const std::string& error);

}  // namespace infoflow
