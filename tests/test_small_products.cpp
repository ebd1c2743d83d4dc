// numerics/train/small_products: every build of every kernel this CPU runs (AVX-512, AVX2, baseline x86-64), and the
// dispatched entry points, against a plain loop in the documented order, bit for bit, over random shapes, leading
// dimensions, starts and finishes: the instruction set must change the speed only.
#include "numerics/scalar/gelu.hpp"
#include "numerics/train/small_products.hpp"
#include "numerics/train/small_products_variants.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace infoflow;
using small_products::Finish;
using small_products::Start;

namespace {

// The kernels as plain loops, in the order small_products.hpp documents.
void reference_multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B,
                        std::int64_t ldb, double* C, std::int64_t ldc, Start start, const double* bias, Finish finish,
                        const double* gate) {
  for (std::int64_t j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double c = start == Start::Accumulate ? C[i + j * ldc] : start == Start::Bias ? bias[i] : 0.0;
      for (int kk = 0; kk < k; ++kk) c += A[i + kk * lda] * B[kk + j * ldb];
      if (finish == Finish::Relu) c = c < 0.0 ? 0.0 : c;
      if (finish == Finish::Gate) c = gate[i + j * ldc] > 0.0 ? c : 0.0;
      C[i + j * ldc] = c;
    }
}
void reference_multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp, const double* Q,
                                   std::int64_t ldq, double* G, std::int64_t ldg) {
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk)
      for (std::int64_t j = 0; j < n; ++j) G[i + kk * ldg] += P[i + j * ldp] * Q[kk + j * ldq];
}
void reference_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g) {
  for (int i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) g[i] += P[i + j * ldp];
}

using small_products::Kernels;

// The builds to compare: every one this CPU runs, named in each failure.
const std::vector<Kernels>& builds() {
  static const std::vector<Kernels> all = [] {
    auto b = small_products::runnable_kernels();
    std::string names;
    for (const auto& k : b) names += std::string(names.empty() ? "" : ", ") + k.instruction_set;
    std::fprintf(stderr, "small products: comparing the builds %s\n", names.c_str());
    return b;
  }();
  return all;
}

// Entries in [−1, 1], with exact zeros and, when asked, NaNs mixed in (the ReLU must keep a NaN).
std::vector<double> random_entries(std::size_t count, SplitMix64& rng, bool with_nan) {
  std::vector<double> v(count);
  for (auto& x : v) {
    const std::uint64_t kind = rng.uniform_index(16);
    x = kind == 0 ? 0.0 : kind == 1 && with_nan ? std::numeric_limits<double>::quiet_NaN() : rng.uniform(-1, 1);
  }
  return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  // (memcmp must not see the null data() of an empty vector, even for 0 bytes)
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

std::string first_difference(const std::vector<double>& got, const std::vector<double>& want) {
  std::ostringstream os;
  os.precision(17);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) {
      os << "entry " << i << ": " << got[i] << " against " << want[i] << std::hex << " (bits "
         << std::bit_cast<std::uint64_t>(got[i]) << " against " << std::bit_cast<std::uint64_t>(want[i]) << ")";
      break;
    }
  return os.str();
}

struct Shape {
  int m, k;
  std::int64_t n, lda, ldb, ldc;
};

Shape random_shape(SplitMix64& rng) {
  Shape s;
  // One shape in four is long: the kernels cut n into passes of 16 to 4096 columns (fewer the more rows m + k), and
  // only a long shape crosses from one pass into the next.
  const bool long_shape = rng.uniform_index(4) == 0;
  s.m = 1 + static_cast<int>(rng.uniform_index(long_shape ? 300 : 31));  // blocks of 16, 8, 4, 2 and 1 rows
  s.k = 1 + static_cast<int>(rng.uniform_index(19));  // transposed tiles of 8, 4, 2 and 1 columns, in every mix
  s.n = static_cast<std::int64_t>(rng.uniform_index(long_shape ? 700 : 38));  // 0, every remainder of the blocks
  s.lda = s.m + static_cast<std::int64_t>(rng.uniform_index(3));
  s.ldb = s.k + static_cast<std::int64_t>(rng.uniform_index(3));
  s.ldc = s.m + static_cast<std::int64_t>(rng.uniform_index(3));
  return s;
}

std::string describe(const Shape& s, int start, int finish) {
  std::ostringstream os;
  os << "m " << s.m << ", k " << s.k << ", n " << s.n << ", lda " << s.lda << ", ldb " << s.ldb << ", ldc " << s.ldc
     << ", start " << start << ", finish " << finish;
  return os.str();
}

}  // namespace

TEST_CASE("small products: multiply equals the plain loop and every instruction set, bit for bit", "[train]") {
  auto rng = test::rng_for("small-products-multiply");
  const int cases = 400 * test::multiplier();
  for (int c = 0; c < cases; ++c) {
    const Shape s = random_shape(rng);
    const auto start = static_cast<Start>(rng.uniform_index(3));
    const auto finish = static_cast<Finish>(rng.uniform_index(3));
    const std::vector<double> A = random_entries(static_cast<std::size_t>(s.lda * s.k), rng, false);
    const std::vector<double> B = random_entries(static_cast<std::size_t>(s.ldb * s.n), rng, finish == Finish::Relu);
    const std::vector<double> bias = random_entries(static_cast<std::size_t>(s.m), rng, false);
    const std::vector<double> gate = random_entries(static_cast<std::size_t>(s.ldc * s.n), rng, false);
    const std::vector<double> C0 = random_entries(static_cast<std::size_t>(s.ldc * s.n), rng, false);
    INFO(describe(s, static_cast<int>(start), static_cast<int>(finish)));
    std::vector<double> want = C0, got = C0;
    reference_multiply(s.m, s.k, s.n, A.data(), s.lda, B.data(), s.ldb, want.data(), s.ldc, start, bias.data(), finish,
                       gate.data());
    small_products::multiply(s.m, s.k, s.n, A.data(), s.lda, B.data(), s.ldb, got.data(), s.ldc, start, bias.data(),
                             finish, gate.data());
    INFO("dispatched: " << first_difference(got, want));
    REQUIRE(same_bits(got, want));  // also: the padding rows between m and ldc are untouched
    for (const Kernels& build : builds()) {
      std::vector<double> C = C0;
      build.multiply(s.m, s.k, s.n, A.data(), s.lda, B.data(), s.ldb, C.data(), s.ldc, start, bias.data(), finish,
                     gate.data());
      INFO(build.instruction_set << ": " << first_difference(C, want));
      REQUIRE(same_bits(C, want));
    }
  }
}

TEST_CASE("small products: a ReLU keeps a NaN and the gate passes nothing where its entry is a NaN or zero", "[train]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double A[2] = {1.0, -1.0}, B[1] = {nan}, bias[2] = {0.0, 0.0};
  double C[2] = {7.0, 7.0};
  small_products::multiply(2, 1, 1, A, 2, B, 1, C, 2, Start::Zero, bias, Finish::Relu, nullptr);
  REQUIRE(std::isnan(C[0]));
  REQUIRE(std::isnan(C[1]));
  const double B2[1] = {2.0}, gate[2] = {nan, 0.0};
  small_products::multiply(2, 1, 1, A, 2, B2, 1, C, 2, Start::Zero, nullptr, Finish::Gate, gate);
  REQUIRE(C[0] == 0.0);
  REQUIRE(C[1] == 0.0);
  const double gate_open[2] = {0.5, 3.0};
  small_products::multiply(2, 1, 1, A, 2, B2, 1, C, 2, Start::Zero, nullptr, Finish::Gate, gate_open);
  REQUIRE(C[0] == 2.0);
  REQUIRE(C[1] == -2.0);
}

TEST_CASE("small products: multiply_transposed and row sums equal the plain loops and every instruction set", "[train]") {
  auto rng = test::rng_for("small-products-transposed");
  const int cases = 400 * test::multiplier();
  for (int c = 0; c < cases; ++c) {
    const Shape s = random_shape(rng);
    // P is m × n (leading dimension lda), Q is k × n (ldb), G is m × k (ldc).
    const std::vector<double> P = random_entries(static_cast<std::size_t>(s.lda * s.n), rng, false);
    const std::vector<double> Q = random_entries(static_cast<std::size_t>(s.ldb * s.n), rng, false);
    const std::vector<double> G0 = random_entries(static_cast<std::size_t>(s.ldc * s.k), rng, false);
    INFO(describe(s, -1, -1));
    std::vector<double> want = G0, got = G0;
    reference_multiply_transposed(s.m, s.k, s.n, P.data(), s.lda, Q.data(), s.ldb, want.data(), s.ldc);
    small_products::multiply_transposed(s.m, s.k, s.n, P.data(), s.lda, Q.data(), s.ldb, got.data(), s.ldc);
    INFO("dispatched: " << first_difference(got, want));
    REQUIRE(same_bits(got, want));
    const std::vector<double> g0 = random_entries(static_cast<std::size_t>(s.m), rng, false);
    std::vector<double> sums_want = g0, sums_got = g0;
    reference_row_sums(s.m, s.n, P.data(), s.lda, sums_want.data());
    small_products::add_row_sums(s.m, s.n, P.data(), s.lda, sums_got.data());
    REQUIRE(same_bits(sums_got, sums_want));
    for (const Kernels& build : builds()) {
      std::vector<double> G = G0, sums = g0;
      build.multiply_transposed(s.m, s.k, s.n, P.data(), s.lda, Q.data(), s.ldb, G.data(), s.ldc);
      build.add_row_sums(s.m, s.n, P.data(), s.lda, sums.data());
      INFO(build.instruction_set << ": " << first_difference(G, want) << "; row sums: " << first_difference(sums, sums_want));
      REQUIRE(same_bits(G, want));
      REQUIRE(same_bits(sums, sums_want));
    }
  }
}

namespace {

// Distance in units in the last place between two finite doubles of the same sign (or both zero).
std::int64_t ulps_apart(double a, double b) {
  std::int64_t ia, ib;
  std::memcpy(&ia, &a, sizeof a);
  std::memcpy(&ib, &b, sizeof b);
  return ia > ib ? ia - ib : ib - ia;
}

}  // namespace

TEST_CASE("small products: exponentials are within 2 ulp of std::exp, and the same bits on every instruction set",
          "[train]") {
  auto rng = test::rng_for("small-products-exp");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> x = {0.0, -0.0, 1.0, -1.0, 0.5 * std::log(2.0), -0.5 * std::log(2.0), 1e-300, -1e-300,
                           -708.0, -708.5, -709.0, -740.0, -744.0, -745.0, -745.13, -745.2, -746.0, -746.5, -1e6,
                           709.0, 709.7, 709.78, 709.79, 710.0, 710.5, 1e6, -inf, inf, nan};
  const int random = 20000 * test::multiplier();
  for (int i = 0; i < random; ++i) x.push_back(rng.uniform(-760, 720));
  for (int i = 0; i < random; ++i) x.push_back(rng.uniform(-1, 1));  // where the softmax spends its time
  std::vector<double> got = x;
  small_products::exponentials(static_cast<std::int64_t>(got.size()), got.data());
  for (const Kernels& build : builds()) {
    std::vector<double> y = x;
    build.exponentials(static_cast<std::int64_t>(y.size()), y.data());
    INFO(build.instruction_set << ": " << first_difference(y, got));
    REQUIRE(same_bits(y, got));
  }
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(x[i]);
    std::ostringstream os;
    os.precision(17);
    os << "exp(" << x[i] << "): " << got[i] << ", std::exp " << want;
    INFO(os.str());
    if (std::isnan(want)) {
      REQUIRE(std::isnan(got[i]));
    } else if (std::isinf(want) || want == 0.0) {
      REQUIRE(got[i] == want);
    } else {
      const std::int64_t d = ulps_apart(got[i], want);
      worst = std::max(worst, d);
      REQUIRE(d <= 2);
    }
  }
  WARN("largest distance from std::exp: " << worst << " ulp over " << x.size() << " arguments");
}

TEST_CASE("small products: GeLU units within 10.5 ulp of MPFR's x·Φ(x) and Φ(x) + x·φ(x), the same bits on every "
          "instruction set", "[train][gelu]") {
  auto rng = test::rng_for("small-products-gelu");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Kinks of the kernel's route: 0 (Φ's two formulas), the turning point x* = −0.7518, a = K = 5 (t = 0), the clamp at
  // |x| = 40, the underflow of φ near 38.6; and ±∞, NaN.
  // A NaN with its sign bit and a payload set must come back with those bits, value and slope, on every path.
  const double marked_nan = std::bit_cast<double>(std::uint64_t{0xfff8'0000'0000'1234});
  std::vector<double> x = {0.0, -0.0, 1e-300, -1e-300, 1e-17, -1e-17, -0.7517916243, 5.0, -5.0, 26.5, -26.5, 37.5,
                           -37.5, 38.5, -38.5, 38.6, -38.6, 39.9, -40.0, 40.0, -41.0, 1e6, -1e6, inf, -inf, nan,
                           marked_nan};
  const std::size_t special = x.size();
  const int random = 4000 * test::multiplier();
  for (int i = 0; i < random; ++i) x.push_back(rng.uniform(-3, 3));  // where the units' pre-activations live
  for (int i = 0; i < random; ++i) x.push_back(rng.uniform(-39, 39));
  std::vector<double> value = x, slope(x.size());
  small_products::gelu_and_slopes(static_cast<std::int64_t>(x.size()), value.data(), slope.data());
  for (const Kernels& build : builds()) {
    std::vector<double> v = x, s(x.size());
    build.gelu_and_slopes(static_cast<std::int64_t>(x.size()), v.data(), s.data());
    INFO(build.instruction_set << ": " << first_difference(v, value) << "; slopes " << first_difference(s, slope));
    REQUIRE(same_bits(v, value));
    REQUIRE(same_bits(s, slope));
    // The kinks and special values above went through the kernel's widest path (several vectors at once); the same
    // arguments one at a time (the one-lane path) and in runs of 2, 4 and 8 (a single vector of the SSE2, AVX2 and
    // AVX-512 builds) give the same bits. x has random entries after the special ones, so every run is full.
    for (const std::size_t run : {std::size_t{2}, std::size_t{4}, std::size_t{8}})
      for (std::size_t first = 0; first < special; first += run) {
        const auto from = static_cast<std::ptrdiff_t>(first), to = static_cast<std::ptrdiff_t>(first + run);
        std::vector<double> v_run(x.begin() + from, x.begin() + to), s_run(run);
        build.gelu_and_slopes(static_cast<std::int64_t>(run), v_run.data(), s_run.data());
        const std::vector<double> want(value.begin() + from, value.begin() + to);
        const std::vector<double> want_slope(slope.begin() + from, slope.begin() + to);
        INFO("a run of " << run << " from x[" << first << "]: " << first_difference(v_run, want) << "; slopes "
                         << first_difference(s_run, want_slope));
        REQUIRE(same_bits(v_run, want));
        REQUIRE(same_bits(s_run, want_slope));
      }
    for (std::size_t i = 0; i < special; ++i) {
      std::vector<double> v1{x[i]}, s1(1);
      build.gelu_and_slopes(1, v1.data(), s1.data());
      INFO("x = " << x[i] << " alone: " << first_difference(v1, {value[i]}) << "; slope "
                  << first_difference(s1, {slope[i]}));
      REQUIRE(same_bits(v1, std::vector<double>{value[i]}));
      REQUIRE(same_bits(s1, std::vector<double>{slope[i]}));
    }
  }
  // Against 256-bit MPFR (an independent route: erfc and exp of MPFR, not the kernel's Mills series). The budget,
  // docs/training.md ("GeLU units"): Φ's tail is within 10 ulp relatively, so σ = x·Φ within 10.5 ulp of |σ|;
  // σ' = Φ + x·φ cancels near x*, so its error is measured against the scale Φ + |x|·φ of its two terms.
  const double ulp = std::ldexp(1.0, -52);
  double worst_value = 0, worst_slope = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::ostringstream os;
    os.precision(17);
    os << "x = " << x[i] << ": σ " << value[i] << ", σ' " << slope[i];
    INFO(os.str());
    if (std::isnan(x[i])) {  // the argument's own bits, so that no path's choice between two NaNs shows
      CHECK(same_bits({value[i], slope[i]}, {x[i], x[i]}));
      continue;
    }
    if (std::isinf(x[i])) {  // the scalar gelu_and_slope's values (∞·0 where it takes one)
      double want_slope;
      const double want = gelu_and_slope(x[i], want_slope);
      CHECK((std::isnan(want) ? std::isnan(value[i]) : value[i] == want));
      CHECK((std::isnan(want_slope) ? std::isnan(slope[i]) : slope[i] == want_slope));
      continue;
    }
    const mpfr::mpreal mx(x[i], 256), half(0.5, 256);
    const mpfr::mpreal cdf = half * mpfr::erfc(-mx / mpfr::sqrt(mpfr::mpreal(2, 256)));
    const mpfr::mpreal density = mpfr::exp(-half * mx * mx) / mpfr::sqrt(2 * mpfr::const_pi(256));
    const mpfr::mpreal want = mx * cdf, want_slope = cdf + mx * density;
    const mpfr::mpreal scale = mpfr::abs(want), slope_scale = cdf + mpfr::abs(mx) * density;
    // Where φ is subnormal (|x| > 37.5), each of the four roundings from e^{−hi²/2} to σ' adds up to half the least
    // subnormal absolutely, then multiplied by at most |x| (the factor of φ in σ and σ'): an absolute allowance on top.
    const double subnormal_allowance = 4 * (1 + std::abs(x[i])) * std::numeric_limits<double>::denorm_min();
    const mpfr::mpreal error = mpfr::abs(mpfr::mpreal(value[i], 256) - want),
                       slope_error = mpfr::abs(mpfr::mpreal(slope[i], 256) - want_slope);
    CHECK(error <= 10.5 * ulp * scale + subnormal_allowance);
    CHECK(slope_error <= 10.5 * ulp * slope_scale + subnormal_allowance);
    if (std::abs(x[i]) < 37.5 && x[i] != 0) {  // φ(x) normal: the relative figures
      worst_value = std::max(worst_value, (error / scale).toDouble() / ulp);
      worst_slope = std::max(worst_slope, (slope_error / slope_scale).toDouble() / ulp);
    }
  }
  WARN("largest errors against MPFR where φ(x) is normal: σ " << worst_value << " ulp, σ' " << worst_slope
                                                                 << " ulp of Φ + |x|φ, over " << x.size() << " arguments");
}

TEST_CASE("small products: dot sums in its documented order, the same bits on every instruction set", "[train]") {
  auto rng = test::rng_for("small-products-dot");
  const int cases = 300 * test::multiplier();
  for (int c = 0; c < cases; ++c) {
    const auto n = static_cast<std::int64_t>(rng.uniform_index(70));
    const std::vector<double> a = random_entries(static_cast<std::size_t>(n), rng, false);
    const std::vector<double> b = random_entries(static_cast<std::size_t>(n), rng, false);
    double part[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tail = 0;
    const std::int64_t body = n / 8 * 8;
    for (std::int64_t i = 0; i < body; ++i) part[i % 8] += a[i] * b[i];
    for (std::int64_t i = body; i < n; ++i) tail += a[i] * b[i];
    const double want = (((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]))) + tail;
    const std::vector<double> got{small_products::dot(n, a.data(), b.data())}, expected{want};
    INFO("n " << n << ": " << first_difference(got, expected));
    REQUIRE(same_bits(got, expected));
    for (const Kernels& build : builds()) {
      INFO(build.instruction_set);
      REQUIRE(same_bits(std::vector<double>{build.dot(n, a.data(), b.data())}, expected));
    }
  }
}

TEST_CASE("small products: the entry points use the widest build this CPU runs", "[train]") {
  const auto runnable = small_products::runnable_kernels();
  REQUIRE(!runnable.empty());
  CHECK(std::string(small_products::dispatched_kernels().instruction_set) == runnable.front().instruction_set);
#if defined(__x86_64__)
  // What the CPU has decides what runs: a build the CPU cannot run must not be listed, one it can must be.
  CHECK((std::string(runnable.front().instruction_set) == "avx512f") == static_cast<bool>(__builtin_cpu_supports("avx512f")));
  bool has_avx2 = false;
  for (const auto& k : runnable) has_avx2 |= std::string(k.instruction_set) == "avx2";
  CHECK(has_avx2 == static_cast<bool>(__builtin_cpu_supports("avx2")));
  CHECK(std::string(runnable.back().instruction_set) == "x86-64 baseline (SSE2)");
#endif
}

TEST_CASE("small products: the row softmax and its reverse sweep follow their documented order, the same bits on every "
          "instruction set", "[train]") {
  auto rng = test::rng_for("small-products-softmax-rows");
  const int cases = 300 * test::multiplier();
  for (int c = 0; c < cases; ++c) {
    const int rows = 1 + static_cast<int>(rng.uniform_index(19)), cols = static_cast<int>(rng.uniform_index(38));
    const std::int64_t lds = rows + static_cast<std::int64_t>(rng.uniform_index(3));
    const std::int64_t ldp = rows + static_cast<std::int64_t>(rng.uniform_index(3));
    const std::int64_t ldd = rows + static_cast<std::int64_t>(rng.uniform_index(3));
    // Temperatures from mild to sharp (exponentials that underflow to 0), NaN scores now and then.
    const double beta = std::pow(10.0, rng.uniform(-1, 3));
    const std::vector<double> S = random_entries(static_cast<std::size_t>(lds * cols), rng, c % 5 == 0);
    const std::vector<double> P0 = random_entries(static_cast<std::size_t>(ldp * cols), rng, false);
    const std::vector<double> D0 = random_entries(static_cast<std::size_t>(ldd * cols), rng, c % 7 == 0);
    // The documented order, as plain loops: the maximum as std::max takes it, the exponentials of `exponentials`,
    // the sum for j = 0, 1, … in turn, then each entry divided by it.
    std::vector<double> want_p = P0, want_d = D0;
    for (int i = 0; i < rows; ++i) {
      double top = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < cols; ++j) top = std::max(top, beta * S[i + j * lds]);
      std::vector<double> e(static_cast<std::size_t>(cols));
      for (int j = 0; j < cols; ++j) e[j] = beta * S[i + j * lds] - top;
      small_products::exponentials(cols, e.data());
      double sum = 0;
      for (int j = 0; j < cols; ++j) sum += e[j];
      for (int j = 0; j < cols; ++j) want_p[i + j * ldp] = e[j] / sum;
      double mean = 0;
      for (int j = 0; j < cols; ++j) mean += want_p[i + j * ldp] * want_d[i + j * ldd];
      for (int j = 0; j < cols; ++j) want_d[i + j * ldd] = want_p[i + j * ldp] * (want_d[i + j * ldd] - mean);
    }
    const auto check = [&](const char* name, decltype(&small_products::softmax_rows) softmax,
                           decltype(&small_products::softmax_rows_backward) backward) {
      INFO(name << ": rows " << rows << ", cols " << cols << ", lds " << lds << ", ldp " << ldp << ", ldd " << ldd
                << ", beta " << beta);
      std::vector<double> p = P0, d = D0;
      softmax(beta, rows, cols, S.data(), lds, p.data(), ldp);
      INFO("softmax: " << first_difference(p, want_p));
      REQUIRE(same_bits(p, want_p));  // also: the padding rows between rows and ldp are untouched
      backward(rows, cols, p.data(), ldp, d.data(), ldd);
      INFO("reverse sweep: " << first_difference(d, want_d));
      REQUIRE(same_bits(d, want_d));
    };
    check("dispatched", &small_products::softmax_rows, &small_products::softmax_rows_backward);
    for (const Kernels& build : builds()) check(build.instruction_set, build.softmax_rows, build.softmax_rows_backward);
  }
}
