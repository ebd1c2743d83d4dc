#pragma once
#include <limits>
#include <string>

namespace infoflow {

enum class Verdict { Pass, Fail, Inconclusive };

inline const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    default: return "inconclusive";
  }
}
Verdict verdict_from_name(const std::string& s);

struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool bounded() const { return lo > -std::numeric_limits<double>::infinity() && hi < std::numeric_limits<double>::infinity(); }
  bool inside(const Interval& band) const { return lo >= band.lo && hi <= band.hi; }
  bool disjoint(const Interval& band) const { return hi < band.lo || lo > band.hi; }
};

/// docs/theory.md §1: pass when the interval lies inside the band, fail when it lies outside, else inconclusive.
inline Verdict judge_interval(const Interval& ci, const Interval& band) {
  if (ci.bounded() && ci.inside(band)) return Verdict::Pass;
  if (ci.disjoint(band)) return Verdict::Fail;
  return Verdict::Inconclusive;
}

}  // namespace infoflow
