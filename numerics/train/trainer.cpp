#include "numerics/train/trainer.hpp"

#include "numerics/train/batched_model.hpp"
#include "numerics/train/batched_single_layer.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/rng.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <numeric>

namespace infoflow {

namespace {

// Samples per chunk: the unit of parallel work and of the fixed summation order.
constexpr int kChunk = 128;

template <class Engine>
double rmse_of(const Engine& g, const Model& m, const SampleBlock& block, typename Engine::Workspace& w) {
  if (block.count() == 0) return 0.0;
  return std::sqrt(g.sse(m.params.data(), m.temperatures.data(), block, w, nullptr, nullptr) / block.count());
}

// Where a training run's minibatches come from: a fixed set (sampled in shuffled epochs) or, with `fresh`, new
// samples at every step.
struct TrainingData {
  const Dataset* fixed = nullptr;
  const SampleDrawer* fresh = nullptr;
};

template <class Engine>
TrainResult train_with(const Engine& g, const Model& start, TrainingData data, const Dataset& valid, const TrainOptions& o);

// The engine for `start`'s layout: one layer has the same query for every sample, which the single-layer engine exploits.
template <class Run>
TrainResult with_engine(const Model& start, Run&& run) {
  const ParamLayout layout(start.arch);
  if (layout.layers().size() == 1) return run(BatchedSingleLayer(layout));
  return run(BatchedModel(layout));
}

void check_options(const TrainOptions& o) {
  if (std::string why; !o.is_valid(&why)) throw ContractError("train_model", "TrainOptions::" + why);
}

}  // namespace

bool TrainOptions::is_valid(std::string* why) const {
  const auto bad = [why](const std::string& field, double value, const char* expected) {
    *why = field + " = " + std::to_string(value) + ", expected " + expected;
    return false;
  };
  if (steps < 1) return bad("steps", steps, ">= 1");
  // The cap keeps the chunk arithmetic in range and a minibatch (fresh samples are drawn per step) of a sane size.
  if (batch < 1 || batch > (1 << 24)) return bad("batch", batch, "in 1..2^24");
  if (warmup_steps < 0 || warmup_steps >= steps) return bad("warmup_steps", warmup_steps, "in [0, steps)");
  if (!(learning_rate > 0 && std::isfinite(learning_rate))) return bad("learning_rate", learning_rate, "finite and > 0");
  if (!(weight_decay >= 0 && std::isfinite(weight_decay))) return bad("weight_decay", weight_decay, "finite and >= 0");
  if (!(beta1 >= 0 && beta1 < 1)) return bad("beta1", beta1, "in [0, 1)");
  if (!(beta2 >= 0 && beta2 < 1)) return bad("beta2", beta2, "in [0, 1)");
  if (!(adam_eps > 0 && std::isfinite(adam_eps))) return bad("adam_eps", adam_eps, "finite and > 0");
  if (!(weight_bound >= 0 && std::isfinite(weight_bound))) return bad("weight_bound", weight_bound, "finite and >= 0");
  if (log_temperatures && !free_temperatures) return bad("log_temperatures", 1, "only with free_temperatures");
  if (!(gradient_clip >= 0 && std::isfinite(gradient_clip))) return bad("gradient_clip", gradient_clip, "finite and >= 0");
  if (eval_every < 0) return bad("eval_every", eval_every, ">= 0");
  if (!(target_valid_rmse >= 0 && std::isfinite(target_valid_rmse))) return bad("target_valid_rmse", target_valid_rmse, ">= 0");
  if (threads < 1 || threads > 256) return bad("threads", threads, "in 1..256");
  return true;
}

TrainResult train_model(const Model& start, const Dataset& train, const Dataset& valid, const TrainOptions& o) {
  check_options(o);
  if (train.y.empty()) throw ContractError("train_model", "training set: expected at least one sample");
  return with_engine(start, [&](const auto& g) { return train_with(g, start, TrainingData{&train, nullptr}, valid, o); });
}

TrainResult train_model(const Model& start, const SampleDrawer& draw, const Dataset& valid, const TrainOptions& o) {
  check_options(o);
  if (!draw) throw ContractError("train_model", "a sample drawer");
  if (valid.y.empty()) throw ContractError("train_model", "fresh samples: expected a non-empty validation set");
  return with_engine(start, [&](const auto& g) { return train_with(g, start, TrainingData{nullptr, &draw}, valid, o); });
}

namespace {

// Draws `count` samples for a chunk of `step`'s minibatch, from a generator of its own: the same samples whichever
// thread draws them.
Dataset draw_chunk(const SampleDrawer& draw, std::uint64_t seed, int step, int chunk, int count) {
  SplitMix64 rng(derive_seed(seed, "fresh-step" + std::to_string(step) + "-chunk" + std::to_string(chunk)));
  Dataset out;
  draw(step, rng, count, out);
  if (out.y.size() != static_cast<std::size_t>(count) || out.X.size() != out.y.size())
    throw ContractError("train_model", "the sample drawer returned " + std::to_string(out.y.size()) + " samples for " +
                                           std::to_string(count));
  return out;
}

template <class Engine>
TrainResult train_with(const Engine& g, const Model& start, TrainingData data, const Dataset& valid, const TrainOptions& o) {
  const ParamLayout& layout = g.layout();
  const std::size_t P = layout.size(), B = layout.temperature_count();
  const Dataset empty;
  const Dataset& train = data.fixed ? *data.fixed : empty;
  const int N = static_cast<int>(train.y.size());
  const int batch = data.fresh ? o.batch : std::min(o.batch, N);
  const int chunks = (batch + kChunk - 1) / kChunk;

  Model m = start;
  if (o.weight_bound > 0)
    for (auto& v : m.params) v = std::clamp(v, -o.weight_bound, o.weight_bound);
  // Adam moments.
  std::vector<double> m1(P, 0.0), m2(P, 0.0), t1(B, 0.0), t2(B, 0.0);
  // Per-chunk gradients and blocks; per-thread workspaces.
  std::vector<std::vector<double>> chunk_grad(chunks, std::vector<double>(P)), chunk_tgrad(chunks, std::vector<double>(B));
  std::vector<SampleBlock> chunk_block(chunks);
  std::vector<typename Engine::Workspace> work(o.threads);
  std::vector<double> grad(P), tgrad(B);
  // With log temperatures Adam steps tau = log β, from the floored start; β = exp(tau) is what the model uses.
  std::vector<double> log_beta;
  if (o.log_temperatures)
    for (double& beta : m.temperatures) {
      beta = std::max(beta, kMinTemperature);
      log_beta.push_back(std::log(beta));
    }

  SampleBlock valid_block;
  const Dataset& scored = valid.y.empty() ? train : valid;
  pack_samples(scored.X, scored.y, valid_block);
  typename Engine::Workspace eval_work;

  SplitMix64 rng(derive_seed(o.seed, "train-order"));
  std::vector<std::size_t> order(static_cast<std::size_t>(N));
  std::iota(order.begin(), order.end(), 0);
  std::size_t cursor = order.size();  // reshuffle on the first step
  TrainResult out;
  // Full batch: every step sees the whole set in the same order, so the chunks are packed once.
  const bool full_batch = !data.fresh && batch == N;
  std::vector<std::size_t> picked;
  picked.reserve(static_cast<std::size_t>(batch));
  const auto loop_start = std::chrono::steady_clock::now();
  for (int step = 1; step <= o.steps; ++step) {
    const bool repack = !full_batch || step == 1;
    if (repack && !data.fresh) {
      // The next minibatch of a shuffled epoch (a fresh permutation whenever one runs out).
      picked.clear();
      if (full_batch) picked = order;
      while (static_cast<int>(picked.size()) < batch) {
        if (cursor == order.size()) {
          for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.uniform_index(i)]);
          cursor = 0;
        }
        picked.push_back(order[cursor++]);
      }
    }
    bool finite = true;
    // An exception may not leave an OpenMP region: each chunk keeps its own, and the first chunk's is rethrown after.
    std::vector<std::exception_ptr> chunk_error(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) num_threads(o.threads) reduction(&& : finite)
    for (int c = 0; c < chunks; ++c) try {
      const std::size_t lo = static_cast<std::size_t>(c) * kChunk,
                        hi = std::min(static_cast<std::size_t>(batch), lo + kChunk);
      if (data.fresh) {
        const Dataset drawn = draw_chunk(*data.fresh, o.seed, step, c, static_cast<int>(hi - lo));
        pack_samples(drawn.X, drawn.y, chunk_block[c]);
      } else if (repack)
        pack_samples(train.X, train.y, std::vector<std::size_t>(picked.begin() + static_cast<std::ptrdiff_t>(lo),
                                                                picked.begin() + static_cast<std::ptrdiff_t>(hi)),
                     chunk_block[c]);
      std::fill(chunk_grad[c].begin(), chunk_grad[c].end(), 0.0);
      std::fill(chunk_tgrad[c].begin(), chunk_tgrad[c].end(), 0.0);
      const double sse = g.sse(m.params.data(), m.temperatures.data(), chunk_block[c], work[omp_get_thread_num()],
                               chunk_grad[c].data(), o.free_temperatures ? chunk_tgrad[c].data() : nullptr);
      finite = finite && std::isfinite(sse);
    } catch (...) {
      chunk_error[static_cast<std::size_t>(c)] = std::current_exception();
    }
    for (const auto& e : chunk_error)
      if (e) std::rethrow_exception(e);
    if (!finite) {
      if (!o.return_on_divergence)
        throw NumericError("training diverged: a non-finite loss at step " + std::to_string(step));
      out.diverged_at_step = step;
      break;  // m is the model whose loss was not finite
    }
    // Mean-squared-error gradient, summed in chunk order (deterministic for any thread count).
    std::fill(grad.begin(), grad.end(), 0.0);
    std::fill(tgrad.begin(), tgrad.end(), 0.0);
    for (int c = 0; c < chunks; ++c) {
      for (std::size_t i = 0; i < P; ++i) grad[i] += chunk_grad[c][i];
      for (std::size_t i = 0; i < B; ++i) tgrad[i] += chunk_tgrad[c][i];
    }
    double scale = 1.0 / static_cast<double>(batch);
    // The temperatures' gradient in the coordinates Adam steps.
    if (o.log_temperatures)
      for (std::size_t i = 0; i < B; ++i) tgrad[i] *= m.temperatures[i];
    if (o.gradient_clip > 0) {
      double norm2 = 0;
      for (double v : grad) norm2 += v * v;
      if (o.free_temperatures)
        for (double v : tgrad) norm2 += v * v;
      const double norm = scale * std::sqrt(norm2);
      if (norm > o.gradient_clip) scale *= o.gradient_clip / norm;
    }
    // Linear warm-up to the peak, then a cosine over the remaining steps (without warm-up: the cosine alone).
    const int w = o.warmup_steps;
    const double lr = step <= w ? o.learning_rate * step / w
                                : o.learning_rate * 0.5 * (1.0 + std::cos(M_PI * (step - 1 - w) / (o.steps - w)));
    const double c1 = 1.0 - std::pow(o.beta1, step), c2 = 1.0 - std::pow(o.beta2, step);
    auto adam = [&](double& theta, double gi, double& a, double& b, bool decay) {
      gi *= scale;
      a = o.beta1 * a + (1 - o.beta1) * gi;
      b = o.beta2 * b + (1 - o.beta2) * gi * gi;
      theta -= lr * ((a / c1) / (std::sqrt(b / c2) + o.adam_eps) + (decay ? o.weight_decay * theta : 0.0));
    };
    for (std::size_t i = 0; i < P; ++i) {
      adam(m.params[i], grad[i], m1[i], m2[i], true);
      if (o.weight_bound > 0) m.params[i] = std::clamp(m.params[i], -o.weight_bound, o.weight_bound);
    }
    if (o.free_temperatures)
      for (std::size_t i = 0; i < B; ++i) {
        if (o.log_temperatures) {
          adam(log_beta[i], tgrad[i], t1[i], t2[i], false);
          log_beta[i] = std::max(log_beta[i], std::log(kMinTemperature));
          m.temperatures[i] = std::exp(log_beta[i]);
        } else {
          adam(m.temperatures[i], tgrad[i], t1[i], t2[i], false);
          m.temperatures[i] = std::max(m.temperatures[i], kMinTemperature);
        }
      }
    out.steps_run = step;
    const bool evaluate = step == o.steps || (o.eval_every > 0 && step % o.eval_every == 0);
    if (evaluate) {
      const double v = rmse_of(g, m, valid_block, eval_work);
      out.curve.emplace_back(step, v);
      if (o.target_valid_rmse > 0 && v <= o.target_valid_rmse) {
        out.reached_target = true;
        break;
      }
    }
  }
  out.loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  out.model = m;
  if (data.fresh) {
    // Chunk -1: samples no step trained on, from the last step's distribution.
    const Dataset last = draw_chunk(*data.fresh, o.seed, std::max(1, out.steps_run), -1, static_cast<int>(valid.y.size()));
    out.train = model_errors(m, last);
  } else {
    out.train = model_errors(m, train);
  }
  out.valid = model_errors(m, scored);
  return out;
}

}  // namespace

}  // namespace infoflow
