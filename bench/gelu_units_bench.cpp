// Benchmark (not a test) of the trainer's GeLU units, docs/training.md ("The experiments' recipe"): the vectorised
// kernel small_products::gelu_and_slopes against the scalar gelu_and_slope (libm's erfc and exp) that the trainer
// called per unit before it, on the same arguments, paired and interleaved.
//
//   bench-gelu [--units 1048576] [--reps 5]
// Prints one JSON line per repetition (nanoseconds per unit for σ and σ' together, each route) and then the medians.
#include "bench/bench_common.hpp"
#include "numerics/scalar/gelu.hpp"
#include "numerics/train/small_products.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  CLI::App app{"GeLU units: the trainer's kernel against the scalar route (docs/training.md)"};
  int units = 1 << 20, reps = 5;
  app.add_option("--units", units, "arguments per pass, spread over [-3, 3]")->check(CLI::Range(1, 1 << 26));
  app.add_option("--reps", reps, "paired repetitions")->check(CLI::Range(1, 1000));
  if (const auto stop = infoflow::bench::parse_options(app, argc, argv)) return *stop;

  std::vector<double> x(static_cast<std::size_t>(units)), value(x.size()), slope(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 3.0 * std::sin(0.37 * static_cast<double>(i));  // where units live
  using clock = std::chrono::steady_clock;
  const auto per_unit = [&](clock::time_point t0) {
    return std::chrono::duration<double, std::nano>(clock::now() - t0).count() / static_cast<double>(units);
  };
  std::vector<double> kernel_ns, scalar_ns;
  double checksum = 0;  // keeps the scalar loop's results live
  for (int r = 0; r < reps; ++r) {
    value = x;  // in place, as the trainer calls it
    auto t0 = clock::now();
    infoflow::small_products::gelu_and_slopes(units, value.data(), slope.data());
    kernel_ns.push_back(per_unit(t0));
    t0 = clock::now();
    for (std::size_t i = 0; i < x.size(); ++i) value[i] = infoflow::gelu_and_slope(x[i], slope[i]);
    scalar_ns.push_back(per_unit(t0));
    checksum += value[x.size() / 2] + slope[x.size() / 3];
    std::cout << nlohmann::json{{"rep", r}, {"kernel_ns_per_unit", kernel_ns.back()}, {"scalar_ns_per_unit", scalar_ns.back()}}
                     .dump()
              << "\n";
  }
  const double k = infoflow::bench::median(kernel_ns), s = infoflow::bench::median(scalar_ns);
  std::cout << nlohmann::json{{"units", units}, {"kernel_ns_per_unit", k}, {"scalar_ns_per_unit", s},
                              {"scalar_over_kernel", s / k}, {"checksum", checksum}}
                   .dump()
            << "\n";
  return std::isfinite(checksum) ? 0 : 1;
}
