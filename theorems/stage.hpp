#pragma once
// The stages of a suite, and their reuse by the mutation harness (docs/mutation.md, "What it costs").
//
// A suite's run is a few stages (Theorem 1's: the construction sweep, the single-layer fits, the class lower bound,
// the class fits, certify's agreement). Each stage only appends to the suite's result and returns a value; it reads
// the suite's settings and the values of the stages it names as inputs, nothing else. In a normal run run_stage just
// calls the stage. The harness records, in the unmutated run, which mutation switches each stage read (its own reads
// and those of its inputs, transitively) and what it appended and returned. Under a mutant whose switch a stage never
// read, the stage would compute exactly what it computed unmutated (the run is deterministic: same seed, same inputs,
// no switch read that could differ), so the harness replays the record instead of recomputing it. A switch read
// outside every stage (in the settings, say) turns replay off for that mutant.
#include "numerics/util/mutation.hpp"
#include "reports/result.hpp"

#include <any>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace infoflow {

struct SuiteContext;

/// What one stage appended to the result, what it returned, and the switches it and its inputs read.
struct StageRecord {
  MutantSet reads;
  double seconds = 0;  // how long the recorded run took (what a replay saves)
  std::vector<Check> checks;
  std::vector<Series> series;
  std::vector<Fact> facts;
  std::vector<std::string> notes;
  std::vector<Table> tables;
  std::any output;
};

/// The harness's memory of one suite's stages. Recording: every stage runs and is kept. Replaying for a mutant: a
/// stage whose record did not read the mutant's switch is not run; its record is appended instead.
class StageMemo {
 public:
  StageMemo() = default;
  StageMemo(const StageMemo&) = delete;
  StageMemo& operator=(const StageMemo&) = delete;

  /// Starts recording the unmutated run (switch-read recording must be on).
  void start_recording();
  /// Ends it: what was read outside every stage is kept (it makes replay unsound for those switches).
  void finish_recording();
  /// Replays the recorded stages for mutant `m` (after finish_recording).
  void start_replay(Mutant m);

  /// The record to append instead of running `stage`, or nullptr when the stage must run.
  const StageRecord* replayable(const std::string& stage) const;
  bool recording() const { return recording_; }
  /// The switches `stage` read in the recorded run, its inputs' included (empty when it has no record).
  MutantSet reads_of(const std::string& stage) const;
  void enter_stage(const std::string& stage);
  void leave_stage(const std::string& stage, StageRecord record);

  /// Every recorded stage's reads (its inputs' included), by stage name.
  std::map<std::string, MutantSet> stage_reads() const;
  /// Every recorded stage's time in the recorded run, by stage name.
  std::map<std::string, double> stage_seconds() const;
  /// Switches read outside every stage in the recorded run.
  const MutantSet& unstaged_reads() const { return unstaged_; }
  /// Stages replayed and run since the last start_replay.
  int replayed() const { return replayed_; }
  int recomputed() const { return recomputed_; }
  void count_replayed() { ++replayed_; }
  void count_recomputed() { ++recomputed_; }

 private:
  std::map<std::string, StageRecord> records_;
  MutantSet unstaged_;
  std::unique_ptr<ReadScope> gap_;  // open between stages while recording
  std::string open_stage_;
  bool recording_ = false;
  bool replaying_ = false;
  Mutant replay_for_ = Mutant::None;
  int replayed_ = 0, recomputed_ = 0;
};

/// A stage's value, with the stage's name, so that a later stage can name it as an input.
template <class T>
struct Staged {
  std::string stage;
  T value;
};

namespace stage_detail {
StageMemo* memo_of(const SuiteContext& ctx);
struct ResultSizes {
  std::size_t checks, series, facts, notes, tables;
};
ResultSizes sizes_of(const SuiteResult& r);
/// What `r` gained since `before`, moved into a record (`r` keeps its own copy).
StageRecord appended_since(const SuiteResult& r, const ResultSizes& before);
void append_record(SuiteResult& r, const StageRecord& record);
}  // namespace stage_detail

/// Runs `stage(inputs.value...)`, which may append to `r` and returns a value (or nothing). `name` is unique within
/// the suite; `inputs` are the earlier stages whose values it consumes: all of them, since reuse rests on it.
template <class F, class... In>
auto run_stage(const SuiteContext& ctx, SuiteResult& r, const std::string& name, F&& stage, const Staged<In>&... inputs) {
  using Raw = std::invoke_result_t<F, const In&...>;
  using Out = std::conditional_t<std::is_void_v<Raw>, std::monostate, Raw>;
  const auto call = [&]() -> Out {
    if constexpr (std::is_void_v<Raw>) {
      stage(inputs.value...);
      return {};
    } else {
      return stage(inputs.value...);
    }
  };
  StageMemo* memo = stage_detail::memo_of(ctx);
  if (!memo) return Staged<Out>{name, call()};
  if (!memo->recording()) {
    // A record's reads include its inputs' (transitively), so a replayable stage has replayable inputs.
    if (const StageRecord* rec = memo->replayable(name)) {
      stage_detail::append_record(r, *rec);
      memo->count_replayed();
      return Staged<Out>{name, std::any_cast<const Out&>(rec->output)};
    }
    memo->count_recomputed();
    return Staged<Out>{name, call()};
  }
  memo->enter_stage(name);
  const auto before = stage_detail::sizes_of(r);
  MutantSet reads;
  std::optional<Out> out;
  const auto started = std::chrono::steady_clock::now();
  {
    const ReadScope scope;
    out.emplace(call());
    reads = scope.reads();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ((reads |= memo->reads_of(inputs.stage)), ...);
  StageRecord record = stage_detail::appended_since(r, before);
  record.reads = reads;
  record.seconds = seconds;
  record.output = *out;
  memo->leave_stage(name, std::move(record));
  return Staged<Out>{name, std::move(*out)};
}

}  // namespace infoflow
