// Benchmark (not a test) of single-layer training, docs/training.md: the suites' Levenberg–Marquardt fit against the
// batched AdamW trainer, on the Theorem 1 configuration, with the data written to a folder so that
// bench/pytorch_train.py trains the same model on the same data. scripts/bench-train runs it paired and interleaved.
//
//   bench-train write DIR [--T 3] [--d 2] [--E 4] [--n 1] [--p 8] [--train 800] [--valid 400] [--seed 1]
//                     [--layers 1] [--heads 1] [--ffn 0] [--gelu]   (more layers: the same heads per layer, a token
//                                                           FFN of width --ffn between layers, GeLU units with --gelu)
//   bench-train lm DIR [--threads K]                      the suite's fit: 3 restarts, 150 iterations
//   bench-train adam DIR [--threads K] [--target R] [--lr 1e-2] [--steps 3000] [--batch 800] [--eval-every 10]
// Each run prints one JSON line: seconds, steps or iterations, validation RMSE, and whether the target was reached.
#include "numerics/fit/model_fitter.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/eigen_blocking.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/single_layer_evidence.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

using namespace infoflow;
using nlohmann::json;

namespace {

json dataset_json(const Dataset& d) { return json{{"X", d.X}, {"y", d.y}}; }
Dataset dataset_from(const json& j) {
  Dataset d;
  d.X = j.at("X").get<decltype(d.X)>();
  d.y = j.at("y").get<std::vector<double>>();
  return d;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
  infoflow::pin_eigen_cache_sizes();  // the same products, and LM fits, as the CLI's
  CLI::App app{"single-layer training benchmark (docs/training.md)"};
  std::string mode, dir;
  int T = 3, d = 2, E = 4, n = 1, p = 8, train_n = 800, valid_n = 400, threads = 1, steps = 3000, batch = 800, every = 10;
  std::uint64_t seed = 1;
  double target = 0, lr = 1e-2;
  int layers = 1, heads = 1, ffn = 0;
  bool gelu = false;
  app.add_option("mode", mode, "write, lm or adam")->required()->check(CLI::IsMember({"write", "lm", "adam"}));
  app.add_option("dir", dir, "folder for the data and the initial model")->required();
  app.add_option("--T", T)->check(CLI::Range(1, 64));
  app.add_option("--d", d)->check(CLI::Range(1, 16));
  app.add_option("--E", E)->check(CLI::Range(1, 256));
  app.add_option("--n", n)->check(CLI::Range(1, 64));
  app.add_option("--p", p)->check(CLI::Range(1, 4096));
  app.add_option("--train", train_n)->check(CLI::Range(1, 1000000));
  app.add_option("--valid", valid_n)->check(CLI::Range(1, 1000000));
  app.add_option("--seed", seed);
  app.add_option("--layers", layers, "layers of the model written")->check(CLI::Range(1, 8));
  app.add_option("--heads", heads, "heads per layer")->check(CLI::Range(1, 16));
  app.add_option("--ffn", ffn, "width of the token FFN between layers (0: none)")->check(CLI::Range(0, 4096));
  app.add_flag("--gelu", gelu, "GeLU units in the token FFN (ReLU without)");
  app.add_option("--threads", threads)->check(CLI::Range(1, 256));
  app.add_option("--target", target, "stop at this validation RMSE (adam)")->check(CLI::Range(0.0, 1e6));
  app.add_option("--lr", lr)->check(CLI::Range(1e-12, 10.0));
  app.add_option("--steps", steps)->check(CLI::Range(1, 100000000));
  app.add_option("--batch", batch)->check(CLI::Range(1, 1000000));
  app.add_option("--eval-every", every)->check(CLI::Range(1, 1000000));
  CLI11_PARSE(app, argc, argv);

  if (gelu && (ffn == 0 || layers < 2)) {  // else the units would name a model that has none
    std::fprintf(stderr, "bench-train: --gelu: expected a token FFN (--ffn W > 0 and --layers >= 2)\n");
    return 2;
  }
  if (mode == "write") {
    ensure_directory(dir, "dir");
    const Dataset train = min_dot_dataset(T, d, train_n, derive_seed(seed, "bench-train"));
    const Dataset valid = min_dot_dataset(T, d, valid_n, derive_seed(seed, "bench-valid"));
    write_json_file(dir + "/data.json", json{{"train", dataset_json(train)}, {"valid", dataset_json(valid)}}, "dir");
    SplitMix64 rng(derive_seed(seed, "bench-init"));
    Architecture arch = single_layer_fit_architecture(d, E, n, p);
    arch.layers.assign(static_cast<std::size_t>(layers), LayerShape{std::vector<HeadShape>(heads, HeadShape{n, n}), ffn});
    arch.layers.back().ffn_width = 0;  // the last layer has no token FFN
    if (gelu)
      for (auto& l : arch.layers)
        if (l.ffn_width > 0) l.ffn_activation = Activation::Gelu;
    const Model init = random_model(arch, rng, 0.5);
    write_json_file(dir + "/init.json", weights_to_json(init), "dir");
    std::cout << json{{"parameters", init.params.size()}}.dump() << "\n";
    return 0;
  }
  const json data = read_json_file(dir + "/data.json", "dir");
  const Dataset train = dataset_from(data.at("train")), valid = dataset_from(data.at("valid"));
  const Model init = convert_model<double>(weights_from_json(read_json_file(dir + "/init.json", "dir"), 64), Precision{53});
  const auto t0 = std::chrono::steady_clock::now();
  if (mode == "lm") {
    if (init.arch.layers.size() != 1) throw InputError("mode", "lm fits single-layer models only");
    ModelFitOptions o;  // the suites' settings (theorems/depth_separation/depth_separation_config.cpp, quick)
    o.restarts = 3;
    o.max_iterations = 150;
    o.seed = seed;
    o.threads = threads;
    const ModelFitResult r = fit_single_layer(init.arch, train, valid, o);
    std::cout << json{{"method", "lm"}, {"threads", threads}, {"seconds", seconds_since(t0)}, {"iterations", r.iterations},
                      {"valid_rmse", r.valid.rmse}, {"train_rmse", r.train.rmse}}.dump() << "\n";
    return 0;
  }
  TrainOptions o;
  o.steps = steps;
  o.batch = batch;
  o.learning_rate = lr;
  o.eval_every = every;
  o.target_valid_rmse = target;
  o.seed = seed;
  o.threads = threads;
  const TrainResult r = train_model(init, train, valid, o);
  // "seconds": the step loop with its validation evaluations, as bench/pytorch_train.py times it; "total_seconds" adds
  // the packing of the data and the final reference errors.
  std::cout << json{{"method", "adam"}, {"threads", threads}, {"seconds", r.loop_seconds},
                    {"total_seconds", seconds_since(t0)}, {"steps", r.steps_run},
                    {"reached", r.reached_target}, {"valid_rmse", r.valid.rmse}, {"train_rmse", r.train.rmse}}.dump() << "\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "bench-train: " << e.what() << "\n";
  return 2;
}
