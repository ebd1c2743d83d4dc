#pragma once
// The `fit` command's input: a CSV file whose header names columns x and y (other columns are
// ignored). Every number must be finite; subnormal values such as 1e-320 are numbers like any other.
#include <string>
#include <vector>

namespace infoflow {

struct XYPoints {
  std::vector<double> x, y;
};

/// Parses CSV text; errors are InputError(argument, "line N: ...").
XYPoints parse_xy_csv(const std::string& text, const std::string& argument);

/// Reads a file and parses it as above.
XYPoints read_xy_csv(const std::string& path, const std::string& argument);

}  // namespace infoflow
