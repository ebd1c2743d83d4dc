#include "numerics/sweep/sweep_runner.hpp"
#include "numerics/sweep/distribution.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "numerics/util/record_seal.hpp"

#include <fcntl.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace infoflow {

namespace {

constexpr std::size_t kSealChars = 64;

// What a line's seal covers: the checkpoint's file name and the record's text, so that a sealed line moved into
// another checkpoint (one with the same fingerprint) does not verify there.
std::string sealed_content(const std::string& checkpoint_name, const std::string& record_text) {
  return checkpoint_name + "\n" + record_text;
}

// A stored line: the seal, a space, the record's JSON text (docs/input-limits.md, "What is trusted").
std::string sealed_line(const std::string& checkpoint_name, const std::string& record_text) {
  return RecordSeal::instance().seal(sealed_content(checkpoint_name, record_text)) + " " + record_text + "\n";
}

// The record text of a line, or nothing when the line's seal does not verify (torn, edited, forged, another
// user's, moved from another checkpoint, or of the unsealed format).
std::optional<std::string> sealed_text(const std::string& checkpoint_name, const std::string& line) {
  if (line.size() <= kSealChars + 1 || line[kSealChars] != ' ') return std::nullopt;
  std::string text = line.substr(kSealChars + 1);
  if (!RecordSeal::instance().verifies(sealed_content(checkpoint_name, text), line.substr(0, kSealChars))) return std::nullopt;
  return text;
}

}  // namespace

std::string sealed_checkpoint_line(const std::string& checkpoint_path, const std::string& record_text) {
  return sealed_line(std::filesystem::path(checkpoint_path).filename().string(), record_text);
}

SweepCheckpoint::SweepCheckpoint(std::string path, std::string fingerprint, Adoption adoption)
    : path_(std::move(path)), fingerprint_(std::move(fingerprint)), adoption_(std::move(adoption)) {
  if (!adoption_.fingerprint.empty() && adoption_.fingerprint == fingerprint_)
    throw ContractError("SweepCheckpoint", "the points offered for adoption have this checkpoint's own fingerprint");
  // Under MPI only the root owns checkpoints: a worker's checkpoint is empty and never touches the file.
  if (!is_root_process()) return;
  const std::filesystem::path p(path_);
  if (p.has_parent_path()) ensure_directory(p.parent_path().string(), "--out");
  const int fd = open_own_file(path_, O_RDWR, "--out");
  if (fd < 0) return;  // a new checkpoint
  std::string text;
  try {
    text = read_own_file(fd, path_, "--out");
  } catch (...) {
    ::close(fd);
    throw;
  }
  // Cut a torn last line (a kill during a write) so the next append starts on a fresh line. ftruncate acts on
  // the file opened (never on a link's target: open_own_file refuses links).
  const auto last_nl = text.rfind('\n');
  const std::size_t keep = last_nl == std::string::npos ? 0 : last_nl + 1;
  if (keep != text.size()) {
    if (::ftruncate(fd, static_cast<off_t>(keep)) != 0) {
      ::close(fd);
      throw InputError("--out", "cannot cut the torn last line of checkpoint '" + path_ + "'");
    }
    text.resize(keep);
  }
  ::close(fd);
  std::stringstream lines(text);
  std::string line;
  std::map<std::string, std::size_t> adoptable_at;  // key -> its place in adoptable_
  while (std::getline(lines, line)) {
    // A line that is not a sealed, well-formed record of this configuration (torn, edited, forged, of another
    // version) is not a finished point: it is skipped and the point recomputed.
    if (line.empty()) continue;
    const auto text = sealed_text(std::filesystem::path(path_).filename().string(), line);
    if (!text) {
      ++untrusted_;
      continue;
    }
    const auto parsed = try_parse_json_text(*text);
    if (parsed.is_discarded() || !parsed.is_object()) continue;
    const nlohmann::json* j = &parsed;
    const auto key = j->find("key"), fingerprint = j->find("fingerprint"), value = j->find("value");
    if (key == j->end() || !key->is_string() || value == j->end()) continue;
    if (fingerprint == j->end() || !fingerprint->is_string()) continue;
    // A point adopted from another build says so (append_adopted); the key's last line decides, so a later unmarked
    // line of the key clears the mark.
    std::optional<nlohmann::json> mark;
    if (const auto m = j->find("adopted_from"); m != j->end() && m->is_object()) mark = *m;
    if (*fingerprint == fingerprint_) {
      done_[key->get<std::string>()] = decode_nonfinite(*value);
      if (mark) adopted_from_[key->get<std::string>()] = std::move(*mark);
      else adopted_from_.erase(key->get<std::string>());
    } else if (!adoption_.fingerprint.empty() && *fingerprint == adoption_.fingerprint) {
      const auto [at, first] = adoptable_at.emplace(key->get<std::string>(), adoptable_.size());
      if (first) adoptable_.push_back({key->get<std::string>(), nlohmann::json(), std::nullopt});
      adoptable_[at->second].record = decode_nonfinite(*value);
      adoptable_[at->second].earlier_mark = std::move(mark);
    }
  }
  if (untrusted_ > 0)
    std::fprintf(stderr, "warning: %zu line(s) of checkpoint '%s' are not sealed by this user's key (%s): their points "
                 "are recomputed\n", untrusted_, path_.c_str(), RecordSeal::instance().key_origin().c_str());
}

bool SweepCheckpoint::has(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_.count(key) != 0;
}

const nlohmann::json& SweepCheckpoint::get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_.at(key);
}

std::size_t SweepCheckpoint::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_.size();
}

void SweepCheckpoint::append(const std::string& key, const nlohmann::json& value) { write_line(key, value, nullptr); }

void SweepCheckpoint::append_adopted(const std::string& key, const nlohmann::json& value, const nlohmann::json& mark) {
  write_line(key, value, &mark);
}

std::optional<nlohmann::json> SweepCheckpoint::adopted_from(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = adopted_from_.find(key);
  return it == adopted_from_.end() ? std::nullopt : std::optional<nlohmann::json>(it->second);
}

void SweepCheckpoint::write_line(const std::string& key, const nlohmann::json& value, const nlohmann::json* adopted_from) {
  nlohmann::json record{{"key", key}, {"fingerprint", fingerprint_}, {"value", value}};
  if (adopted_from) record["adopted_from"] = *adopted_from;
  // NaN and ±inf (a diverged candidate's error) would be written as null and not read back: encoded instead.
  const std::string line = sealed_line(std::filesystem::path(path_).filename().string(), encode_record_text(record));
  std::lock_guard<std::mutex> lock(mu_);
  const int fd = open_own_file(path_, O_WRONLY | O_APPEND | O_CREAT, "--out");
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw InputError("--out", "write to checkpoint '" + path_ + "' failed");
    }
    written += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  done_[key] = value;
  if (adopted_from) adopted_from_[key] = *adopted_from;
  else adopted_from_.erase(key);
}

namespace detail {

namespace {

// The points of this sweep that are not (readably) in the checkpoint, in key order.
std::vector<std::size_t> pending_points(const std::vector<std::string>& keys,
                                        const std::function<bool(const nlohmann::json&)>& readable,
                                        const SweepCheckpoint& checkpoint) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!checkpoint.has(keys[i]) || !readable(checkpoint.get(keys[i]))) pending.push_back(i);
  return pending;
}

// Several processes: the root hands out the pending points and keeps the checkpoint; then every rank gets the
// records of all points (or the first error) from the root, so the suite code after the sweep runs on identical
// data everywhere. A point's record does not depend on which rank computed it.
std::vector<nlohmann::json> run_distributed(SweepDistributor& d, const std::string& label, const std::vector<std::string>& keys,
                                            const std::function<nlohmann::json(std::size_t)>& compute,
                                            const std::function<bool(const nlohmann::json&)>& readable,
                                            SweepCheckpoint& checkpoint, const ProgressFn& progress) {
  std::string text;
  if (d.is_root()) {
    const std::vector<std::size_t> pending = pending_points(keys, readable, checkpoint);
    const std::size_t reused = keys.size() - pending.size();
    std::size_t done = reused;
    if (progress) progress(SweepProgress{label, reused, keys.size(), reused});
    const std::string error = d.serve(pending, {}, [&](std::size_t i, const nlohmann::json& value) {
      checkpoint.append(keys[i], value);
      if (progress) progress(SweepProgress{label, ++done, keys.size(), reused});
    });
    nlohmann::json values = nlohmann::json::array();
    if (error.empty())
      for (const auto& key : keys) values.push_back(checkpoint.get(key));
    text = encode_record_text(nlohmann::json{{"error", error}, {"values", values}});
  } else {
    d.serve({}, compute, {});
  }
  const nlohmann::json all = decode_record_text(d.broadcast(text));
  const std::string error = all.at("error").get<std::string>();
  if (!error.empty()) throw NumericError("sweep '" + label + "': " + error);
  return all.at("values").get<std::vector<nlohmann::json>>();
}

// Computes the points `pending` (indices into keys) on `threads` threads and appends each to the checkpoint as it
// finishes. The first error is rethrown once the points in flight have finished; the finished points stay.
void compute_points(const std::string& label, const std::vector<std::string>& keys, const std::vector<std::size_t>& pending,
                    const std::function<nlohmann::json(std::size_t)>& compute, SweepCheckpoint& checkpoint, int threads,
                    const ProgressFn& progress) {
  const std::size_t reused = keys.size() - pending.size();
  std::atomic<std::size_t> done{reused};
  std::exception_ptr first_error;
  std::mutex error_mu, progress_mu;
  if (progress) progress(SweepProgress{label, reused, keys.size(), reused});

  const long n = static_cast<long>(pending.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
  for (long k = 0; k < n; ++k) {
    {
      std::lock_guard<std::mutex> lock(error_mu);
      if (first_error) continue;  // stop starting new points once one failed
    }
    try {
      const std::size_t i = pending[static_cast<std::size_t>(k)];
      nlohmann::json value = compute(i);
      checkpoint.append(keys[i], value);
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        progress(SweepProgress{label, d, keys.size(), reused});
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!first_error) first_error = std::current_exception();
    }
  }
  // Worker threads keep FLINT/MPFR caches; free them (the pool may be reused, which is harmless).
#pragma omp parallel num_threads(threads > 0 ? threads : 1)
  release_thread_caches();
  if (first_error) std::rethrow_exception(first_error);
}

// Another build's points (SweepCheckpoint::Adoption) become this sweep's finished points only when this build computes
// the same records: the first and the last of them (in the order that build wrote them) are recomputed, or read when
// an earlier run of this build recomputed them itself (never when they are themselves adopted), and compared with that
// build's records as text, which prints every double to the last bit. When both agree, the other points are appended
// as adopted (SweepCheckpoint::append_adopted), each naming that build and the two witnesses, so a later run resumes
// them without the option and its result still says where they came from (adoption_notes). It is a check on two
// samples: a change that moves no record of either witness goes unseen (docs/input-limits.md).
void adopt_points(const std::string& label, const std::vector<std::string>& keys,
                  const std::function<nlohmann::json(std::size_t)>& compute,
                  const std::function<bool(const nlohmann::json&)>& readable, SweepCheckpoint& checkpoint, int threads,
                  const ProgressFn& progress) {
  const auto finished = [&](std::size_t i) { return checkpoint.has(keys[i]) && readable(checkpoint.get(keys[i])); };
  const auto computed_here = [&](std::size_t i) { return finished(i) && !checkpoint.adopted_from(keys[i]).has_value(); };
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < keys.size(); ++i) index[keys[i]] = i;
  std::vector<std::pair<std::size_t, const SweepCheckpoint::OfferedPoint*>> offered;  // (this sweep's index, point)
  for (const auto& point : checkpoint.adoptable())
    if (const auto it = index.find(point.key); it != index.end() && readable(point.record))
      offered.emplace_back(it->second, &point);
  if (std::all_of(offered.begin(), offered.end(), [&](const auto& point) { return finished(point.first); })) return;
  if (SweepDistributor* d = sweep_distributor(); d && d->size() > 1)
    throw InputError("--adopt-build", "expected one process: another build's points are adopted by a run without MPI");

  std::vector<std::pair<std::size_t, const SweepCheckpoint::OfferedPoint*>> witnesses{offered.front()};
  if (offered.back().first != offered.front().first) witnesses.push_back(offered.back());
  // The witnesses still to recompute, as a sweep of their own: its progress counts them, not the points to adopt.
  std::vector<std::string> recompute_keys;
  std::vector<std::size_t> recompute_points, all_of_them;
  for (const auto& [i, point] : witnesses)
    if (!computed_here(i)) {
      all_of_them.push_back(recompute_keys.size());
      recompute_keys.push_back(keys[i]);
      recompute_points.push_back(i);
    }
  const std::string& source = checkpoint.adoption().source;
  if (!recompute_keys.empty())
    compute_points(label + ", witnesses of " + source, recompute_keys, all_of_them,
                   [&](std::size_t w) { return compute(recompute_points[w]); }, checkpoint, threads, progress);
  nlohmann::json mark{{"source", source}, {"witnesses", nlohmann::json::array()}};
  for (const auto& [i, point] : witnesses) {
    if (encode_record_text(checkpoint.get(keys[i])) != encode_record_text(point->record))
      throw InputError("--adopt-build", "sweep '" + label + "': this build's record of point '" + keys[i] +
                                            "' differs from that of " + source + ", so none of " + source +
                                            "'s points is adopted; run without --adopt-build to recompute them");
    mark["witnesses"].push_back(keys[i]);
  }
  std::size_t adopted = 0;
  for (const auto& [i, point] : offered)
    if (!finished(i)) {
      // A point that build had itself adopted keeps the chain: its mark says where it came from before.
      nlohmann::json point_mark = mark;
      if (point->earlier_mark) point_mark["earlier"] = *point->earlier_mark;
      checkpoint.append_adopted(keys[i], point->record, point_mark);
      ++adopted;
    }
  std::fprintf(stderr, "sweep '%s': witnesses %s of %s recomputed to the same records; %zu other point(s) adopted\n",
               label.c_str(), mark["witnesses"].dump().c_str(), source.c_str(), adopted);
}

// "build X after this build recomputed p0, p9 to the same record, bit for bit" and, down a chain of adoptions, where
// build X had its points from. A mark comes from a sealed line of this user's; its fields are still read defensively.
std::string adoption_story(const nlohmann::json& mark, const std::string& recomputer) {
  std::string witnesses;
  if (const auto w = mark.find("witnesses"); w != mark.end() && w->is_array())
    for (const auto& k : *w) witnesses += (witnesses.empty() ? "" : ", ") + (k.is_string() ? k.get<std::string>() : k.dump());
  const auto source = mark.find("source");
  const std::string from = source != mark.end() && source->is_string() ? source->get<std::string>() : "another build";
  std::string story = from + " after " + recomputer + " recomputed " + witnesses + " to the same record, bit for bit";
  if (const auto earlier = mark.find("earlier"); earlier != mark.end() && earlier->is_object())
    story += "; " + from + " had adopted them from " + adoption_story(*earlier, from);
  return story;
}

// One note per adoption whose points this sweep's result uses: how many, from which build, which witnesses.
void note_adopted_points(const std::string& label, const std::vector<std::string>& keys, const SweepCheckpoint& checkpoint) {
  if (!checkpoint.adoption().notes) return;
  std::map<std::string, std::pair<nlohmann::json, std::size_t>> by_adoption;  // mark's text -> (mark, points)
  for (const auto& key : keys)
    if (const auto mark = checkpoint.adopted_from(key)) {
      auto& entry = by_adoption[mark->dump()];
      entry.first = *mark;
      ++entry.second;
    }
  for (const auto& [text, entry] : by_adoption)
    checkpoint.adoption().notes->push_back("Sweep '" + label + "': " + std::to_string(entry.second) +
                                           " point(s) adopted (--adopt-build) from " +
                                           adoption_story(entry.first, "this build") + ".");
}

}  // namespace

std::vector<nlohmann::json> run_sweep_json(const std::string& label, const std::vector<std::string>& keys,
                                           const std::function<nlohmann::json(std::size_t)>& compute,
                                           const std::function<bool(const nlohmann::json&)>& readable,
                                           SweepCheckpoint& checkpoint, int threads, const ProgressFn& progress) {
  {
    std::set<std::string> unique(keys.begin(), keys.end());
    if (unique.size() != keys.size()) throw NumericError("sweep '" + label + "': duplicate point keys");
  }
  if (!checkpoint.adoptable().empty()) adopt_points(label, keys, compute, readable, checkpoint, threads, progress);
  std::vector<nlohmann::json> out;
  if (SweepDistributor* d = sweep_distributor(); d && d->size() > 1) {
    out = run_distributed(*d, label, keys, compute, readable, checkpoint, progress);
  } else {
    compute_points(label, keys, pending_points(keys, readable, checkpoint), compute, checkpoint, threads, progress);
    out.reserve(keys.size());
    for (const auto& key : keys) out.push_back(checkpoint.get(key));
  }
  note_adopted_points(label, keys, checkpoint);
  return out;
}

}  // namespace detail

std::string settings_version(const std::string& version, const nlohmann::json& settings) {
  // FNV-1a over the settings' canonical text: deterministic across runs, builds and machines.
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : settings.dump()) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return version + "/settings=" + hex;
}

}  // namespace infoflow
