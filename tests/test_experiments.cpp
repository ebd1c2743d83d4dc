// The paper's experiments (theorems/infoflow/paper_experiments.*): both targets against brute force, the checks on
// records with a known answer (and the defects they guard against), and a cell's determinism and shared data.
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "numerics/model/forward.hpp"
#include "theorems/infoflow/intrinsic_construction.hpp"
#include "theorems/infoflow/paper_experiments.hpp"
#include "theorems/suite.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace infoflow;

namespace {

// A cell result whose per-sample squared errors are `level` · (1 + small deterministic ripple), variance 1.
CellResult synthetic(double level, int n = 400, double ripple = 0.1) {
  CellResult r;
  r.valid_variance = 1.0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    r.sq_err.push_back(level * (1.0 + ripple * std::sin(1.7 * i)));
    sum += r.sq_err.back();
  }
  r.nmse = sum / n;
  const double half = 1.96 * level * ripple * 0.7 / std::sqrt(static_cast<double>(n));
  r.nmse_lo = r.nmse - half;
  r.nmse_hi = r.nmse + half;
  return r;
}

std::vector<IdReplicate> replicates(int seeds, double dd, double lo1, double lo2) {
  std::vector<IdReplicate> reps;
  for (int r = 0; r < seeds; ++r) reps.push_back({r, {synthetic(dd), synthetic(lo1), synthetic(lo2)}});
  return reps;
}

// A training budget small enough for a test: 20 steps on 64 sequences, 32 for validation.
ExperimentTraining tiny_training() {
  ExperimentTraining tr;
  tr.train_samples = 64;
  tr.valid_samples = 32;
  tr.steps = 20;
  tr.batch = 16;
  tr.curve_points = 4;
  return tr;
}

}  // namespace

TEST_CASE("experiments: the intrinsic-dimension target equals the sum of the brute-force maxima", "[experiments]") {
  auto rng = test::rng_for("experiments-id-target");
  for (int D : {1, 3}) {
    const auto target = IntrinsicDimensionTarget::draw(D, test::seed());
    REQUIRE(target.A.size() == static_cast<std::size_t>(D));
    for (int T : {1, 2, 7}) {
      std::vector<std::vector<double>> X(T, std::vector<double>(4));
      for (auto& x : X)
        for (double& v : x) v = rng.normal();
      double expected = 0;
      for (const auto& A : target.A) {
        double best = -std::numeric_limits<double>::infinity();
        for (int s = 0; s < T; ++s)
          for (int t = 0; t < T; ++t) {
            double v = 0;
            for (int r = 0; r < 4; ++r)
              for (int c = 0; c < 4; ++c) v += X[s][r] * A[4 * r + c] * X[t][c];
            best = std::max(best, v);
          }
        expected += best;
      }
      INFO("D = " << D << ", T = " << T << ", seed " << test::seed());
      CHECK(target(X) == Approx(expected).epsilon(1e-12));
    }
  }
  // The families differ (else (D-1) heads would do): the A_i are distinct draws.
  const auto t2 = IntrinsicDimensionTarget::draw(2, test::seed());
  CHECK(t2.A[0] != t2.A[1]);
}

TEST_CASE("experiments: the triangle centre is the smallest sum over three distinct tokens", "[experiments]") {
  // x1 + x2 + x3 = (0, 0.5) is the smallest; repeating x3 three times would give 1.5, and 3·x1 would give 3.
  const std::vector<std::vector<double>> X{{1, 0}, {-1, 0}, {0, 0.5}, {3, 3}};
  CHECK(triangle_centre_target(X) == Approx(0.5));
  CHECK(triangle_centre_target({{1, 2}, {3, 4}, {5, 6}}) == Approx(std::hypot(9.0, 12.0)));
  CHECK_THROWS_AS(triangle_centre_target({{1, 2}, {3, 4}}), ContractError);
}

TEST_CASE("experiments: the paired interval has the known answer", "[experiments]") {
  const std::vector<double> a{1, 2, 3, 4}, b{2, 3, 4, 5};
  const auto [lo, hi] = paired_difference_interval(a, b);
  CHECK(lo == Approx(1.0));  // every difference is exactly 1: zero width
  CHECK(hi == Approx(1.0));
  const auto [lo2, hi2] = paired_difference_interval({0, 0, 0, 0}, {1, -1, 1, -1});
  CHECK(lo2 < 0);
  CHECK(hi2 > 0);
  CHECK_THROWS_AS(paired_difference_interval({1}, {2}), ContractError);
}

TEST_CASE("experiments: the intrinsic-dimension check passes, fails and abstains when it should", "[experiments]") {
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.01, 0.05, 0.04)).verdict == Verdict::Pass);
  // The column-swap defect: (D-1,D) better than (D,D) on every seed.
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.05, 0.01, 0.04)).verdict == Verdict::Fail);
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.05, 0.06, 0.01)).verdict == Verdict::Fail);
  // Two seeds are too few to pass or to fail, however clear the ordering.
  CHECK(intrinsic_dimension_check(3, replicates(2, 0.01, 0.05, 0.04)).verdict == Verdict::Inconclusive);
  CHECK(intrinsic_dimension_check(3, replicates(2, 0.05, 0.01, 0.04)).verdict == Verdict::Inconclusive);
  // Mixed seeds: inconclusive.
  auto mixed = replicates(3, 0.01, 0.05, 0.04);
  mixed[1] = {1, {synthetic(0.05), synthetic(0.01), synthetic(0.04)}};
  CHECK(intrinsic_dimension_check(3, mixed).verdict == Verdict::Inconclusive);
  // Equal levels with independent noise: no significant ordering.
  auto tied = replicates(3, 0.02, 0.02, 0.02);
  for (auto& rep : tied) rep.cell[1] = synthetic(0.02, 400, 0.5);
  CHECK(intrinsic_dimension_check(3, tied).verdict != Verdict::Pass);
  // A winner that learnt nothing (no better than the constant predictor) decides nothing; a loser stuck at 1 is fine.
  CHECK(intrinsic_dimension_check(3, replicates(3, 1.2, 1.0, 1.4)).verdict == Verdict::Inconclusive);
  CHECK(intrinsic_dimension_check(3, replicates(3, 1.02, 1.1, 1.2)).verdict == Verdict::Inconclusive);
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.01, 1.1, 0.04)).verdict == Verdict::Pass);
  // A diverged training decides nothing.
  auto diverged = replicates(3, 0.01, 0.05, 0.04);
  diverged[2].cell[1] = CellResult{};
  diverged[2].cell[1].diverged = true;
  CHECK(intrinsic_dimension_check(3, diverged).verdict == Verdict::Inconclusive);
}

TEST_CASE("experiments: the triangle check reads a rise, a fall and a flat line", "[experiments]") {
  auto series = [](std::vector<double> levels) {
    TriangleSeries s;
    s.arch = {2, 2, 24};
    for (std::size_t i = 0; i < levels.size(); ++i) {
      s.T.push_back(4 << i);
      s.by_T.push_back({synthetic(levels[i])});
    }
    return s;
  };
  CHECK(triangle_centre_check(series({0.1, 0.6, 0.95})).verdict == Verdict::Pass);
  CHECK(triangle_centre_check(series({0.95, 0.6, 0.1})).verdict == Verdict::Fail);
  CHECK(triangle_centre_check(series({0.1, 0.95, 0.6})).verdict == Verdict::Fail);  // a step falls
  CHECK(triangle_centre_check(series({0.5, 0.5, 0.5})).verdict == Verdict::Inconclusive);
  CHECK(triangle_centre_check(series({0.5})).verdict == Verdict::Inconclusive);
  // Untrained at the smallest T: no verdict, even on a clear fall.
  CHECK(triangle_centre_check(series({1.25, 1.1, 1.0})).verdict == Verdict::Inconclusive);
  // Once at 1 the trend has arrived: a fall from there is the noise of a saturated model.
  CHECK(triangle_centre_check(series({0.5, 1.2, 1.05})).verdict == Verdict::Pass);
  // Seeds that disagree widen the interval: a rise within the seeds' spread is not significant.
  TriangleSeries spread;
  spread.arch = {2, 2, 24};
  spread.T = {4, 8};
  spread.by_T = {{synthetic(0.2), synthetic(0.8)}, {synthetic(0.5), synthetic(0.9)}};
  CHECK(triangle_centre_check(spread).verdict == Verdict::Inconclusive);
  spread.by_T = {{synthetic(0.2), synthetic(0.21)}, {synthetic(0.5), synthetic(0.52)}};
  CHECK(triangle_centre_check(spread).verdict == Verdict::Pass);
  // The check's id names the architecture, and an FFN readout with it.
  CHECK(triangle_centre_check(spread).id == "experiments.triangle-centre.(2,2,24)");
  spread.readout_width = 96;
  CHECK(triangle_centre_check(spread).id == "experiments.triangle-centre.(2,2,24,ro96)");
}

TEST_CASE("experiments: the triangle check is decided against its bounded control", "[experiments]") {
  auto series = [](std::vector<double> levels, double ripple = 0.1) {
    TriangleSeries s;
    s.arch = {2, 2, 24};
    for (std::size_t i = 0; i < levels.size(); ++i) {
      s.T.push_back(4 << i);
      s.by_T.push_back({synthetic(levels[i], 400, ripple)});
    }
    return s;
  };
  const TriangleSeries control = series({0.1, 0.2, 0.3});
  // Harder than a learnt bounded target at the largest T, and rising: the effect separates from its control.
  CHECK(triangle_centre_check(series({0.1, 0.6, 0.95}), control).verdict == Verdict::Pass);
  // The audit's finding: the bounded control rises just as much, so a rise alone decides nothing...
  const TriangleSeries rising_control = series({0.1, 0.6, 0.95});
  CHECK(triangle_centre_check(series({0.1, 0.6, 0.95}, 0.3), rising_control).verdict != Verdict::Pass);
  // A target easier than its control at the largest T fails, even where the rise could not be read.
  CHECK(triangle_centre_check(series({1.2, 0.6, 0.1}), rising_control).verdict == Verdict::Fail);
  const Check k = triangle_centre_check(series({0.1, 0.6, 0.95}), control);
  CHECK(k.measured.at("control_at_largest_T").at("nmse_control").get<double>() == Approx(0.3).epsilon(0.05));
}

TEST_CASE("experiments: the intrinsic-dimension check must separate from its D - 1 family control", "[experiments]") {
  // The control shows no ordering: (D,D)'s advantage on the D-family target, as a ratio, stands out over 5 seeds at
  // the paper's T = 64.
  CHECK(intrinsic_dimension_check(3, replicates(5, 0.01, 0.05, 0.04), replicates(5, 0.01, 0.011, 0.011), 64).verdict ==
        Verdict::Pass);
  // The same at T = 8: not decided at this size.
  const Check small = intrinsic_dimension_check(3, replicates(5, 0.01, 0.05, 0.04), replicates(5, 0.01, 0.011, 0.011), 8);
  CHECK(small.verdict == Verdict::Inconclusive);
  CHECK(small.measured.contains("not_decided_at_this_size"));
  // Three seeds are not enough for a paired interval over seeds.
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.01, 0.05, 0.04), replicates(3, 0.01, 0.011, 0.011), 64).verdict ==
        Verdict::Inconclusive);
  // The control shows the same advantage as a ratio, though ~4x easier in absolute terms: a pass becomes
  // inconclusive (in absolute differences it would have separated).
  const Check same = intrinsic_dimension_check(3, replicates(5, 0.01, 0.05, 0.04), replicates(5, 0.0025, 0.0125, 0.01), 64);
  CHECK(same.verdict == Verdict::Inconclusive);
  CHECK(same.measured.at("separation_from_control").size() == 2);
  // Seeds that disagree: the effect over the control on one seed only does not separate (t-interval over seeds).
  std::vector<IdReplicate> mixed_control = replicates(5, 0.01, 0.011, 0.011);
  for (int r = 1; r < 5; ++r) mixed_control[r] = {r, {synthetic(0.01), synthetic(0.06), synthetic(0.05)}};
  CHECK(intrinsic_dimension_check(3, replicates(5, 0.01, 0.05, 0.04), mixed_control, 64).verdict == Verdict::Inconclusive);
  // A failure stays a failure.
  CHECK(intrinsic_dimension_check(3, replicates(5, 0.05, 0.01, 0.04), replicates(5, 0.01, 0.011, 0.011), 64).verdict ==
        Verdict::Fail);
}

TEST_CASE("experiments: a cell is deterministic and the architectures of a comparison share their data", "[experiments]") {
  ExperimentTraining tr = tiny_training();
  const ExperimentCell dd{ExperimentKind::IntrinsicDimension, 2, 4, 2, 2, intrinsic_dimension_E(2), 0};
  ExperimentCell fewer = dd;
  fewer.h1 = 1;
  const CellResult a = run_experiment_cell(dd, tr, test::seed());
  const CellResult b = run_experiment_cell(dd, tr, test::seed());
  const CellResult c = run_experiment_cell(fewer, tr, test::seed());
  CHECK(a.sq_err == b.sq_err);
  CHECK(a.curve == b.curve);
  CHECK(a.valid_variance == c.valid_variance);  // the same validation targets
  CHECK(a.sq_err.size() == 32);
  CHECK(a.curve.size() == 4);
  CHECK(std::isfinite(a.nmse));
  CHECK(a.nmse_lo <= a.nmse);
  CHECK(a.nmse <= a.nmse_hi);
  CHECK(a.parameters > c.parameters);
  const ExperimentCell tri{ExperimentKind::TriangleCentre, 0, 5, 2, 2, 8, 0};
  CHECK(std::isfinite(run_experiment_cell(tri, tr, test::seed()).nmse));
}

TEST_CASE("experiments: a GeLU cell is its own checkpoint but starts and steps like its ReLU cell", "[experiments][gelu]") {
  ExperimentTraining tr = tiny_training();
  const ExperimentCell relu{ExperimentKind::IntrinsicDimension, 2, 4, 2, 2, intrinsic_dimension_E(2), 0};
  ExperimentCell gelu = relu;
  gelu.ffn_activation = Activation::Gelu;
  CHECK(gelu.key() != relu.key());
  CHECK(gelu.key().find("-gelu") != std::string::npos);
  const Model start = random_cell_start(gelu, test::seed(), 0);
  CHECK(start.arch.layers[0].ffn_activation == Activation::Gelu);
  CHECK(start.params == random_cell_start(relu, test::seed(), 0).params);
  CHECK(experiment_train_options(gelu, tr, test::seed(), 0).seed == experiment_train_options(relu, tr, test::seed(), 0).seed);
  const CellResult a = run_experiment_cell(relu, tr, test::seed()), b = run_experiment_cell(gelu, tr, test::seed());
  CHECK(a.valid_variance == b.valid_variance);  // the same data
  CHECK(std::isfinite(b.nmse));
  CHECK(a.sq_err != b.sq_err);  // another model
  // The suite's option: GeLU cells, and never with the construction arm (whose start has ReLU units).
  SuiteContext ctx;
  ctx.options = {{"--gelu", "1"}, {"--construction-arm", "0"}};
  const ExperimentsConfig c = experiments_config(ctx);
  CHECK(c.id_ffn_activation == Activation::Gelu);
  CHECK(intrinsic_dimension_cell(c, 2, 0, 0).ffn_activation == Activation::Gelu);
  for (const auto& options : std::vector<std::map<std::string, std::string>>{{{"--gelu", "1"}}, {{"--gelu", "2"}}}) {
    ctx.options = options;
    CHECK_THROWS_AS(experiments_config(ctx), InputError);
  }
}

TEST_CASE("experiments: a triangle cell with an FFN readout is its own checkpoint, and the option reaches every "
          "triangle and pair cell", "[experiments]") {
  ExperimentTraining tr = tiny_training();
  const ExperimentCell affine{ExperimentKind::TriangleCentre, 0, 5, 2, 2, 8, 0};
  ExperimentCell ffn = affine;
  ffn.readout_width = 12;
  CHECK(ffn.key() != affine.key());
  CHECK(ffn.key().find("-ro12") != std::string::npos);
  CHECK(ffn.arch_label() == "(2,2,8,ro12)");  // the report's rows and the check's id name the readout
  CHECK(affine.arch_label() == "(2,2,8)");
  const Architecture a = experiment_architecture(ffn);
  CHECK(a.readout.kind == MapKind::Ffn);
  CHECK(a.readout.width == 12);
  CHECK(experiment_architecture(affine).readout.kind == MapKind::Affine);
  const CellResult r = run_experiment_cell(ffn, tr, test::seed()), base = run_experiment_cell(affine, tr, test::seed());
  CHECK(r.valid_variance == base.valid_variance);  // the same data
  CHECK(r.parameters == base.parameters + 8 * 12 + 12 + 12 + 1 - (8 + 1));  // W1, b1, W2, b2 in place of w, b
  CHECK(std::isfinite(r.nmse));
  // An intrinsic-dimension cell has the affine readout of its construction.
  ExperimentCell id{ExperimentKind::IntrinsicDimension, 2, 4, 2, 2, intrinsic_dimension_E(2), 0};
  id.readout_width = 4;
  CHECK_THROWS_AS(experiment_architecture(id), ContractError);
  SuiteContext ctx;
  ctx.options = {{"--triangle-readout-width", "96"}};
  const ExperimentsConfig c = experiments_config(ctx);
  int triangle_cells = 0;
  for (const ExperimentCell& cell : experiment_cells(c)) {
    if (cell.predictor != Predictor::Trained) continue;
    const bool triangle = cell.kind != ExperimentKind::IntrinsicDimension;
    triangle_cells += triangle;
    CHECK(cell.readout_width == (triangle ? 96 : 0));
  }
  CHECK(triangle_cells > 0);
  for (const std::string bad : {"-1", "4097", "x"}) {
    ctx.options = {{"--triangle-readout-width", bad}};
    CHECK_THROWS_AS(experiments_config(ctx), InputError);
  }
}

TEST_CASE("experiments: options are checked before any work", "[experiments]") {
  SuiteContext ctx;
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"--D", "1"}, {"--D", "9"}, {"--id-T", "65"}, {"--id-T", "2,3"}, {"--triangle-T", "2"},
           {"--triangle-T", "100"}, {"--seeds", "0"}, {"--steps", "0"}, {"--lr", "2"}, {"--batch", "0"},
           {"--train-samples", "1000000"}, {"--restarts", "0"}, {"--restarts", "17"}, {"--warmup-steps", "8000"},
           {"--warmup-steps", "3000"}, {"--id-ffn-width", "0"}, {"--construction-widths", "24"},
           {"--construction-widths", "8"}, {"--construction-arm", "2"}, {"--id-ffn-width", "24"}, {"--fresh-samples", "2"},
           {"--curriculum-T", "8"} /* without fresh samples */, {"--log-temperatures", "-1"}, {"--gradient-clip", "-1"},
           {"--gradient-clip", "nan"}, {"--gradient-clip", "0,1"}}) {
    ctx.options = {{name, value}};
    INFO(name << " " << value);
    CHECK_THROWS_AS(experiments_config(ctx), InputError);
  }
  // Fresh samples hold a minibatch per step too: at the nightly profile's T = 64 a batch of 10^5 exceeds the cap,
  // which the same batch on the fixed set does not.
  ctx.profile = Profile::Nightly;
  ctx.options = {{"--batch", "100000"}, {"--fresh-samples", "0"}};
  CHECK_NOTHROW(experiments_config(ctx));
  ctx.options = {{"--batch", "100000"}};  // the nightly default draws fresh samples
  try {
    (void)experiments_config(ctx);
    FAIL("a batch of 10^5 with fresh samples at T = 64 passed the token cap");
  } catch (const InputError& e) {
    CHECK(e.argument() == "--batch");  // the option the user gave
    CHECK(std::string(e.what()).find("--fresh-samples 0") != std::string::npos);
  }
  ctx.profile = Profile::Quick;
  ctx.options = {};
  const ExperimentsConfig quick = experiments_config(ctx);
  // Every trained cell twice: once on the experiment's target, once on its negative control; then two baselines per
  // data cell of the intrinsic-dimension target, the triangle and its control.
  CHECK(quick.controls);
  CHECK(quick.baselines);
  CHECK(experiment_cells(quick).size() ==
        2 * (quick.D.size() * 3 * quick.seeds + quick.triangle_archs.size() * quick.triangle_T.size() * quick.triangle_seeds) +
            2 * (quick.D.size() * quick.seeds + 2 * quick.triangle_T.size() * quick.triangle_seeds) +
            quick.D.size() * quick.seeds);  // the construction arm
}

TEST_CASE("experiments: the nightly profile's defaults are the paper-size run's recipe, each can be turned off",
          "[experiments]") {
  SuiteContext ctx;
  ctx.profile = Profile::Nightly;
  const ExperimentsConfig c = experiments_config(ctx);
  CHECK(c.seeds == 5);
  CHECK(c.id_ffn_per_family == 64);
  CHECK(c.id_ffn_activation == Activation::Gelu);
  CHECK_FALSE(c.construction_arm);
  for (const ExperimentTraining* t : {&c.id_training, &c.triangle_training}) {
    CHECK(t->fresh_samples);
    CHECK(t->curriculum_T == std::vector<int>{32});
    CHECK(t->gradient_clip == 1.0);
  }
  // Off again, one by one: a fixed set takes the curriculum with it, the construction arm the GeLU units.
  ctx.options = {{"--fresh-samples", "0"}, {"--gradient-clip", "0"}, {"--construction-arm", "1"}};
  const ExperimentsConfig off = experiments_config(ctx);
  CHECK_FALSE(off.id_training.fresh_samples);
  CHECK(off.id_training.curriculum_T.empty());
  CHECK(off.id_training.gradient_clip == 0.0);
  CHECK(off.id_ffn_activation == Activation::Relu);
  ctx.options = {{"--construction-arm", "1"}, {"--gelu", "1"}};
  CHECK_THROWS_AS(experiments_config(ctx), InputError);
  // Every spelling of zero turns clipping off; a negative clip or a list does not.
  for (const char* zero : {"0", "0.0", "-0", "0e0"}) {
    ctx.options = {{"--gradient-clip", zero}};
    CHECK(experiments_config(ctx).id_training.gradient_clip == 0.0);
  }
  for (const char* bad : {"-1e-300", "-1", "1e6", "0,1", "x"}) {
    ctx.options = {{"--gradient-clip", bad}};
    INFO(bad);
    CHECK_THROWS_AS(experiments_config(ctx), InputError);
  }
  // The other profiles keep the plain recipe, so their baselines are unchanged.
  for (const Profile p : {Profile::Quick, Profile::Full}) {
    ctx.profile = p;
    ctx.options = {};
    const ExperimentsConfig plain = experiments_config(ctx);
    CHECK(plain.seeds == 3);
    CHECK(plain.id_ffn_per_family == 16);
    CHECK(plain.id_ffn_activation == Activation::Relu);
    CHECK_FALSE(plain.id_training.fresh_samples);
    CHECK(plain.id_training.gradient_clip == 0.0);
  }
}

TEST_CASE("experiments: a (D,D) that wins the ordering but not against the ridge baseline does not pass", "[experiments]") {
  // (D,D) clearly best of the three architectures on every seed: a pass, unless the retrieval-free ridge model on
  // the same data is better than it.
  std::vector<IdReplicate> reps = replicates(3, 0.2, 0.4, 0.4);
  REQUIRE(intrinsic_dimension_check(2, reps).verdict == Verdict::Pass);
  for (auto& rep : reps) rep.ridge = synthetic(0.5);
  const Check beaten = intrinsic_dimension_check(2, reps);
  CHECK(beaten.verdict == Verdict::Pass);
  CHECK(beaten.measured.at("DD_beats_ridge") == true);
  for (auto& rep : reps) rep.ridge = synthetic(0.1);
  const Check lost = intrinsic_dimension_check(2, reps);
  CHECK(lost.verdict == Verdict::Inconclusive);
  CHECK(lost.measured.at("DD_beats_ridge") == false);
  reps[1].ridge = synthetic(0.5);  // one seed is enough to withhold the pass
  CHECK(intrinsic_dimension_check(2, reps).verdict == Verdict::Inconclusive);
}

TEST_CASE("experiments: the sorted-feature ridge baseline recovers a target linear in its features", "[experiments]") {
  // y = 2·max_t x(t)_0 − the median-ish second order statistic of x_1 + 0.5: linear in the sorted coordinates, so the
  // ridge model must find it (up to its small penalty); a permuted sequence gets the same prediction.
  SplitMix64 rng(derive_seed(test::seed(), "ridge-baseline"));
  Dataset train, valid;
  for (Dataset* ds : {&train, &valid})
    for (int n = 0; n < 400; ++n) {
      auto X = draw_experiment_sequence(ExperimentKind::IntrinsicDimension, 6, rng);
      std::vector<double> c0, c1;
      for (const auto& x : X) c0.push_back(x[0]), c1.push_back(x[1]);
      std::sort(c0.begin(), c0.end());
      std::sort(c1.begin(), c1.end());
      ds->add(X, 2.0 * c0.back() - c1[1] + 0.5);
    }
  const std::vector<double> predicted = sorted_ridge_predictions(train, valid);
  REQUIRE(predicted.size() == valid.y.size());
  double worst = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) worst = std::max(worst, std::fabs(predicted[i] - valid.y[i]));
  CHECK(worst < 0.02);
  Dataset permuted = valid;
  for (auto& X : permuted.X) std::reverse(X.begin(), X.end());
  const std::vector<double> again = sorted_ridge_predictions(train, permuted);
  for (std::size_t i = 0; i < again.size(); ++i) CHECK(again[i] == Approx(predicted[i]).margin(1e-12));
}

TEST_CASE("experiments: the square interpolant is exact at its knots and above z^2 between them", "[experiments]") {
  const SquareInterpolant g = SquareInterpolant::make(5, 3.0);
  for (int j = 0; j <= 5; ++j) {
    const double k = 3.0 * j / 5;
    CHECK(g(k) == Approx(k * k).margin(1e-12));
    CHECK(g(-k) == Approx(k * k).margin(1e-12));
  }
  for (double z = -3.0; z <= 3.0; z += 0.01) {
    CHECK(g(z) >= z * z - 1e-12);
    CHECK(g(z) - z * z <= 0.25 * 0.6 * 0.6 + 1e-12);  // (h/2)² with h = 3/5, the interpolation error of z²
  }
}

TEST_CASE("experiments: the (D,D) construction's weights compute the formula", "[experiments]") {
  // Two routes: the exported model through the generic forward pass, and the formula with exact argmaxes. At β = 1e9 a
  // near-tie that moves a softmax (a score gap below about 1e-8) has a probability of order 1e-8 per sequence.
  const IntrinsicDimensionTarget f = IntrinsicDimensionTarget::draw(2, 7);
  IntrinsicConstructionParams p;
  p.width_per_family = 32;
  p.y_shift = 0.3;
  p.y_scale = 2.0;
  p.beta = 1e9;
  const Model m = intrinsic_dimension_construction(f, p);
  ExperimentCell cell{ExperimentKind::IntrinsicDimension, 2, 8, 2, 2, intrinsic_dimension_E(2), 0};
  cell.ffn_per_family = 32;
  CHECK(ParamLayout(m.arch).total_parameter_count() == ParamLayout(experiment_architecture(cell)).total_parameter_count());
  SplitMix64 rng(derive_seed(test::seed(), "id-construction"));
  double worst = 0;
  for (int n = 0; n < 50; ++n) {
    const auto X = draw_experiment_sequence(ExperimentKind::IntrinsicDimension, 8, rng);
    const double direct = (intrinsic_construction_direct(f, p, X) - p.y_shift) / p.y_scale;
    worst = std::max(worst, std::fabs(forward(m, X).y - direct));
  }
  INFO("largest |forward - formula| = " << worst);
  CHECK(worst < 1e-8);
  // More knots, a closer function: the sampled floor falls with the width.
  const ConstructionFloor narrow = intrinsic_construction_floor(2, 8, 16, 200, 200, 7, 11);
  const ConstructionFloor wide = intrinsic_construction_floor(2, 8, 128, 200, 200, 7, 11);
  INFO("NMSE at 16 per family " << narrow.result.nmse << ", at 128 " << wide.result.nmse);
  CHECK(wide.result.nmse_hi < narrow.result.nmse_lo);
  CHECK(wide.result.nmse < 1e-2);
  CHECK_THROWS_AS(intrinsic_dimension_construction(f, IntrinsicConstructionParams{24}), ContractError);
}

TEST_CASE("experiments: restarts are chosen on the selection set and keep the single run as restart 0", "[experiments]") {
  ExperimentTraining tr = tiny_training();
  const ExperimentCell dd{ExperimentKind::IntrinsicDimension, 2, 4, 2, 2, intrinsic_dimension_E(2), 0};
  const CellResult single = run_experiment_cell(dd, tr, test::seed());
  tr.restarts = 3;
  tr.selection_samples = 40;
  const CellResult best = run_experiment_cell(dd, tr, test::seed());
  CHECK(best.restarts == 3);
  CHECK(best.restart >= 0);
  CHECK(best.restart < 3);
  CHECK(best.valid_variance == single.valid_variance);  // the validation set does not depend on the restarts
  if (best.restart == 0) CHECK(best.sq_err == single.sq_err);
  CHECK(run_experiment_cell(dd, tr, test::seed()).sq_err == best.sq_err);
  // The record round-trips through the checkpoint's JSON with its choice.
  const CellResult back = nlohmann::json(best).get<CellResult>();
  CHECK(back.restart == best.restart);
  CHECK(back.restarts == 3);
  // Warm-up: the schedule is checked, and a warm-up run differs from the plain one.
  tr.restarts = 1;
  tr.warmup_steps = 5;
  CHECK(run_experiment_cell(dd, tr, test::seed()).sq_err != single.sq_err);
  tr.warmup_steps = 20;
  CHECK_THROWS_AS(run_experiment_cell(dd, tr, test::seed()), ContractError);
}

TEST_CASE("experiments: fresh samples follow the curriculum's stages, standardised like the fixed set", "[experiments]") {
  ExperimentTraining tr = tiny_training();
  tr.steps = 10;
  tr.fresh_samples = true;
  tr.curriculum_T = {4};
  const ExperimentCell dd{ExperimentKind::IntrinsicDimension, 2, 8, 2, 2, intrinsic_dimension_E(2), 0};
  const double mean = 0.5, sd = 2.0;
  const SampleDrawer draw = experiment_sample_drawer(dd, tr, mean, sd, test::seed());
  // Recomputed here by the target itself: the drawer's targets are (F(X) - mean) / sd.
  const IntrinsicDimensionTarget F = IntrinsicDimensionTarget::draw(2, test::seed());
  for (const int step : {1, 5, 6, 10}) {
    SplitMix64 rng(test::seed() + static_cast<std::uint64_t>(step));
    Dataset out;
    draw(step, rng, 3, out);
    REQUIRE(out.y.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(out.X[i].size() == (step <= 5 ? 4u : 8u));  // two equal stages: T = 4 for steps 1..5, then the cell's 8
      CHECK(out.y[i] == Approx((F(out.X[i]) - mean) / sd).epsilon(1e-14));
    }
  }
  // A cell trained on fresh samples: deterministic, and not the fixed set's training.
  ExperimentTraining fixed = tiny_training();
  ExperimentTraining fresh = fixed;
  fresh.fresh_samples = true;
  const CellResult a = run_experiment_cell(dd, fresh, test::seed());
  CHECK(a.sq_err == run_experiment_cell(dd, fresh, test::seed()).sq_err);
  const CellResult b = run_experiment_cell(dd, fixed, test::seed());
  CHECK(a.sq_err != b.sq_err);
  CHECK(a.valid_variance == b.valid_variance);  // the same validation set
  fresh.curriculum_T = {4};
  CHECK(run_experiment_cell(dd, fresh, test::seed()).sq_err != a.sq_err);
  // The settings name the new options only when used, so that earlier runs keep their checkpoints' version.
  CHECK(!fixed.to_json().contains("fresh"));
  CHECK(fresh.to_json().at("curriculum_T") == nlohmann::json::array({4}));
  fresh.log_temperatures = true;
  fresh.gradient_clip = 1.0;
  CHECK(fresh.to_json().at("log_temperatures") == true);
  CHECK(fresh.to_json().at("gradient_clip") == 1.0);
  CHECK(std::isfinite(run_experiment_cell(dd, fresh, test::seed()).nmse));
}

TEST_CASE("experiments: the construction arm starts from the construction", "[experiments]") {
  // One step at a negligible rate leaves the start as it was: the construction (β = 20, weights moved by 0.01) must
  // already explain most of the target, where a random start explains nothing.
  ExperimentTraining tr = tiny_training();
  tr.steps = 1;
  tr.learning_rate = 1e-12;
  tr.train_samples = 200;
  tr.valid_samples = 200;
  ExperimentCell dd{ExperimentKind::IntrinsicDimension, 2, 8, 2, 2, intrinsic_dimension_E(2), 0};
  dd.ffn_per_family = 64;
  const CellResult random_start = run_experiment_cell(dd, tr, test::seed());
  dd.from_construction = true;
  const CellResult from_construction = run_experiment_cell(dd, tr, test::seed());
  INFO("NMSE at the start: random " << random_start.nmse << ", construction " << from_construction.nmse);
  CHECK(from_construction.nmse < 0.5);
  CHECK(random_start.nmse > 0.5);
  CHECK(dd.key().find("from-construction") != std::string::npos);
  ExperimentCell fewer = dd;
  fewer.h1 = 1;
  CHECK_THROWS_AS(run_experiment_cell(fewer, tr, test::seed()), ContractError);
}
