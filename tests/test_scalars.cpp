#include "numerics/scalar/scalar_traits.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <omp.h>

using namespace infoflow;

TEST_CASE("ArbBall arithmetic encloses the MPFR value at higher precision", "[scalar]") {
  auto rng = test::rng_for("arb-arith");
  for (int i = 0; i < 200 * test::multiplier(); ++i) {
    const double a = rng.uniform(-3, 3), b = rng.uniform(0.1, 3);
    const ArbBall A(a, 128), B(b, 128);
    const mpfr::mpreal ma(a, 512), mb(b, 512);
    const ArbBall r = exp(A * B - A / B) + max(A, B) - sqrt(B);
    const mpfr::mpreal mr = mpfr::exp(ma * mb - ma / mb) + (ma >= mb ? ma : mb) - mpfr::sqrt(mb);
    INFO("a = " << mpfr::mpreal(a, 64).toString(20) << ", b = " << mpfr::mpreal(b, 64).toString(20));
    REQUIRE(r.contains(mr));
    REQUIRE(r.rad() < 1e-30 * std::max(1.0, std::fabs(r.mid())));
  }
}

TEST_CASE("ArbBall comparisons say Unknown when the balls overlap", "[scalar]") {
  const ArbBall one(1.0, 64);
  const ArbBall around_one = ArbBall::interval(0.9, 1.1, 64);
  REQUIRE(less(ArbBall(0.5, 64), one) == Tribool::True);
  REQUIRE(less(one, ArbBall(0.5, 64)) == Tribool::False);
  REQUIRE(less(around_one, one) == Tribool::Unknown);
  REQUIRE(less_equal(around_one, one) == Tribool::Unknown);
  REQUIRE(less_equal(one, one) == Tribool::True);
}

TEST_CASE("Lambert W satisfies W e^W = x", "[scalar]") {
  for (double x : {0.0, 0.3678794411714423, 2.0, 100.0}) {
    const ArbBall w = lambert_w(ArbBall(x, 200));
    const ArbBall back = w * exp(w);
    REQUIRE(back.contains(ArbBall(x, 200)));
  }
}

TEST_CASE("MPFR and arb are thread safe under OpenMP with explicit precision", "[scalar][threads]") {
  const int n = 64 * test::multiplier();
  std::vector<std::string> serial(n), parallel(n);
  auto work = [](int i) {
    const ArbBall x(1.0 + i / 7.0, 256);
    const mpfr::mpreal y(1.0 + i / 7.0, 256);
    const ArbBall e = exp(x) * lambert_w(x);
    const mpfr::mpreal f = mpfr::exp(y) / y;
    // The precision travels with the value, not the per-thread 53-bit default.
    return e.to_string(40) + "|" + f.toString(60) + "|" + std::to_string(f.get_prec());
  };
  for (int i = 0; i < n; ++i) serial[i] = work(i);
#pragma omp parallel num_threads(2)
  {
#pragma omp for schedule(dynamic)
    for (int i = 0; i < n; ++i) parallel[i] = work(i);
    release_thread_caches();
  }
  REQUIRE(serial == parallel);
  for (const auto& s : parallel) REQUIRE(s.substr(s.rfind('|') + 1) == "256");
}

TEST_CASE("What a ball promises at its edges: bad text, indeterminate bounds, exact zeros", "[scalars]") {
  const ArbBall junk(std::string("not a number"), 128);
  REQUIRE_FALSE(junk.is_finite());
  REQUIRE_FALSE(junk.upper() <= 0.0);  // +inf or NaN: never a usable upper bound
  REQUIRE_FALSE(junk.lower() >= 0.0);
  const ArbBall x = ArbBall::interval(0.25, 0.5, 128);
  const ArbBall difference = x - x;  // [0 ± 2r]: not zero in ball arithmetic
  REQUIRE(difference.rad() > 0.0);
  const ArbBall zero = ScalarTraits<ArbBall>::zero_like(x);
  REQUIRE(zero.rad() == 0.0);
  REQUIRE(zero.mid() == 0.0);
  REQUIRE(zero.prec() == 128);
  // to_double is the midpoint, inside the ball but not a bound of it.
  REQUIRE(ScalarTraits<ArbBall>::to_double(x) == Approx(0.375));
  REQUIRE(x.upper() >= 0.5);
  REQUIRE(x.lower() <= 0.25);
}

TEST_CASE("ReLU and max keep a NaN in every scalar: an overflow upstream is never turned into a number", "[scalar]") {
  // `v > 0 ? v : 0` maps NaN (inf − inf in a softmax) to 0, and std::max(a, NaN) returns a: eval printed the
  // readout bias, 0.0603, where MPFR and arb give 1e10.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(ScalarTraits<double>::relu(nan)));
  CHECK(std::isnan(ScalarTraits<double>::max_of(nan, 1.0)));
  CHECK(std::isnan(ScalarTraits<double>::max_of(1.0, nan)));
  CHECK(ScalarTraits<double>::relu(-2.0) == 0.0);
  CHECK(ScalarTraits<double>::relu(INFINITY) == INFINITY);
  const mpfr::mpreal mnan = ScalarTraits<mpfr::mpreal>::from_double(nan, Precision{128});
  const mpfr::mpreal one(1, 128);
  CHECK(mpfr::isnan(ScalarTraits<mpfr::mpreal>::relu(mnan)));
  CHECK(mpfr::isnan(ScalarTraits<mpfr::mpreal>::max_of(mnan, one)));
  CHECK(mpfr::isnan(ScalarTraits<mpfr::mpreal>::max_of(one, mnan)));
  CHECK(ScalarTraits<mpfr::mpreal>::relu(-one) == 0);
  CHECK_FALSE(ScalarTraits<ArbBall>::relu(ArbBall(nan, 128)).is_finite());
}
