#include "theorems/suite_options.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/split.hpp"

#include <cmath>
#include <iomanip>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace infoflow {

namespace {
// A value given twice would be one sweep point under two names (and one checkpoint key).
template <class V>
void reject_duplicates(const std::vector<V>& values, const std::string& name) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (number_key(static_cast<double>(values[i])) == number_key(static_cast<double>(values[j])))
        throw InputError(name, "expected distinct values, got " + number_key(static_cast<double>(values[i])) + " twice");
}
}  // namespace

std::vector<int> int_list_option(const SuiteContext& ctx, const std::string& name, int min_value,
                                 const std::vector<int>& fallback) {
  const auto it = ctx.options.find(name);
  if (it == ctx.options.end() || it->second.empty()) return fallback;
  const std::string expected = "expected comma-separated integers >= " + std::to_string(min_value) + ", got '" + it->second + "'";
  std::vector<int> out;
  for (const auto& item : split_commas(it->second)) {
    try {
      std::size_t used = 0;
      const long v = std::stol(item, &used);
      if (used != item.size() || v < min_value || v > 1000000) throw std::invalid_argument("range");
      out.push_back(static_cast<int>(v));
    } catch (const std::exception&) {
      throw InputError(name, expected);
    }
  }
  if (out.empty()) throw InputError(name, expected);
  reject_duplicates(out, name);
  return out;
}

std::vector<double> double_list_option(const SuiteContext& ctx, const std::string& name, double lo, double hi,
                                       const std::vector<double>& fallback) {
  const auto it = ctx.options.find(name);
  if (it == ctx.options.end() || it->second.empty()) return fallback;
  std::ostringstream e;
  e << "expected comma-separated numbers strictly between " << lo << " and " << hi << ", got '" << it->second << "'";
  std::vector<double> out;
  for (const auto& item : split_commas(it->second)) {
    try {
      std::size_t used = 0;
      const double v = std::stod(item, &used);
      if (used != item.size() || !(v > lo && v < hi)) throw std::invalid_argument("range");
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError(name, e.str());
    }
  }
  if (out.empty()) throw InputError(name, e.str());
  reject_duplicates(out, name);
  return out;
}

// Six significant digits when they read back as the same double (the keys existing checkpoints and
// baselines hold), more when needed: distinct values never share a key.
std::string number_key(double v) {
  for (int digits = 6;; ++digits) {
    std::ostringstream o;
    o << std::setprecision(digits) << v;
    if (digits >= 17 || std::strtod(o.str().c_str(), nullptr) == v) return o.str();
  }
}

std::vector<double> log_spaced(double first, double last, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i)
  {
    const double x = n == 1 ? first : std::exp(std::log(first) + (std::log(last) - std::log(first)) * i / (n - 1));
    // Round to 12 significant digits so that 1e-3 is 0.001 and not 0.0010000000000000002.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.12g", x);
    v.push_back(std::strtod(buf, nullptr));
  }
  return v;
}

}  // namespace infoflow
