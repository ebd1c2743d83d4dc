#include "numerics/util/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace infoflow {

std::string format_number(double v, int digits) {
  if (!std::isfinite(v)) return v > 0 ? "+inf" : (v < 0 ? "-inf" : "nan");
  std::ostringstream o;
  o << std::setprecision(digits) << v;
  return o.str();
}

std::string format_bound(double v, int digits, bool upward) {
  if (!std::isfinite(v)) return format_number(v, digits);
  for (int d = std::max(1, digits); d <= 17; ++d) {
    const std::string t = format_number(v, d);
    const double parsed = std::strtod(t.c_str(), nullptr);
    if (upward ? parsed >= v : parsed <= v) return t;
  }
  return format_number(std::nextafter(v, upward ? INFINITY : -INFINITY), 17);
}

}  // namespace infoflow
