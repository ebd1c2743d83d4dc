#include "numerics/util/xy_csv.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace infoflow {

namespace {

std::vector<std::string> split_cells(const std::string& line) { return split_commas(line, /*trim=*/true); }

// strtod, whole cell, finite. (std::stod throws out_of_range on subnormals such as 1e-320.)
bool parse_finite(const std::string& cell, double& v) {
  if (cell.empty()) return false;
  char* end = nullptr;
  v = std::strtod(cell.c_str(), &end);
  return end == cell.c_str() + cell.size() && std::isfinite(v);
}

}  // namespace

XYPoints parse_xy_csv(const std::string& text, const std::string& argument) {
  std::stringstream in(text);
  std::string line;
  if (!std::getline(in, line)) throw InputError(argument, "the file is empty; expected a header with columns x,y");
  const auto header = split_cells(line);
  const auto col = [&](const char* name) {
    return static_cast<long>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const long xi = col("x"), yi = col("y"), n = static_cast<long>(header.size());
  if (xi == n || yi == n) throw InputError(argument, "expected a header naming columns x and y, got '" + line + "'");
  XYPoints p;
  long lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto cells = split_cells(line);
    double xv = 0, yv = 0;
    if (static_cast<long>(cells.size()) <= std::max(xi, yi) || !parse_finite(cells[xi], xv) || !parse_finite(cells[yi], yv))
      throw InputError(argument, "line " + std::to_string(lineno) + ": expected finite numbers in columns x and y, got '" +
                                     line.substr(0, 200) + "'");
    p.x.push_back(xv);
    p.y.push_back(yv);
  }
  return p;
}

XYPoints read_xy_csv(const std::string& path, const std::string& argument) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(argument, "cannot open file '" + path + "' (not a regular file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(argument, "cannot open file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_xy_csv(ss.str(), argument);
}

}  // namespace infoflow
