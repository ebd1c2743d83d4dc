#include "theorems/suite.hpp"
#include "numerics/sweep/distribution.hpp"

#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "reports/claims.hpp"

#include <chrono>
#include <filesystem>

#include "build_commit.hpp"  // generated at build time: INFOFLOW_BUILD_COMMIT

namespace infoflow {

const char* profile_name(Profile p) {
  switch (p) {
    case Profile::Quick: return "quick";
    case Profile::Full: return "full";
    default: return "nightly";
  }
}

Profile parse_profile(const std::string& s) {
  if (s == "quick") return Profile::Quick;
  if (s == "full") return Profile::Full;
  if (s == "nightly") return Profile::Nightly;
  throw InputError("--profile", "expected quick, full or nightly, got '" + s + "'");
}

SweepCheckpoint SuiteContext::checkpoint(const std::string& name, const std::string& version) const {
  // The build commit is part of the fingerprint: after a code change no cached point (a certified bound,
  // a fit) is reused unless --adopt-build names that build and the sweep recomputes two of its points to the same
  // bits; within one build an interrupted run resumes. `version` distinguishes computations.
  const auto fingerprint = [&](const std::string& build) {
    return std::string(profile_name(profile)) + "/seed=" + std::to_string(seed) + "/" + version + "/build=" + build;
  };
  SweepCheckpoint::Adoption adoption{{}, {}, adoption_notes};  // notes of points adopted by this run or an earlier one
  if (!adopt_build.empty()) adoption = {fingerprint(adopt_build), "build " + adopt_build, adoption_notes};
  return SweepCheckpoint((std::filesystem::path(out_dir) / (name + ".checkpoint.jsonl")).string(),
                         fingerprint(INFOFLOW_BUILD_COMMIT), std::move(adoption));
}

namespace {
const CheckClass* class_of(const std::string& id, const std::vector<std::pair<std::string, CheckClass>>& classes) {
  for (const auto& [key, c] : classes) {
    // One '*' matches any run of characters: "D*.control" is every id starting "D" and ending ".control".
    const auto star = key.find('*');
    if (star == std::string::npos) {
      if (id == key) return &c;
      continue;
    }
    const std::size_t tail = key.size() - star - 1;
    if (id.size() >= star + tail && id.compare(0, star, key, 0, star) == 0 &&
        id.compare(id.size() - tail, tail, key, star + 1, tail) == 0)
      return &c;
  }
  return nullptr;
}
}  // namespace

void require_independent_route(const std::string& id, const CheckClass& c) {
  if (c.route.empty() || c.claimed_by.empty() || c.compared_by.empty())
    throw ContractError("classify_checks", "evidence " + id + " does not name its route (what computes the claimed "
                                           "thing, what computes the comparison, and the route in words)");
  if (c.claimed_by == c.compared_by)
    throw ContractError("classify_checks", "evidence " + id + " compares " + c.claimed_by +
                                           " with itself: a self-check, not an independent route");
}

void settle_compared(SuiteResult& r) {
  for (auto& k : r.checks) {
    if (k.role != CheckRole::Evidence) continue;
    if (k.compared < 0)
      throw ContractError("run_suite", "evidence " + k.id + " of suite " + r.suite + " does not say how many items it compared");
    if (k.compared == 0 && k.verdict == Verdict::Pass) {
      k.verdict = Verdict::Inconclusive;
      r.notes.push_back("Evidence " + k.id + " compared nothing (0 items): inconclusive, not a pass.");
    }
  }
}

void classify_checks(SuiteResult& r, const std::vector<std::pair<std::string, CheckClass>>& classes) {
  const auto apply = [&](const std::string& id, CheckRole& role, std::string& route, bool one_sided) -> const CheckClass& {
    const CheckClass* c = class_of(id, classes);
    if (!c) throw ContractError("classify_checks", "check " + id + " of suite " + r.suite + " is not classified");
    role = one_sided ? CheckRole::Diagnostic : c->role;
    route = c->route;
    if (role == CheckRole::Evidence) require_independent_route(id, *c);
    return *c;
  };
  for (auto& k : r.checks) {
    const CheckClass& c = apply(k.id, k.role, k.route, k.one_sided);
    k.claimed_by = k.role == CheckRole::Evidence ? c.claimed_by : "";
    k.compared_by = k.role == CheckRole::Evidence ? c.compared_by : "";
    if (k.role == CheckRole::Control && k.control_of.empty())
      throw ContractError("classify_checks", "control " + k.id + " of suite " + r.suite + " names no check");
  }
  for (auto& s : r.series)
    if (s.band) apply("series:" + s.id, s.role, s.route, s.one_sided);
}

SuiteResult stopped_suite_result(const SuiteInfo& suite, const SuiteContext& ctx, const std::string& error) {
  SuiteResult r;
  r.suite = suite.id;
  r.title = suite.title;
  r.profile = profile_name(ctx.profile);
  r.seed = ctx.seed;
  r.build_commit = INFOFLOW_BUILD_COMMIT;
  r.command = ctx.command;
  r.checks.push_back(with_role({"suite.completed", Grade::Exact, Verdict::Fail, "the suite ran to completion",
                                {{"error", error}}, {{"expected", "no error"}}},
                               CheckRole::SelfCheck));
  if (ctx.adoption_notes) r.notes = *ctx.adoption_notes;  // points its sweeps adopted before it stopped
  return r;
}

SuiteResult run_suite(const SuiteInfo& suite, const SuiteContext& ctx) {
  ensure_directory(ctx.out_dir, "--out");
  const auto t0 = std::chrono::steady_clock::now();
  SuiteResult r = suite.run(ctx);
  if (ctx.adoption_notes) r.notes.insert(r.notes.end(), ctx.adoption_notes->begin(), ctx.adoption_notes->end());
  settle_compared(r);
  // The claims settled from this suite's own evidence (evidence in other suites is settled when the report is made).
  settle_claims(r);
  r.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.suite = suite.id;
  if (r.title.empty()) r.title = suite.title;
  r.profile = profile_name(ctx.profile);
  r.seed = ctx.seed;
  r.build_commit = INFOFLOW_BUILD_COMMIT;
  r.command = ctx.command;
  if (is_root_process()) write_json_file((std::filesystem::path(ctx.out_dir) / "result.json").string(), to_json(r));
  return r;
}

}  // namespace infoflow
