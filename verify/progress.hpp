#pragma once
#include "numerics/sweep/sweep_runner.hpp"

#include <chrono>
#include <string>

namespace infoflow {

/// Progress of sweeps: on a terminal a single updating line with the time left; in a pipe, CI or a batch log plain
/// lines, one per tenth of a sweep, each with a UTC time stamp, the elapsed time and an estimate of the time left.
/// `position` ("suite 2/6") says where the run stands among the suites of `all`.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::string suite, std::string position = {});
  void operator()(const SweepProgress& p);
  static bool stderr_is_terminal();
  /// "2026-12-03T04:15:02Z": the prefix of every logged line (UTC, seconds).
  static std::string timestamp();

 private:
  std::string suite_;
  std::string position_;
  bool tty_;
  std::string label_;
  std::size_t last_tenth_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace infoflow
