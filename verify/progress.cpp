#include "verify/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace infoflow {

ProgressPrinter::ProgressPrinter(std::string suite, std::string position)
    : suite_(std::move(suite)), position_(std::move(position)), tty_(stderr_is_terminal()) {
  if (!position_.empty()) suite_ = position_ + " " + suite_;
}

bool ProgressPrinter::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

std::string ProgressPrinter::timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

namespace {

// "75 s", "12.5 min", "2.3 h": durations a log reader takes in at a glance.
std::string duration_text(double seconds) {
  char text[32];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200) std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  else std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

}  // namespace

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
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::size_t fresh = p.done - p.reused;
    const std::string eta = p.done == p.total ? "done"
                            : fresh > 0       ? "~" + duration_text(secs / fresh * static_cast<double>(p.total - p.done)) + " left"
                                              : "time left unknown";
    std::fprintf(stderr, "%s [%s] %s: %zu/%zu points, %s elapsed, %s\n", timestamp().c_str(), suite_.c_str(),
                 p.label.c_str(), p.done, p.total, duration_text(secs).c_str(), eta.c_str());
  }
}

}  // namespace infoflow
