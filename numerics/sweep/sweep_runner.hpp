#pragma once
// Runs independent sweep points in parallel and keeps every finished point in a JSON-lines
// checkpoint, so an interrupted sweep resumes without redoing or losing finished work.
//
// Each finished point is one line {"key", "fingerprint", "value"} appended with a single write(2)
// and fsync'd. A kill can tear at most the line being written; on reopen a torn tail is cut off.
// Records whose fingerprint differs (other seed, profile or code version of the point) are ignored.
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace infoflow {

class SweepCheckpoint {
 public:
  /// Opens (creating if needed) the checkpoint file; `fingerprint` identifies the configuration.
  SweepCheckpoint(std::string path, std::string fingerprint);
  bool has(const std::string& key) const;
  const nlohmann::json& get(const std::string& key) const;
  void append(const std::string& key, const nlohmann::json& value);
  std::size_t size() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string fingerprint_;
  std::map<std::string, nlohmann::json> done_;
  mutable std::mutex mu_;
};

struct SweepProgress {
  std::string label;
  std::size_t done = 0;
  std::size_t total = 0;
  std::size_t reused = 0;
};

using ProgressFn = std::function<void(const SweepProgress&)>;

/// Computes compute(i) for every key not yet in the checkpoint, in parallel on `threads` OpenMP
/// threads, and returns the values of all keys in key order (reused and new alike). The first
/// exception thrown by a point is rethrown after the others in flight finish; finished points stay.
std::vector<nlohmann::json> run_sweep(const std::string& label, const std::vector<std::string>& keys,
                                      const std::function<nlohmann::json(std::size_t)>& compute,
                                      SweepCheckpoint& checkpoint, int threads, const ProgressFn& progress = {});

}  // namespace infoflow
