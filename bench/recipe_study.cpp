// Benchmark (not a test) of the experiments' training recipe, docs/experiments.md §5.4: the intrinsic-dimension (D,D)
// and (D-1,D) cells trained with one recipe change at a time against a base, on the same data and seeds, so that each
// change's effect is measured alone. scripts/bench-recipe runs it.
//
//   bench-recipe [--D 2,3] [--T 16] [--seeds 3] [--first-seed 0] [--steps 4000] [--train 20000] [--batch 64] [--lr 3e-3]
//                [--variants base,fresh,...] [--ffn-width 16] [--threads 2] [--seed 20260529]
//
// Variants: base (a fixed training set, peak rate --lr, no warm-up, temperatures stepped as they are), fresh (new
// samples at every step), lr1e-3 (peak rate 1e-3 with a warm-up over 5 % of the steps), log-temp (temperatures in log
// space), clip (gradient norm clipped to 1), curriculum (fresh samples, the first half of the steps at T/2), combined
// (fresh samples, the curriculum and clipping), all (every change at once); gelu and combined-gelu: GeLU units in the
// token FFN, alone and with combined; curriculum-8-gelu: combined-gelu with the curriculum T/8, T/4, T/2 before T.
// Prints one JSON line per cell, then a Markdown table: per variant and D, the (D,D) NMSE (mean and best over seeds),
// its ratio to the base (geometric mean over the paired seeds), and the (D-1,D)/(D,D) effect.
//
//   bench-recipe --from-construction [same options]
// trains only the (D,D) cells, each from the explicit construction (the suite's construction arm,
// docs/experiments.md §5.3; ReLU units, so no GeLU variant), and prints where each started and ended: is a better
// solution of the architecture reachable, and does the recipe keep it?
//
//   bench-recipe --twin DIR [same options] [--orders K]
// writes, for the first D and each seed, the (D,D) cell's data and initial model (DIR/seedR/data.json, init.json) for
// bench/pytorch_train.py, trains one recipe on them here (the base, or the one variant --variants names) and prints
// one JSON line per seed with its NMSE: the PyTorch twin of docs/experiments.md §5.5 (scripts/bench-recipe twin runs
// both). --orders K trains each seed with K minibatch orders (order 0 is the suite's own run of the cell), to tell the
// order's spread from a difference; --orders 0 only writes the twin's data (when the suite's own figures, order 0,
// are at hand).
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "numerics/util/number_text.hpp"
#include "theorems/infoflow/intrinsic_construction.hpp"
#include "theorems/infoflow/paper_experiments.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

using namespace infoflow;

namespace {

const std::vector<std::string> kVariants{"base",     "fresh",    "lr1e-3", "log-temp",      "clip",         "curriculum",
                                         "combined", "all",      "gelu",   "combined-gelu", "curriculum-8-gelu"};

// GeLU units in the token FFN: the architecture's, not the recipe's.
bool variant_gelu(const std::string& v) { return v == "gelu" || v == "combined-gelu" || v == "curriculum-8-gelu"; }

ExperimentTraining variant_training(const std::string& v, ExperimentTraining t, int T) {
  // curriculum-8-gelu: combined-gelu with the longer curriculum the review proposed, T/8, T/4, T/2 before T
  // (8, 16, 32 before 64), equal shares of the steps.
  const bool long_curriculum = v == "curriculum-8-gelu";
  const bool all = v == "all", combined = v == "combined" || v == "combined-gelu" || long_curriculum;
  if (v == "fresh" || v == "curriculum" || combined || all) t.fresh_samples = true;
  if (v == "lr1e-3" || all) t.learning_rate = 1e-3, t.warmup_steps = t.steps / 20;
  if (v == "log-temp" || all) t.log_temperatures = true;
  if (v == "clip" || combined || all) t.gradient_clip = 1.0;
  if (v == "curriculum" || combined || all) {
    const std::vector<int> shorter = long_curriculum ? std::vector<int>{T / 8, T / 4, T / 2} : std::vector<int>{T / 2};
    for (int stage_T : shorter)
      if (stage_T >= 3) t.curriculum_T.push_back(stage_T);  // the suite's lengths start at 3
  }
  return t;
}

std::string format(double v) { return format_number(v, 3); }

// exp of the mean of log(a_i / b_i): a ratio's typical size over paired seeds.
double geometric_mean_ratio(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::log(a[i] / b[i]);
  return std::exp(sum / static_cast<double>(a.size()));
}

// The curriculum as the trainer meets it: each stage as [first step, length], read from the lengths of the sequences
// the cell's fresh-sample drawer gives at every step (the twin prints the same list for its own drawer).
nlohmann::json stages_drawn(const ExperimentCell& c, const ExperimentTraining& training, const CellData& data,
                            std::uint64_t seed) {
  const SampleDrawer draw = experiment_sample_drawer(c, training, data.mean, data.sd, seed);
  SplitMix64 rng(derive_seed(seed, "twin-stages"));
  nlohmann::json stages = nlohmann::json::array();
  for (int step = 1; step <= training.steps; ++step) {
    Dataset one;
    draw(step, rng, 1, one);
    const int length = static_cast<int>(one.X.front().size());
    if (stages.empty() || stages.back()[1] != length) stages.push_back({step, length});
  }
  return stages;
}

// The PyTorch twin's side here (docs/experiments.md §5.5): for each seed, the (D,D) cell's validation set, initial model,
// settings and, with fresh samples, the distribution they come from, written under dir/seedR for
// bench/pytorch_train.py; then the cell trained here with `orders` minibatch orders, one JSON line each. Order 0 is
// the suite's own training of the cell (its figure is the suite's at the same seed); the others only draw their
// minibatches (or fresh samples) from another generator.
void run_twin(const std::string& twin, int D, int T, int first_seed, int seeds, int ffn_per_family, bool gelu,
              const ExperimentTraining& training, int orders, std::uint64_t seed) {
  const auto as_json = [](const Dataset& d) { return nlohmann::json{{"X", d.X}, {"y", d.y}}; };
  for (int r = first_seed; r < first_seed + seeds; ++r) {
    ExperimentCell c{ExperimentKind::IntrinsicDimension, D, T, D, D, intrinsic_dimension_E(D), r};
    c.ffn_per_family = ffn_per_family;
    if (gelu) c.ffn_activation = Activation::Gelu;
    const CellData data = draw_cell_data(c, training, seed);
    const std::string dir = twin + "/seed" + std::to_string(r);
    std::filesystem::create_directories(dir);
    // With fresh samples the training set only standardised the targets: the twin needs its mean and sd, not its samples.
    nlohmann::json sets{{"valid", as_json(data.valid)}};
    if (!training.fresh_samples) sets["train"] = as_json(data.train);
    write_json_file(dir + "/data.json", sets, "--twin");
    write_json_file(dir + "/init.json", weights_to_json(random_cell_start(c, seed, 0)), "--twin");
    if (training.fresh_samples)
      write_json_file(dir + "/fresh.json",
                      nlohmann::json{{"A", IntrinsicDimensionTarget::draw(c.target_families(), seed).A},
                                     {"mean", data.mean},
                                     {"sd", data.sd},
                                     {"stage_T", curriculum_stage_lengths(c, training)}},
                      "--twin");
    // The recipe as resolved here, for the twin to train with the very same settings.
    write_json_file(dir + "/settings.json",
                    nlohmann::json{{"steps", training.steps}, {"batch", training.batch}, {"lr", training.learning_rate},
                                   {"weight_decay", training.weight_decay}, {"warmup_steps", training.warmup_steps},
                                   {"gradient_clip", training.gradient_clip}, {"fresh_samples", training.fresh_samples},
                                   {"orders", orders}},
                    "--twin");
    const double variance = population_variance(data.valid.y);
    const nlohmann::json stages = training.fresh_samples ? stages_drawn(c, training, data, seed) : nlohmann::json();
    for (int order = 0; order < orders; ++order) {
      const auto t0 = std::chrono::steady_clock::now();
      TrainOptions o = experiment_train_options(c, training, seed, 0);
      if (order > 0) o.seed = derive_seed(o.seed, "order-" + std::to_string(order));
      const Model start = random_cell_start(c, seed, 0);
      const TrainResult ours =
          training.fresh_samples
              ? train_model(start, experiment_sample_drawer(c, training, data.mean, data.sd, seed), data.valid, o)
              : train_model(start, data.train, data.valid, o);
      std::cout << nlohmann::json{{"method", "ours"}, {"D", D}, {"T", T}, {"seed", r}, {"order", order}, {"dir", dir},
                                  {"valid_nmse", ours.valid.rmse * ours.valid.rmse / variance},
                                  {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
                                  {"stages", stages}}
                       .dump()
                << std::endl;
    }
  }
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"the experiments' training recipe, one change at a time (docs/experiments.md §5.4)"};
  std::vector<int> Ds{2, 3};
  int T = 16, seeds = 3, threads = 2, first_seed = 0;
  ExperimentTraining base;
  base.steps = 4000;
  base.train_samples = 20000;
  base.valid_samples = 2000;
  base.batch = 64;
  base.learning_rate = 3e-3;
  base.weight_decay = 1e-2;
  std::vector<std::string> variants = kVariants;
  std::uint64_t seed = 20260529;
  std::string twin;
  int orders = 1;
  bool twin_gelu = false;
  int ffn_per_family = ExperimentCell{}.ffn_per_family;
  bool from_construction = false;
  app.add_option("--D", Ds)->check(CLI::Range(2, 6))->delimiter(',');
  app.add_option("--T", T)->check(CLI::Range(4, 64));
  app.add_option("--seeds", seeds)->check(CLI::Range(1, 16));
  app.add_option("--first-seed", first_seed, "the first replicate seed (to revisit cells; first seed + seeds <= 16)")
      ->check(CLI::Range(0, 15));
  app.add_option("--steps", base.steps)->check(CLI::Range(20, 1000000));
  app.add_option("--train", base.train_samples)->check(CLI::Range(64, 100000));
  app.add_option("--batch", base.batch)->check(CLI::Range(1, 4096));
  app.add_option("--lr", base.learning_rate)->check(CLI::Range(1e-6, 1.0));
  app.add_option("--restarts", base.restarts, "trainings per cell, the best on a selection split kept (every variant)")
      ->check(CLI::Range(1, 16));
  app.add_option("--variants", variants)->check(CLI::IsMember(kVariants))->delimiter(',');
  app.add_option("--threads", threads)->check(CLI::Range(1, 256));
  app.add_option("--seed", seed);
  app.add_option("--twin", twin, "folder for the PyTorch twin's data and initial models");
  app.add_option("--orders", orders,
                 "with --twin: minibatch orders trained per seed (order 0 is the suite's); 0 writes the twin's data only")
      ->check(CLI::Range(0, 16));
  app.add_flag("--gelu", twin_gelu, "with --twin: GeLU units in the token FFN");
  app.add_option("--ffn-width", ffn_per_family, "token-FFN units per family of every cell (the suite's --id-ffn-width)")
      ->check(CLI::Range(1, 4096));
  app.add_flag("--from-construction", from_construction,
               "train only the (D,D) cells, each from the construction (ReLU units; the suite's construction arm)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.count("--orders") && twin.empty()) {
    std::fprintf(stderr, "bench-recipe: --orders: expected --twin DIR with it\n");
    return 2;
  }
  if (first_seed + seeds > 16) {
    std::fprintf(stderr, "bench-recipe: --first-seed: seeds %d to %d, expected the last at most 15\n", first_seed,
                 first_seed + seeds - 1);
    return 2;
  }
  if (twin_gelu && twin.empty()) {
    std::fprintf(stderr, "bench-recipe: --gelu: expected --twin DIR with it (for the study, --variants gelu,combined-gelu)\n");
    return 2;
  }
  if (from_construction && !twin.empty()) {
    std::fprintf(stderr, "bench-recipe: --from-construction: not with --twin (the twin starts from the suite's random start)\n");
    return 2;
  }
  if (from_construction && !valid_construction_width(ffn_per_family)) {
    std::fprintf(stderr, "bench-recipe: --ffn-width: the construction needs a multiple of 16 units per family, got %d\n",
                 ffn_per_family);
    return 2;
  }
  if (from_construction)
    for (const auto& v : variants)
      if (variant_gelu(v)) {
        std::fprintf(stderr, "bench-recipe: --variants: the construction's units are ReLU, so not '%s' with --from-construction\n",
                     v.c_str());
        return 2;
      }
  if (!twin.empty()) {
    // The twin trains one recipe: the base unless --variants names another. PyTorch has no log temperatures.
    const std::string variant = app.count("--variants") ? variants.front() : "base";
    if (variants.size() != 1 && app.count("--variants")) {
      std::fprintf(stderr, "bench-recipe: --variants: expected one variant with --twin, got %zu\n", variants.size());
      return 2;
    }
    const ExperimentTraining training = variant_training(variant, base, T);
    if (training.log_temperatures) {
      std::fprintf(stderr, "bench-recipe: --variants: the PyTorch twin has no log temperatures, got '%s'\n", variant.c_str());
      return 2;
    }
    run_twin(twin, Ds.front(), T, first_seed, seeds, ffn_per_family, twin_gelu || variant_gelu(variant), training, orders, seed);
    return 0;
  }
  // Every (variant, D, seed, column) is one single-threaded training; they run side by side.
  struct Job {
    std::string variant;
    ExperimentCell cell;
    CellResult result;
    double seconds = 0;
  };
  std::vector<Job> jobs;
  for (const auto& v : variants)
    for (int D : Ds)
      for (int r = first_seed; r < first_seed + seeds; ++r)
        for (int column = 0; column < (from_construction ? 1 : 2); ++column) {
          ExperimentCell c{ExperimentKind::IntrinsicDimension, D, T, column == 1 ? D - 1 : D, D, intrinsic_dimension_E(D), r};
          c.ffn_per_family = ffn_per_family;
          c.from_construction = from_construction;
          if (variant_gelu(v)) c.ffn_activation = Activation::Gelu;
          jobs.push_back({v, c, {}, 0});
        }
  std::vector<std::exception_ptr> errors(jobs.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (std::size_t j = 0; j < jobs.size(); ++j) try {
    const auto t0 = std::chrono::steady_clock::now();
    jobs[j].result = run_experiment_cell(jobs[j].cell, variant_training(jobs[j].variant, base, T), seed);
    jobs[j].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
#pragma omp critical
    std::cout << nlohmann::json{{"variant", jobs[j].variant}, {"D", jobs[j].cell.D}, {"arch", jobs[j].cell.arch_label()},
                                {"seed", jobs[j].cell.replicate}, {"nmse", jobs[j].result.nmse},
                                {"start_nmse", jobs[j].result.start_nmse}, {"diverged", jobs[j].result.diverged},
                                {"seconds", jobs[j].seconds}}
                     .dump()
              << std::endl;
  } catch (...) {
    errors[j] = std::current_exception();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  // (variant, D) -> per seed: the (D,D) and the (D-1,D) NMSE (NaN for a diverged training).
  struct BySeed {
    std::vector<double> dd, fewer;
  };
  std::map<std::pair<std::string, int>, BySeed> by;
  for (const auto& j : jobs) {
    BySeed& v = by[{j.variant, j.cell.D}];
    std::vector<double>& column = j.cell.h1 == j.cell.D ? v.dd : v.fewer;
    column.resize(static_cast<std::size_t>(seeds), NAN);
    column[static_cast<std::size_t>(j.cell.replicate - first_seed)] = j.result.diverged ? NAN : j.result.nmse;
  }
  std::printf("\n| variant | D | (D,D) NMSE mean | best | per seed | vs base (geo. mean of paired ratios) | (D-1,D)/(D,D) geo. mean |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto& v : variants)
    for (int D : Ds) {
      const BySeed& s = by.at({v, D});
      std::string per_seed;
      for (std::size_t r = 0; r < s.dd.size(); ++r) per_seed += (r ? ", " : "") + format(s.dd[r]);
      const auto base_run = by.find({"base", D});
      std::printf("| %s | %d | %s | %s | %s | %s | %s |\n", v.c_str(), D, format(mean_of(s.dd)).c_str(),
                  format(*std::min_element(s.dd.begin(), s.dd.end())).c_str(), per_seed.c_str(),
                  base_run != by.end() ? format(geometric_mean_ratio(s.dd, base_run->second.dd)).c_str() : "-",
                  s.fewer.empty() ? "-" : format(geometric_mean_ratio(s.fewer, s.dd)).c_str());
    }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench-recipe: %s\n", e.what());
  return 3;
}
