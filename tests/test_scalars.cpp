#include "numerics/scalar/scalar_traits.hpp"
#include "numerics/util/mutation.hpp"

#include <arb_hypgeom.h>
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

namespace {

// σ(x) = x/2·(1 + erf(x/√2)) at x's precision: the erf form, beside the erfc form that numerics/scalar/gelu.cpp uses.
// (1 + erf cancels for x ≪ 0: at x = -30 the sum is 1e-197, so such x need about 2048 bits.)
mpfr::mpreal gelu_by_erf(const mpfr::mpreal& x) {
  const mpfr::mpreal one(1, x.get_prec()), two(2, x.get_prec());
  return x / two * (one + mpfr::erf(x / mpfr::sqrt(two)));
}

}  // namespace

TEST_CASE("GeLU: double, MPFR and arb agree with the erf form, and balls hold every point's value, slope and curvature",
          "[scalar][gelu]") {
  auto rng = test::rng_for("gelu-balls");
  const auto check_balls = [&](SplitMix64& r, long balls) {
    long missed = 0;
    for (long b = 0; b < balls; ++b) {
      // Random balls of widths 2^0 .. 2^-10 around [-5, 4], and every 7th one straddling the minimum x* = -0.7518.
      double lo = r.uniform(-5.0, 4.0), hi = lo + std::ldexp(1.0, -static_cast<int>(r.uniform_index(11)));
      if (b % 7 == 0) lo = r.uniform(-1.2, -0.752), hi = r.uniform(-0.751, -0.3);
      const ArbBall X = ArbBall::interval(lo, hi, 128);
      const ArbBall value = gelu(X), slope = gelu_slope(X), curvature = gelu_curvature(X);
      for (int p = 0; p < 12; ++p) {
        const double x = p == 0 ? lo : p == 1 ? hi : r.uniform(lo, hi);
        const mpfr::mpreal mx(x, 512), h("1e-40", 512);
        // The derivatives by central differences of the erf form at 512 bits: truncation ~h² = 1e-80, rounding about
        // 2^-512/h ~ 1e-114 for σ' and 2^-512/h² ~ 1e-74 for σ'', both far below the tolerance.
        const mpfr::mpreal d1 = (gelu_by_erf(mx + h) - gelu_by_erf(mx - h)) / (2 * h);
        const mpfr::mpreal d2 = (gelu_by_erf(mx + h) - 2 * gelu_by_erf(mx) + gelu_by_erf(mx - h)) / (h * h);
        const mpfr::mpreal tol("1e-50", 512);
        const bool ok = value.contains(gelu_by_erf(mx)) && slope.lower() <= d1 + tol && slope.upper() >= d1 - tol &&
                        curvature.lower() <= d2 + tol && curvature.upper() >= d2 - tol;
        if (!ok) ++missed;
      }
    }
    return missed;
  };
  CHECK(check_balls(rng, 200 * test::multiplier()) == 0);
  // Points: the double and MPFR routes against the erf form (the double one within a few ulp: the C library's erfc).
  for (int i = 0; i < 600; ++i) {
    const double x = rng.uniform(-30.0, 30.0);
    const mpfr::mpreal exact = gelu_by_erf(mpfr::mpreal(x, 2048));
    INFO("x = " << std::hexfloat << x << std::defaultfloat << ", gelu " << gelu(x) << ", exact " << exact.toString(20));
    CHECK(mpfr::abs(gelu(mpfr::mpreal(x, 256)) - exact) <= mpfr::abs(exact) * mpfr::mpreal("1e-70", 2048));
    // z = -x/√2 rounded to a double (M_SQRT1_2's rounding, 0.62 ulp, and the product's: a relative 1.62·2^-53) moves
    // erfc(z) by a relative (2z² + 1)·1.62·2^-53, its condition number times that: about 1.62x² ulps for x ≪ 0, plus
    // erfc's own.
    CHECK(std::fabs(gelu(x) - exact.toDouble()) <= (16 + 2 * x * x) * 0x1p-53 * std::fabs(exact.toDouble()));
    double slope = 0;
    CHECK(gelu_and_slope(x, slope) == gelu(x));
    CHECK(slope == gelu_slope(x));
  }
  // The ball leaves the minimum out where both ends lie above it: a mutant taking only the ends is caught.
  set_active_mutant(Mutant::GeluHullMissesMinimum);
  auto again = test::rng_for("gelu-balls");
  const long missed = check_balls(again, 100);
  set_active_mutant(Mutant::None);
  CHECK(missed > 0);
}

namespace {

// Φ, φ and GeLU's value and first three derivatives on a ball by their natural interval extensions in arb, written here
// apart from numerics/scalar/gelu.cpp, which clips σ' and σ'' to the very ranges the test below establishes.
ArbBall cdf_natural(const ArbBall& x) {
  ArbBall t = -x / sqrt(ArbBall(2.0, x.prec())), r(x.prec());
  arb_hypgeom_erfc(r.raw(), t.raw(), x.prec());
  return r * ArbBall(0.5, x.prec());
}
ArbBall density_natural(const ArbBall& x) {
  const long prec = x.prec();
  // x² over the ball from its ends (the ends' squares, and 0 where the ball holds it).
  const ArbBall lo = x.lower_end(), hi = x.upper_end();
  ArbBall sq = ArbBall::interval(lo * lo, hi * hi);
  if (x.lower() < 0 && x.upper() > 0) sq = ArbBall::interval(sq, ArbBall(0.0, x.prec()));
  ArbBall pi(prec);
  arb_const_pi(pi.raw(), prec);
  return exp(-(sq * ArbBall(0.5, prec))) / sqrt(ArbBall(2.0, prec) * pi);
}
ArbBall value_natural(const ArbBall& x) { return x * cdf_natural(x); }
ArbBall slope_natural(const ArbBall& x) { return cdf_natural(x) + x * density_natural(x); }
ArbBall curvature_natural(const ArbBall& x) { return density_natural(x) * (ArbBall(2.0, x.prec()) - x * x); }
ArbBall third_natural(const ArbBall& x) { return -(x * density_natural(x) * (ArbBall(4.0, x.prec()) - x * x)); }

}  // namespace

TEST_CASE("GeLU: the constants its enclosures use hold over the whole line", "[scalar][gelu]") {
  // On [-20, 20] in steps of 1e-3, by mean-value forms in arb: σ'(m) ± sup|σ''|·w/2 on each step (sound), and the same
  // for σ''; beyond ±20 the signs and sizes follow from Mills' inequality (docs/certify.md §1 item 1e).
  const long prec = 128;
  double top = -INFINITY, slope_bottom = INFINITY, curvature_top = -INFINITY, curvature_bottom = INFINITY;
  bool increasing = true, decreasing = true;
  // f(m) ± sup|f'(X)|·max(m − a, b − m): f on [a, b], by the mean-value theorem.
  const auto mean_value = [&](const ArbBall& at_m, const ArbBall& derivative, double a, double b, double m) {
    ArbBall r = at_m;
    const ArbBall reach = max(ArbBall(m, prec) - ArbBall(a, prec), ArbBall(b, prec) - ArbBall(m, prec));
    arb_add_error(r.raw(), (abs(derivative) * reach).raw());
    return r;
  };
  for (int k = -20000; k < 20000; ++k) {
    const double a = k * 1e-3, b = (k + 1) * 1e-3, m = (a + b) / 2;
    const ArbBall X = ArbBall::interval(a, b, prec);
    const ArbBall slope = mean_value(slope_natural(ArbBall(m, prec)), curvature_natural(X), a, b, m);
    const ArbBall curvature = mean_value(curvature_natural(ArbBall(m, prec)), third_natural(X), a, b, m);
    top = std::max(top, slope.upper());
    slope_bottom = std::min(slope_bottom, slope.lower());
    curvature_top = std::max(curvature_top, curvature.upper());
    curvature_bottom = std::min(curvature_bottom, curvature.lower());
    if (a >= kGeluIncreasingFrom) increasing = increasing && slope.lower() > 0;
    if (b <= kGeluDecreasingTo) decreasing = decreasing && slope.upper() < 0;
  }
  INFO("the slope's enclosures on [-20, 20] within [" << slope_bottom << ", " << top << "], the curvature's within ["
                                                      << curvature_bottom << ", " << curvature_top << "]");
  // The ranges gelu.cpp clips σ' and σ'' to, and model_quantities.cpp's vertices of the slopes.
  CHECK(top <= kGeluSlopeBound);
  CHECK(top >= 1.1289);  // the true sup, 1.128904..., is reached at √2
  CHECK(slope_bottom >= kGeluSlopeLower);
  CHECK(curvature_top <= kGeluCurvatureUpper);
  CHECK(curvature_bottom >= kGeluCurvatureLower);
  CHECK(increasing);
  CHECK(decreasing);
  // σ(x*) ≥ kGeluMinimumBound where σ turns, between the two sides, in steps of 1e-3 (σ' is small there).
  REQUIRE(kGeluDecreasingTo < kGeluIncreasingFrom);
  double bottom = INFINITY;
  const int steps = static_cast<int>(std::ceil((kGeluIncreasingFrom - kGeluDecreasingTo) / 1e-3 - 1e-9));
  for (int k = 0; k < steps; ++k) {
    const double a = kGeluDecreasingTo + k * 1e-3, b = std::min(a + 1e-3, kGeluIncreasingFrom), m = (a + b) / 2;
    bottom = std::min(bottom, mean_value(value_natural(ArbBall(m, prec)), slope_natural(ArbBall::interval(a, b, prec)), a, b, m).lower());
  }
  INFO("inf of the value's enclosures between the sides: " << bottom);
  CHECK(bottom >= kGeluMinimumBound);
  CHECK(bottom <= -0.1699);
}
