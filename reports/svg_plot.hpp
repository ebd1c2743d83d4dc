#pragma once
#include "reports/result.hpp"

#include <optional>
#include <string>

namespace infoflow {

/// Draws a series as a log-log SVG with gnuplot: the points, the fitted line and, when the series has
/// one, a line of the stated/derived slope through the points' centroid. Returns the SVG text, or
/// nullopt (with `why` set) when gnuplot is unavailable or fails.
std::optional<std::string> plot_series_svg(const Series& s, std::string& why);

}  // namespace infoflow
