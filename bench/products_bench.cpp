// Benchmark (not a test) of the trainer's matrix products (numerics/train/small_products.hpp) at the shapes of a token
// FFN, docs/training.md ("Passes over the columns"): E inputs, `width` hidden units, one column per token of a
// minibatch. The six products of one FFN step, forward and reverse, each timed alone.
//
//   bench-products [--E 24] [--width 128] [--columns 4096] [--reps 7]
// Prints one JSON line per product (median seconds of a call, and multiply-adds per second).
#include "bench/bench_common.hpp"
#include "numerics/train/small_products.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace {

using infoflow::small_products::Start;

struct Product {
  std::string name;
  bool transposed;  // multiply_transposed (a weight gradient) rather than multiply
  int m, k;         // multiply: C (m × n) = A (m × k) · B (k × n); transposed: G (m × k) += P (m × n) · Q (k × n)ᵀ
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The trainer's products at a token FFN's shapes (docs/training.md)"};
  int E = 24, width = 128, columns = 4096, reps = 7;
  app.add_option("--E", E, "the model's width (the FFN's inputs and outputs)")->check(CLI::Range(1, 1024));
  // The operands hold max(E, width) × columns entries each: at most 16 M (128 MB) within these ranges.
  app.add_option("--width", width, "hidden units")->check(CLI::Range(1, 1024));
  app.add_option("--columns", columns, "tokens per product")->check(CLI::Range(1, 1 << 14));
  app.add_option("--reps", reps, "repetitions (the median is reported)")->check(CLI::Range(1, 1000));
  if (const auto stop = infoflow::bench::parse_options(app, argc, argv)) return *stop;
  const std::vector<Product> products = {
      {"hidden = W1 X", false, width, E},     {"out = W2 hidden", false, E, width},
      {"g_hidden = W2^T g", false, width, E}, {"g_X = W1^T g_hidden", false, E, width},
      {"dW2 += g hidden^T", true, width, E},  {"dW1 += g_hidden X^T", true, E, width}};
  const std::size_t n = static_cast<std::size_t>(columns), big = static_cast<std::size_t>(std::max(E, width));
  // Operands large enough for every product, with entries of a token's size (their values do not change the time).
  std::vector<double> a(big * std::max(big, n)), b(big * n), c(big * std::max(big, n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37 * static_cast<double>(i));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.41 * static_cast<double>(i));
  using clock = std::chrono::steady_clock;
  for (const Product& p : products) {
    std::vector<double> seconds;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = clock::now();
      if (p.transposed)
        infoflow::small_products::multiply_transposed(p.m, p.k, columns, a.data(), p.m, b.data(), p.k, c.data(), p.m);
      else
        infoflow::small_products::multiply(p.m, p.k, columns, a.data(), p.m, b.data(), p.k, c.data(), p.m, Start::Zero);
      seconds.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
    const double s = infoflow::bench::median(seconds);
    std::cout << nlohmann::json{{"product", p.name}, {"m", p.m}, {"k", p.k}, {"columns", columns}, {"seconds", s},
                                {"multiply_adds_per_second", static_cast<double>(p.m) * p.k * columns / s},
                                {"checksum", c[0]}}
                     .dump()
              << "\n";
  }
}
