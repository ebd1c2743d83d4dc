#pragma once
// Parsing of suite options ("--T 2,4,8", "--eps 0.1,0.01"): every error names the option and what
// was expected, as an InputError (exit code 2).
#include "theorems/suite.hpp"

#include <string>
#include <vector>

namespace infoflow {

/// The option's comma-separated integers, each >= min_value; `fallback` when the option is absent.
std::vector<int> int_list_option(const SuiteContext& ctx, const std::string& name, int min_value,
                                 const std::vector<int>& fallback);
/// Comma-separated doubles, each strictly inside (lo, hi).
std::vector<double> double_list_option(const SuiteContext& ctx, const std::string& name, double lo, double hi,
                                       const std::vector<double>& fallback);
/// A number as it appears in sweep keys and file names: 6 significant digits ("0.001", "1e-05").
std::string number_key(double v);
/// n values from `first` to `last`, evenly spaced in log scale.
std::vector<double> log_spaced(double first, double last, int n);

}  // namespace infoflow
