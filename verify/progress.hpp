#pragma once
#include "numerics/sweep/sweep_runner.hpp"

#include <chrono>
#include <string>

namespace infoflow {

/// Progress of sweeps: on a terminal a single updating line with the time left; in a pipe or CI
/// plain lines, one per tenth of a sweep, so logs stay short.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::string suite);
  void operator()(const SweepProgress& p);
  static bool stderr_is_terminal();

 private:
  std::string suite_;
  bool tty_;
  std::string label_;
  std::size_t last_tenth_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace infoflow
