#pragma once
// Runs independent sweep points in parallel and keeps every finished point in a JSON-lines
// checkpoint, so an interrupted sweep resumes without redoing or losing finished work.
//
// Each finished point is one line, SEAL {"key", "fingerprint", "value"}, appended with a single write(2) and
// fsync'd; SEAL is the record's HMAC under this user's key (numerics/util/record_seal.hpp), so a line someone
// else wrote or edited is not taken for a finished point. A kill can tear at most the line being written; on
// reopen a torn tail is cut off. Records whose fingerprint differs (other seed, profile or code version of the
// point) are ignored, unless they are another build's points offered for adoption (SweepCheckpoint::Adoption). The
// file is opened with O_NOFOLLOW: a symbolic link in its place is refused (InputError).
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infoflow {

/// A checkpoint line as SweepCheckpoint writes it (with its newline): the seal of the checkpoint's file name and the
/// record's text under this user's key, a space, the record's JSON text. For tests and fuzzers that write lines.
std::string sealed_checkpoint_line(const std::string& checkpoint_path, const std::string& record_text);

class SweepCheckpoint {
 public:
  /// Points of this configuration that another build computed (`--adopt-build`; docs/input-limits.md, "Another
  /// build's points"): the lines of `fingerprint` are kept apart, and run_sweep takes them as finished points only after
  /// recomputing two of them to the same records, bit for bit. `source` names them in messages ("build 8f5042b2aa2f").
  /// `notes` (which may be set alone) gets a line for each adoption whose points a sweep's result uses, in the run that
  /// adopted them and in every later one (the suite's result shows it).
  struct Adoption {
    std::string fingerprint;
    std::string source;
    std::shared_ptr<std::vector<std::string>> notes;
  };

  /// Opens (creating if needed) the checkpoint file; `fingerprint` identifies the configuration.
  SweepCheckpoint(std::string path, std::string fingerprint, Adoption adoption = {});
  bool has(const std::string& key) const;
  const nlohmann::json& get(const std::string& key) const;
  void append(const std::string& key, const nlohmann::json& value);
  /// Appends another build's record of `key` as this build's finished point, marked with where it came from (`mark`:
  /// the source and the witnesses recomputed before adopting it). run_sweep adopts through this only.
  void append_adopted(const std::string& key, const nlohmann::json& value, const nlohmann::json& mark);
  /// The mark of a point this checkpoint holds as adopted, or nothing for a point this build computed (or none).
  std::optional<nlohmann::json> adopted_from(const std::string& key) const;
  std::size_t size() const;
  const std::string& path() const { return path_; }
  /// Lines that were not sealed by this user's key (forged, edited, or another user's): their points are recomputed.
  std::size_t untrusted_lines() const { return untrusted_; }
  const Adoption& adoption() const { return adoption_; }
  /// A point of the other build (Adoption): its last record, and the mark its line carries when that build had itself
  /// adopted the point (a chain of adoptions keeps it as the new mark's "earlier").
  struct OfferedPoint {
    std::string key;
    nlohmann::json record;
    std::optional<nlohmann::json> earlier_mark;
  };
  /// The other build's points, each key once, in the order that build first wrote them.
  const std::vector<OfferedPoint>& adoptable() const { return adoptable_; }

 private:
  void write_line(const std::string& key, const nlohmann::json& value, const nlohmann::json* adopted_from);

  std::string path_;
  std::string fingerprint_;
  Adoption adoption_;
  std::vector<OfferedPoint> adoptable_;
  std::map<std::string, nlohmann::json> done_;
  std::map<std::string, nlohmann::json> adopted_from_;  // the points of done_ that were adopted: key -> mark
  std::size_t untrusted_ = 0;
  mutable std::mutex mu_;
};

struct SweepProgress {
  std::string label;
  std::size_t done = 0;
  std::size_t total = 0;
  std::size_t reused = 0;
};

using ProgressFn = std::function<void(const SweepProgress&)>;

namespace detail {
/// The engine behind run_sweep: JSON values, as the checkpoint stores them. A stored value for which
/// `readable` is false (written by another version of the record) is recomputed, not reused.
std::vector<nlohmann::json> run_sweep_json(const std::string& label, const std::vector<std::string>& keys,
                                           const std::function<nlohmann::json(std::size_t)>& compute,
                                           const std::function<bool(const nlohmann::json&)>& readable,
                                           SweepCheckpoint& checkpoint, int threads, const ProgressFn& progress);
}  // namespace detail

/// Computes compute(i) for every key not yet in the checkpoint, in parallel on `threads` OpenMP
/// threads, and returns the records of all keys in key order (reused and new alike). The first
/// exception thrown by a point is rethrown after the others in flight finish; finished points stay.
/// Another build's points (SweepCheckpoint::Adoption) are first checked: the first and the last of them that this sweep
/// names are recomputed (or read, when this build already has them), and only if both records are the same to the last
/// bit are the others taken as finished; otherwise InputError (--adopt-build) and none is taken.
/// `Record` converts to and from JSON (nlohmann's to_json/from_json found by ADL); JSON exists only
/// in the checkpoint file. A stored record that does not read back as a Record is recomputed.
template <class Record, class Compute>
std::vector<Record> run_sweep(const std::string& label, const std::vector<std::string>& keys, const Compute& compute,
                              SweepCheckpoint& checkpoint, int threads, const ProgressFn& progress = {}) {
  const auto readable = [](const nlohmann::json& j) {
    try {
      (void)j.get<Record>();
      return true;
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  };
  const std::vector<nlohmann::json> values = detail::run_sweep_json(
      label, keys, [&](std::size_t i) { return nlohmann::json(Record(compute(i))); }, readable, checkpoint, threads,
      progress);
  std::vector<Record> out;
  out.reserve(values.size());
  for (const auto& v : values) out.push_back(v.template get<Record>());
  return out;
}

/// `version` extended with a digest of the settings that determine a point but are not in its key (sample
/// counts, widths, iterations, ...): a rerun with other settings on the same folder recomputes, never reuses.
std::string settings_version(const std::string& version, const nlohmann::json& settings);

}  // namespace infoflow
