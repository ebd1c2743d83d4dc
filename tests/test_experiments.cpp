// The paper's experiments (theorems/infoflow/paper_experiments.*): both targets against brute force, the checks on
// records with a known answer (and the defects they guard against), and a cell's determinism and shared data.
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
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
  // ...and the control run through the check against itself fails: it shows no effect beyond itself.
  CHECK(triangle_centre_check(rising_control, rising_control).verdict == Verdict::Fail);
  // A target easier than its control at the largest T fails, even where the rise could not be read.
  CHECK(triangle_centre_check(series({1.2, 0.6, 0.1}), rising_control).verdict == Verdict::Fail);
  const Check k = triangle_centre_check(series({0.1, 0.6, 0.95}), control);
  CHECK(k.measured.at("control_at_largest_T").at("nmse_control").get<double>() == Approx(0.3).epsilon(0.05));
}

TEST_CASE("experiments: the intrinsic-dimension check must separate from its D - 1 family control", "[experiments]") {
  // The control shows no ordering: (D,D)'s advantage on the D-family target stands out.
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.01, 0.05, 0.04), replicates(3, 0.01, 0.011, 0.011)).verdict ==
        Verdict::Pass);
  // The control shows the same advantage ((D,D) simply has more parameters): a pass becomes inconclusive.
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.01, 0.05, 0.04), replicates(3, 0.01, 0.05, 0.04)).verdict ==
        Verdict::Inconclusive);
  // A failure stays a failure.
  CHECK(intrinsic_dimension_check(3, replicates(3, 0.05, 0.01, 0.04), replicates(3, 0.01, 0.011, 0.011)).verdict ==
        Verdict::Fail);
}

TEST_CASE("experiments: a cell is deterministic and the architectures of a comparison share their data", "[experiments]") {
  ExperimentTraining tr;
  tr.train_samples = 64;
  tr.valid_samples = 32;
  tr.steps = 20;
  tr.batch = 16;
  tr.curve_points = 4;
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

TEST_CASE("experiments: options are checked before any work", "[experiments]") {
  SuiteContext ctx;
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"--D", "1"}, {"--D", "9"}, {"--id-T", "65"}, {"--id-T", "2,3"}, {"--triangle-T", "2"},
           {"--triangle-T", "100"}, {"--seeds", "0"}, {"--steps", "0"}, {"--lr", "2"}, {"--batch", "0"},
           {"--train-samples", "1000000"}}) {
    ctx.options = {{name, value}};
    INFO(name << " " << value);
    CHECK_THROWS_AS(experiments_config(ctx), InputError);
  }
  ctx.options = {};
  const ExperimentsConfig quick = experiments_config(ctx);
  // Every cell twice: once on the experiment's target, once on its negative control.
  CHECK(quick.controls);
  CHECK(experiment_cells(quick).size() ==
        2 * (quick.D.size() * 3 * quick.seeds + quick.triangle_archs.size() * quick.triangle_T.size() * quick.triangle_seeds));
}
