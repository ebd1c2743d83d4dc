// numerics/train: the batched gradient against the per-sample one and against MPFR central differences; the
// trainer on a known answer, its projection, and its independence of the thread count.
#include "numerics/fit/single_layer_gradient.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/train/batched_model.hpp"
#include "numerics/train/batched_single_layer.hpp"
#include "numerics/train/small_products.hpp"
#include "numerics/train/trainer.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

using namespace infoflow;

namespace {

std::vector<Architecture> single_layer_kinds() {
  std::vector<Architecture> archs;
  archs.push_back(single_layer_fit_architecture(2, 4, 1, 5));  // FFN encoder and readout, one head
  Architecture a = single_layer_fit_architecture(3, 5, 2, 3);
  a.positions = 6;                                            // positions
  a.encoder = MapShape{MapKind::Affine, 3, 5, 0};             // affine encoder
  a.layers[0].heads.push_back(HeadShape{3, 1});               // two heads of different shapes
  archs.push_back(a);
  Architecture b = single_layer_fit_architecture(1, 3, 2, 4);
  b.readout = MapShape{MapKind::Affine, 3, 1, 0};             // affine readout
  archs.push_back(b);
  Architecture g = single_layer_fit_architecture(2, 4, 1, 5);  // GeLU units in the encoder and the readout
  g.encoder.activation = g.readout.activation = Activation::Gelu;
  archs.push_back(g);
  return archs;
}

// Samples and their batched SSE and its gradient at a model.
struct BatchedCase {
  Dataset data;
  std::vector<double> grad, tgrad;
  double sse = 0;
};
// The batched SSE and its gradient at m over all of `data`.
BatchedCase batched_gradient(const Model& m, const ParamLayout& L, Dataset data) {
  BatchedCase c;
  c.data = std::move(data);
  SampleBlock block;
  pack_samples(c.data.X, c.data.y, block);
  BatchedSingleLayer::Workspace w;
  c.grad.assign(L.size(), 0.0);
  c.tgrad.assign(L.temperature_count(), 0.0);
  c.sse = BatchedSingleLayer(L).sse(m.params.data(), m.temperatures.data(), block, w, c.grad.data(), c.tgrad.data());
  return c;
}

// `count` random samples of length T with random targets, and their batched SSE gradient at m.
BatchedCase batched_case(const Model& m, const ParamLayout& L, int T, int count, SplitMix64& rng) {
  Dataset data;
  for (int n = 0; n < count; ++n) data.add(random_cube_sequence(T, m.arch.d, rng), rng.uniform(-1, 1));
  return batched_gradient(m, L, std::move(data));
}

// Requires the analytic gradient of Σ r² to match 256-bit MPFR central differences (step 1e-30) at the given indices
// of [weights..., temperatures...].
void require_matches_mpfr(const Model& m, const ParamLayout& L, const Dataset& data, const std::vector<double>& grad,
                          const std::vector<double>& tgrad, const std::vector<std::size_t>& which) {
  const Precision prec{256};
  auto loss = [&](const ModelT<mpfr::mpreal>& mm) {
    mpfr::mpreal s(0, 256);
    for (std::size_t n = 0; n < data.y.size(); ++n) {
      const mpfr::mpreal r = forward(mm, L, convert_sequence<mpfr::mpreal>(data.X[n], prec)).y - data.y[n];
      s += r * r;
    }
    return s;
  };
  const ModelT<mpfr::mpreal> base = convert_model<mpfr::mpreal>(m, prec);
  const mpfr::mpreal h("1e-30", 256);
  for (std::size_t i : which) {
    const bool temperature = i >= L.size();
    const std::size_t k = temperature ? i - L.size() : i;
    ModelT<mpfr::mpreal> up = base, down = base;
    (temperature ? up.temperatures[k] : up.params[k]) += h;
    (temperature ? down.temperatures[k] : down.params[k]) -= h;
    const double fd = ((loss(up) - loss(down)) / (2 * h)).toDouble();
    const double an = temperature ? tgrad[k] : grad[k];
    INFO((temperature ? "temperature " : "parameter ") << k << ": analytic " << an << ", MPFR central difference " << fd);
    REQUIRE(an == Approx(fd).epsilon(1e-9).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("batched gradient: equals the per-sample analytic gradient for every single-layer kind", "[train]") {
  auto rng = test::rng_for("batched-gradient");
  for (const auto& arch : single_layer_kinds()) {
    const Model m = random_model(arch, rng, 0.8);
    const ParamLayout L(arch);
    const SingleLayerGradient single(L);
    const int T = 1 + static_cast<int>(rng.uniform_index(5));
    const BatchedCase c = batched_case(m, L, T, 37, rng);
    const Dataset& data = c.data;
    const std::vector<double>&grad = c.grad, &tgrad = c.tgrad;
    const double sse = c.sse;
    // The same sum, sample by sample.
    std::vector<double> expect(L.size(), 0.0), texpect(L.temperature_count(), 0.0), g(L.size()), tg(L.temperature_count());
    double expect_sse = 0;
    for (std::size_t n = 0; n < data.y.size(); ++n) {
      const double r = single.evaluate(m.params.data(), m.temperatures.data(), data.X[n], g.data(), tg.data()) - data.y[n];
      expect_sse += r * r;
      for (std::size_t i = 0; i < g.size(); ++i) expect[i] += 2 * r * g[i];
      for (std::size_t i = 0; i < tg.size(); ++i) texpect[i] += 2 * r * tg[i];
    }
    INFO("architecture with " << L.size() << " parameters, T = " << T);
    REQUIRE(sse == Approx(expect_sse).epsilon(1e-12));
    for (std::size_t i = 0; i < grad.size(); ++i) {
      INFO("parameter " << i);
      REQUIRE(grad[i] == Approx(expect[i]).epsilon(1e-10).margin(1e-12));
    }
    for (std::size_t i = 0; i < tgrad.size(); ++i) REQUIRE(tgrad[i] == Approx(texpect[i]).epsilon(1e-10).margin(1e-12));
  }
}

TEST_CASE("batched gradient: agrees with MPFR central differences of the loss", "[train]") {
  auto rng = test::rng_for("batched-mpfr");
  for (const auto& arch : single_layer_kinds()) {
    const Model m = random_model(arch, rng, 0.8);
    const ParamLayout L(arch);
    const int T = 2 + static_cast<int>(rng.uniform_index(3));
    const BatchedCase c = batched_case(m, L, T, 5, rng);
    const Dataset& data = c.data;
    const std::vector<double>&grad = c.grad, &tgrad = c.tgrad;
    std::vector<std::size_t> which;
    for (int k = 0; k < 12; ++k)
      which.push_back(k % 4 == 3 ? L.size() + rng.uniform_index(L.temperature_count()) : rng.uniform_index(L.size()));
    require_matches_mpfr(m, L, data, grad, tgrad, which);
  }
}

TEST_CASE("trainer: learns a target a single layer represents, stays in its box, and ignores the thread count", "[train]") {
  auto rng = test::rng_for("trainer-known");
  Dataset train, valid;
  for (int i = 0; i < 256; ++i)
    for (Dataset* ds : {&train, &valid}) {
      const auto X = random_cube_sequence(4, 1, rng);
      ds->add(X, (X[0][0] + X[1][0] + X[2][0] + X[3][0]) / 4.0);
    }
  const Architecture a = single_layer_fit_architecture(1, 2, 1, 6);
  Model start = random_model(a, rng, 0.5);
  TrainOptions o;
  o.steps = 1500;
  o.batch = 64;
  o.learning_rate = 1e-2;
  o.seed = test::seed();
  o.eval_every = 100;
  const TrainResult r1 = train_model(start, train, valid, o);
  INFO("valid rmse " << r1.valid.rmse);
  CHECK(r1.valid.rmse < 0.03);
  CHECK(r1.curve.back().second < r1.curve.front().second);
  o.threads = 2;
  const TrainResult r2 = train_model(start, train, valid, o);
  CHECK(r2.model.params == r1.model.params);  // same seed, another thread count: the same model
  // Projection and free temperatures.
  o.weight_bound = 0.25;
  o.free_temperatures = true;
  const TrainResult r3 = train_model(start, train, valid, o);
  double largest = 0;
  for (double v : r3.model.params) largest = std::max(largest, std::fabs(v));
  CHECK(largest <= 0.25);
  CHECK(r3.model.temperatures[0] != start.temperatures[0]);
  // Bad options are contract errors.
  o.learning_rate = 0;
  REQUIRE_THROWS_AS(train_model(start, train, valid, o), ContractError);
}

TEST_CASE("trainer: a non-finite loss throws, or returns the model that produced it when asked", "[train]") {
  auto rng = test::rng_for("trainer-diverges");
  Dataset train;
  for (int i = 0; i < 64; ++i) {
    const auto X = random_cube_sequence(3, 2, rng);
    train.add(X, 1e200);  // its square overflows: the loss is +inf from the first step
  }
  const Model start = random_model(single_layer_fit_architecture(2, 4, 1, 4), rng, 0.5);
  TrainOptions o;
  o.steps = 10;
  o.batch = 64;
  REQUIRE_THROWS_AS(train_model(start, train, Dataset{}, o), NumericError);
  o.return_on_divergence = true;
  const TrainResult r = train_model(start, train, Dataset{}, o);
  CHECK(r.diverged_at_step == 1);
  CHECK(r.model.params == start.params);  // no step was taken
  CHECK(!std::isfinite(r.train.rmse));    // the reference forward pass agrees that the loss is not finite
}

namespace {

std::vector<Architecture> multi_layer_kinds() {
  std::vector<Architecture> archs;
  Architecture a = single_layer_fit_architecture(2, 4, 2, 3);  // two layers, one head each, token FFN in between
  a.layers = {LayerShape{{HeadShape{2, 2}}, 5}, LayerShape{{HeadShape{2, 2}}, 0}};
  archs.push_back(a);
  Architecture b = single_layer_fit_architecture(3, 5, 1, 4);  // three layers, several heads, positions, no FFN
  b.positions = 6;
  b.encoder = MapShape{MapKind::Affine, 3, 5, 0};
  b.layers = {LayerShape{{HeadShape{2, 1}, HeadShape{3, 2}}, 0}, LayerShape{{HeadShape{1, 3}}, 4},
              LayerShape{{HeadShape{2, 2}, HeadShape{1, 1}}, 0}};
  archs.push_back(b);
  Architecture g = a;  // the first with a GeLU token FFN (the experiments' --gelu)
  g.layers[0].ffn_activation = Activation::Gelu;
  archs.push_back(g);
  return archs;
}

}  // namespace

TEST_CASE("batched multi-layer model: values equal the forward pass, single layers equal BatchedSingleLayer", "[train]") {
  auto rng = test::rng_for("batched-model-values");
  for (const auto& arch : multi_layer_kinds()) {
    const Model m = random_model(arch, rng, 0.8);
    const ParamLayout L(arch);
    const int T = 2 + static_cast<int>(rng.uniform_index(4));
    Dataset data;
    for (int n = 0; n < 9; ++n) data.add(random_cube_sequence(T, arch.d, rng), 0.0);
    SampleBlock block;
    pack_samples(data.X, data.y, block);
    BatchedModel::Workspace w;
    double direct = 0;
    for (const auto& X : data.X) direct += std::pow(forward(m, L, X).y, 2);
    REQUIRE(BatchedModel(L).sse(m.params.data(), m.temperatures.data(), block, w, nullptr, nullptr) ==
            Approx(direct).epsilon(1e-12));
  }
  for (const auto& arch : single_layer_kinds()) {
    const Model m = random_model(arch, rng, 0.8);
    const ParamLayout L(arch);
    const BatchedCase c = batched_case(m, L, 3, 11, rng);
    SampleBlock block;
    pack_samples(c.data.X, c.data.y, block);
    BatchedModel::Workspace w;
    std::vector<double> grad(L.size(), 0.0), tgrad(L.temperature_count(), 0.0);
    REQUIRE(BatchedModel(L).sse(m.params.data(), m.temperatures.data(), block, w, grad.data(), tgrad.data()) ==
            Approx(c.sse).epsilon(1e-12));
    for (std::size_t i = 0; i < grad.size(); ++i) REQUIRE(grad[i] == Approx(c.grad[i]).epsilon(1e-10).margin(1e-12));
    for (std::size_t i = 0; i < tgrad.size(); ++i) REQUIRE(tgrad[i] == Approx(c.tgrad[i]).epsilon(1e-10).margin(1e-12));
  }
}

TEST_CASE("batched multi-layer gradient: agrees with MPFR central differences for every parameter", "[train]") {
  auto rng = test::rng_for("batched-model-mpfr");
  for (const auto& arch : multi_layer_kinds()) {
    const Model m = random_model(arch, rng, 0.8);
    const ParamLayout L(arch);
    const int T = 2 + static_cast<int>(rng.uniform_index(3));
    Dataset data;
    for (int n = 0; n < 3; ++n) data.add(random_cube_sequence(T, arch.d, rng), rng.uniform(-1, 1));
    SampleBlock block;
    pack_samples(data.X, data.y, block);
    BatchedModel::Workspace w;
    std::vector<double> grad(L.size(), 0.0), tgrad(L.temperature_count(), 0.0);
    BatchedModel(L).sse(m.params.data(), m.temperatures.data(), block, w, grad.data(), tgrad.data());
    // Every parameter of every tensor (the models are small), and every temperature.
    std::vector<std::size_t> every(L.size() + L.temperature_count());
    std::iota(every.begin(), every.end(), 0);
    require_matches_mpfr(m, L, data, grad, tgrad, every);
  }
}

TEST_CASE("trainer: a two-layer model trains, deterministically for any thread count", "[train]") {
  auto rng = test::rng_for("trainer-two-layer");
  Dataset train, valid;
  for (int i = 0; i < 160; ++i)
    for (Dataset* ds : {&train, &valid}) {
      const auto X = random_cube_sequence(3, 2, rng);
      ds->add(X, MinPairwiseDot{}(X));
    }
  Architecture a = single_layer_fit_architecture(2, 4, 2, 4);
  a.layers = {LayerShape{{HeadShape{2, 2}}, 4}, LayerShape{{HeadShape{2, 2}}, 0}};
  const Model start = random_model(a, rng, 0.5);
  TrainOptions o;
  o.steps = 300;
  o.batch = 40;
  o.seed = test::seed();
  o.eval_every = 50;
  const TrainResult r1 = train_model(start, train, valid, o);
  INFO("validation RMSE from " << r1.curve.front().second << " to " << r1.curve.back().second);
  CHECK(r1.curve.back().second < r1.curve.front().second);
  CHECK(std::isfinite(r1.valid.rmse));
  o.threads = 2;
  CHECK(train_model(start, train, valid, o).model.params == r1.model.params);
}

TEST_CASE("batched multi-layer model: the temperature's sum over a query-by-row block keeps small_products::dot's "
          "order, bit for bit", "[train]") {
  auto rng = test::rng_for("dot-in-key-major-order");
  std::vector<int> lengths;
  for (int T = 1; T <= 17; ++T) lengths.push_back(T);
  lengths.push_back(24);
  lengths.push_back(64);
  for (int T : lengths)
    for (int rep = 0; rep < 5 * test::multiplier(); ++rep) {
      const std::size_t n = static_cast<std::size_t>(T) * T;
      // key by row (the layout dot saw): entry (τ, t) at t + τ·T; values of mixed magnitudes, so that the order shows
      std::vector<double> a(n), b(n), a_by_query(n), b_by_query(n);
      for (std::size_t i = 0; i < n; ++i) {
        a[i] = rng.uniform(-1, 1) * std::pow(10.0, rng.uniform(-8, 8));
        b[i] = rng.uniform(-1, 1);
      }
      for (int tau = 0; tau < T; ++tau)
        for (int t = 0; t < T; ++t) {
          a_by_query[tau + static_cast<std::size_t>(t) * T] = a[t + static_cast<std::size_t>(tau) * T];
          b_by_query[tau + static_cast<std::size_t>(t) * T] = b[t + static_cast<std::size_t>(tau) * T];
        }
      const double want = small_products::dot(static_cast<std::int64_t>(n), a.data(), b.data());
      const double got = dot_in_key_major_order(T, a_by_query.data(), b_by_query.data());
      INFO("T " << T << ": " << got << " against " << want);
      REQUIRE(std::memcmp(&got, &want, sizeof got) == 0);
    }
}

namespace {

// The mean of a sequence's first coordinates over T = 4 tokens: a target the single-layer model below represents.
void draw_mean_samples(SplitMix64& rng, int count, Dataset& out) {
  for (int i = 0; i < count; ++i) {
    const auto X = random_cube_sequence(4, 1, rng);
    out.add(X, (X[0][0] + X[1][0] + X[2][0] + X[3][0]) / 4.0);
  }
}

}  // namespace

TEST_CASE("trainer: fresh samples learn, never repeat, ignore the thread count, and equal the fixed set's full batch", "[train]") {
  auto rng = test::rng_for("trainer-fresh");
  Dataset valid;
  draw_mean_samples(rng, 256, valid);
  const Model start = random_model(single_layer_fit_architecture(1, 2, 1, 6), rng, 0.5);
  TrainOptions o;
  o.steps = 1500;
  o.batch = 64;
  o.seed = test::seed();
  const SampleDrawer draw = [](int, SplitMix64& r, int count, Dataset& out) { draw_mean_samples(r, count, out); };
  const TrainResult r1 = train_model(start, draw, valid, o);
  INFO("valid rmse " << r1.valid.rmse << ", on fresh samples " << r1.train.rmse);
  CHECK(r1.valid.rmse < 0.03);
  CHECK(r1.train.rmse < 0.03);  // measured on samples drawn after the training, not on a fixed set
  // Three chunks per step (batch 300 = 128 + 128 + 44): the same model with two threads.
  o.steps = 40;
  o.batch = 300;
  const TrainResult one = train_model(start, draw, valid, o);
  o.threads = 2;
  CHECK(train_model(start, draw, valid, o).model.params == one.model.params);
  // No sample twice: every drawn sequence (steps x batch, and the final measurement's) is distinct.
  std::vector<double> seen;
  const SampleDrawer recording = [&seen](int, SplitMix64& r, int count, Dataset& out) {
    draw_mean_samples(r, count, out);
    for (int i = 0; i < count; ++i) seen.push_back(out.X[static_cast<std::size_t>(i)][0][0]);
  };
  o.threads = 1;
  train_model(start, recording, valid, o);
  CHECK(seen.size() == static_cast<std::size_t>(o.steps * o.batch) + valid.y.size());
  std::sort(seen.begin(), seen.end());
  CHECK(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  // A second route: a drawer that returns the whole fixed set at every step is the fixed set's full batch.
  Dataset fixed;
  draw_mean_samples(rng, 100, fixed);
  o.batch = 100;
  o.steps = 30;
  const SampleDrawer whole_set = [&fixed](int, SplitMix64&, int count, Dataset& out) {
    for (int i = 0; i < count; ++i) {  // count is 100 at every step; the final measurement asks for 256
      const std::size_t k = static_cast<std::size_t>(i) % fixed.y.size();
      out.add(fixed.X[k], fixed.y[k]);
    }
  };
  CHECK(train_model(start, whole_set, valid, o).model.params == train_model(start, fixed, valid, o).model.params);
  // A drawer that returns another count, from a parallel chunk, and an empty validation set are contract errors.
  o.batch = 300;
  o.threads = 2;
  const SampleDrawer short_by_one = [](int, SplitMix64& r, int count, Dataset& out) { draw_mean_samples(r, count - 1, out); };
  REQUIRE_THROWS_AS(train_model(start, short_by_one, valid, o), ContractError);
  REQUIRE_THROWS_AS(train_model(start, draw, Dataset{}, o), ContractError);
}

namespace {

// One full-batch step (64 samples of a known mean, lr 0.1, free temperatures) from a random single-layer start whose
// temperatures are all 5: the case the two first-step tests below take.
struct OneStepCase {
  Dataset train;
  Model start;
  TrainOptions options;
};
OneStepCase one_step_case(const std::string& seed_name) {
  auto rng = test::rng_for(seed_name);
  OneStepCase c;
  draw_mean_samples(rng, 64, c.train);
  c.start = random_model(single_layer_fit_architecture(1, 2, 1, 6), rng, 0.5);
  for (double& beta : c.start.temperatures) beta = 5.0;
  c.options.steps = 1;
  c.options.batch = 64;
  c.options.learning_rate = 0.1;
  c.options.free_temperatures = true;
  return c;
}

}  // namespace

TEST_CASE("trainer: log temperatures move by a factor per step, linear ones by an amount, and clipping scales the step", "[train]") {
  OneStepCase c = one_step_case("trainer-log-temperatures");
  const Dataset& train = c.train;
  const Model& start = c.start;
  TrainOptions& o = c.options;
  // Adam's first step is lr·g/(|g| + eps) = ±lr in the stepped coordinate (beta or log beta) once eps is far below
  // |g| (the temperature's gradient is ~1e-9 here).
  o.adam_eps = 1e-30;
  const TrainResult linear = train_model(start, train, train, o);
  o.log_temperatures = true;
  const TrainResult logarithmic = train_model(start, train, train, o);
  for (std::size_t i = 0; i < start.temperatures.size(); ++i) {
    INFO("temperature " << i << ": " << linear.model.temperatures[i] << " (linear), " << logarithmic.model.temperatures[i]
                        << " (log)");
    CHECK(std::fabs(linear.model.temperatures[i] - 5.0) == Approx(0.1).epsilon(1e-4));
    CHECK(std::fabs(std::log(logarithmic.model.temperatures[i] / 5.0)) == Approx(0.1).epsilon(1e-4));
    // Both descend: the same direction.
    CHECK((linear.model.temperatures[i] > 5.0) == (logarithmic.model.temperatures[i] > 5.0));
  }
  // The weights' step does not depend on how the temperatures are stepped.
  CHECK(linear.model.params == logarithmic.model.params);
  // log_temperatures without free temperatures is a contract error.
  o.free_temperatures = false;
  REQUIRE_THROWS_AS(train_model(start, train, train, o), ContractError);
  // Clipping: a bound the gradient never reaches changes nothing; a tiny one shrinks the gradient below Adam's eps,
  // so the first step is far shorter than lr.
  o.log_temperatures = false;
  o.adam_eps = 1e-8;
  const TrainResult free_step = train_model(start, train, train, o);
  o.gradient_clip = 1e5;
  CHECK(train_model(start, train, train, o).model.params == free_step.model.params);
  o.gradient_clip = 1e-12;
  const TrainResult clipped = train_model(start, train, train, o);
  double largest = 0;
  for (std::size_t i = 0; i < start.params.size(); ++i)
    largest = std::max(largest, std::fabs(clipped.model.params[i] - start.params[i]));
  INFO("largest step with the gradient clipped to norm 1e-12: " << largest);
  CHECK(largest < 1e-3 * o.learning_rate);
  CHECK(largest > 0);
}

TEST_CASE("trainer: the first step equals Adam's formula on the gradient, log-space and clipped gradients included", "[train]") {
  // With eps comparable to the gradient, Adam's first step -lr·g/(|g| + eps) is not a sign: it sees the gradient's
  // size, so a wrong chain-rule factor for log β or a wrong clipping norm moves it. The gradient comes from the engine
  // (checked against MPFR above); the full batch makes the minibatch the whole set.
  OneStepCase c = one_step_case("trainer-first-step");
  const Dataset& train = c.train;
  const Model& start = c.start;
  TrainOptions& o = c.options;
  BatchedCase at_start = batched_gradient(start, ParamLayout(start.arch), train);
  std::vector<double>&g = at_start.grad, &gt = at_start.tgrad;
  for (double& v : g) v /= 64.0;  // the mean squared error's gradient
  for (double& v : gt) v /= 64.0;
  const auto adam_step = [&](double gi) { return -o.learning_rate * gi / (std::fabs(gi) + o.adam_eps); };
  for (const bool log_space : {false, true}) {
    for (const double clip : {0.0, 0.5}) {
      o.log_temperatures = log_space;
      o.gradient_clip = clip;
      // The gradient Adam sees: temperatures' in the stepped coordinate, then the whole vector scaled to the clip.
      std::vector<double> tg = gt;
      if (log_space)
        for (std::size_t i = 0; i < tg.size(); ++i) tg[i] *= start.temperatures[i];
      double norm2 = 0;
      for (double v : g) norm2 += v * v;
      for (double v : tg) norm2 += v * v;
      const double shrink = clip > 0 && std::sqrt(norm2) > clip ? clip / std::sqrt(norm2) : 1.0;
      o.adam_eps = 1e-3 * std::sqrt(norm2) * shrink;  // of the order of the clipped gradient's entries
      const TrainResult r = train_model(start, train, train, o);
      INFO("log space " << log_space << ", clip " << clip << ", gradient norm " << std::sqrt(norm2));
      if (clip > 0) REQUIRE(shrink < 1.0);  // the case clips
      for (std::size_t i = 0; i < g.size(); ++i)
        CHECK(r.model.params[i] - start.params[i] == Approx(adam_step(g[i] * shrink)).epsilon(1e-9).margin(1e-15));
      for (std::size_t i = 0; i < tg.size(); ++i) {
        const double step = adam_step(tg[i] * shrink);
        const double expect = log_space ? start.temperatures[i] * std::exp(step) : start.temperatures[i] + step;
        CHECK(r.model.temperatures[i] == Approx(expect).epsilon(1e-12));
      }
    }
  }
}
