#include "verify/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace infoflow {

ProgressPrinter::ProgressPrinter(std::string suite) : suite_(std::move(suite)), tty_(stderr_is_terminal()) {}

bool ProgressPrinter::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void ProgressPrinter::operator()(const SweepProgress& p) {
  if (p.label != label_) {
    label_ = p.label;
    last_tenth_ = 0;
    start_ = std::chrono::steady_clock::now();
    if (!tty_ && p.reused > 0)
      std::fprintf(stderr, "[%s] %s: resuming, %zu of %zu points kept from the checkpoint\n", suite_.c_str(),
                   p.label.c_str(), p.reused, p.total);
  }
  if (tty_) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::size_t fresh = p.done - p.reused;
    const double left = fresh > 0 ? secs / fresh * static_cast<double>(p.total - p.done) : 0.0;
    std::fprintf(stderr, "\r[%s] %s: %zu/%zu points, ~%.0f s left   ", suite_.c_str(), p.label.c_str(), p.done, p.total, left);
    if (p.done == p.total) std::fprintf(stderr, "\n");
    return;
  }
  const std::size_t tenth = p.total ? p.done * 10 / p.total : 10;
  if (tenth > last_tenth_ || p.done == p.total) {
    last_tenth_ = tenth;
    std::fprintf(stderr, "[%s] %s: %zu/%zu points\n", suite_.c_str(), p.label.c_str(), p.done, p.total);
  }
}

}  // namespace infoflow
