#pragma once
// What the benchmarks of bench/ share: reading their options with the toolkit's exit codes, and the median of a
// benchmark's repetitions.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace infoflow::bench {

/// Parses the command line into `app`. Returns the exit code when the program should stop here: 0 after --help, 2 for
/// bad input (CLI11 has printed the message naming the option); nothing when the benchmark should run.
inline std::optional<int> parse_options(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

/// The median of a non-empty list of timings (the upper one of the two middle entries for an even count).
inline double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace infoflow::bench
