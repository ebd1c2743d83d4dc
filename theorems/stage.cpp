#include "theorems/stage.hpp"

#include "numerics/util/errors.hpp"
#include "theorems/suite.hpp"

namespace infoflow {

void StageMemo::start_recording() {
  if (!mutant_read_recording())
    throw ContractError("StageMemo::start_recording", "switch-read recording is off: nothing would be recorded");
  records_.clear();
  unstaged_ = {};
  recording_ = true;
  replaying_ = false;
  gap_ = std::make_unique<ReadScope>();
}

void StageMemo::finish_recording() {
  if (!recording_) throw ContractError("StageMemo::finish_recording", "not recording");
  if (!open_stage_.empty())
    throw ContractError("StageMemo::finish_recording", "stage " + open_stage_ + " is still open");
  if (gap_) unstaged_ |= gap_->reads();
  gap_.reset();
  recording_ = false;
}

void StageMemo::start_replay(Mutant m) {
  if (recording_) throw ContractError("StageMemo::start_replay", "still recording");
  replaying_ = true;
  replay_for_ = m;
  replayed_ = recomputed_ = 0;
}

const StageRecord* StageMemo::replayable(const std::string& stage) const {
  if (!replaying_ || unstaged_.contains(replay_for_)) return nullptr;
  const auto it = records_.find(stage);
  if (it == records_.end() || it->second.reads.contains(replay_for_)) return nullptr;
  return &it->second;
}

MutantSet StageMemo::reads_of(const std::string& stage) const {
  const auto it = records_.find(stage);
  return it == records_.end() ? MutantSet{} : it->second.reads;
}

std::map<std::string, double> StageMemo::stage_seconds() const {
  std::map<std::string, double> out;
  for (const auto& [name, rec] : records_) out[name] = rec.seconds;
  return out;
}

std::map<std::string, MutantSet> StageMemo::stage_reads() const {
  std::map<std::string, MutantSet> out;
  for (const auto& [name, rec] : records_) out[name] = rec.reads;
  return out;
}

void StageMemo::enter_stage(const std::string& stage) {
  if (!open_stage_.empty())
    throw ContractError("run_stage", "stage " + stage + " opened inside stage " + open_stage_ + " (stages do not nest)");
  if (records_.count(stage)) throw ContractError("run_stage", "two stages named " + stage);
  if (gap_) unstaged_ |= gap_->reads();
  gap_.reset();
  open_stage_ = stage;
}

void StageMemo::leave_stage(const std::string& stage, StageRecord record) {
  records_[stage] = std::move(record);
  open_stage_.clear();
  gap_ = std::make_unique<ReadScope>();
}

namespace stage_detail {

StageMemo* memo_of(const SuiteContext& ctx) { return ctx.stages.get(); }

ResultSizes sizes_of(const SuiteResult& r) {
  return {r.checks.size(), r.series.size(), r.facts.size(), r.notes.size(), r.tables.size()};
}

StageRecord appended_since(const SuiteResult& r, const ResultSizes& b) {
  if (r.checks.size() < b.checks || r.series.size() < b.series || r.facts.size() < b.facts ||
      r.notes.size() < b.notes || r.tables.size() < b.tables)
    throw ContractError("run_stage", "a stage removed items from the result (stages only append)");
  StageRecord rec;
  rec.checks.assign(r.checks.begin() + static_cast<std::ptrdiff_t>(b.checks), r.checks.end());
  rec.series.assign(r.series.begin() + static_cast<std::ptrdiff_t>(b.series), r.series.end());
  rec.facts.assign(r.facts.begin() + static_cast<std::ptrdiff_t>(b.facts), r.facts.end());
  rec.notes.assign(r.notes.begin() + static_cast<std::ptrdiff_t>(b.notes), r.notes.end());
  rec.tables.assign(r.tables.begin() + static_cast<std::ptrdiff_t>(b.tables), r.tables.end());
  return rec;
}

void append_record(SuiteResult& r, const StageRecord& rec) {
  r.checks.insert(r.checks.end(), rec.checks.begin(), rec.checks.end());
  r.series.insert(r.series.end(), rec.series.begin(), rec.series.end());
  r.facts.insert(r.facts.end(), rec.facts.begin(), rec.facts.end());
  r.notes.insert(r.notes.end(), rec.notes.begin(), rec.notes.end());
  r.tables.insert(r.tables.end(), rec.tables.begin(), rec.tables.end());
}

}  // namespace stage_detail

}  // namespace infoflow
