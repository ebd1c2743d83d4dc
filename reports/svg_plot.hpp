#pragma once
// Draws a series as an SVG picture, written here (no external program): the points (with error bars where the
// series has intervals), the fitted line, the stated or derived reference line, an overlay curve and a marker.
//
// No text of a series ever becomes a program: every label is XML character data, escaped, with control
// characters replaced. (The plots used to be drawn by gnuplot from a generated script, and a label in a
// result.json someone else wrote could run shell commands through gnuplot's back-quote substitution.)
#include "reports/result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace infoflow {

struct SeriesPlot {
  /// The SVG document; nullopt when no point can be drawn (then `why` says so).
  std::optional<std::string> svg;
  std::string why;
  /// Every point that is not drawn, with the reason (non-finite, or not positive on a log axis): the report
  /// lists them under the plot, so nothing is dropped silently.
  std::vector<std::string> dropped;
};

/// Log axes (ticks at 10^k, labelled as powers of ten) when s.log_log, linear axes (ticks at 1, 2 or 5 × 10^m)
/// otherwise. The legend sits below the axes, never on the data; a long title is wrapped, then shortened.
SeriesPlot plot_series_svg(const Series& s);

}  // namespace infoflow
