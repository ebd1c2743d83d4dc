#include "numerics/train/small_products.hpp"

// Only C-level headers here: the tests include this file again and compile it with -mavx2 (tests/CMakeLists.txt), and
// an inline function or template from a C++ header (<vector>, <algorithm>) instantiated there could be the copy the
// linker keeps for the whole test binary, then run on a CPU without AVX2.
#include <cstring>

// The x86 clones of the entry points (small_products.hpp); elsewhere one portable build. A test builds this file again
// as a single variant in a namespace of its own (tests/small_products_variants.hpp), to compare the instruction sets.
#ifndef INFOFLOW_SMALL_PRODUCTS_VARIANT
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define INFOFLOW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef INFOFLOW_CLONES
#define INFOFLOW_CLONES
#endif
#define INFOFLOW_INLINE [[gnu::always_inline]] inline

namespace infoflow::INFOFLOW_SMALL_PRODUCTS_VARIANT {

using small_products::Finish;
using small_products::Start;

namespace {

// W doubles side by side (GCC's vector extension). Each clone lowers it to the registers it has: one zmm, two ymm or
// four xmm for W = 8. Lanes are independent: a vector operation is W scalar operations, each rounded as such.
template <int W>
struct LanesOf;
template <>
struct LanesOf<8> {
  typedef double type __attribute__((vector_size(64)));
  typedef long long Bits __attribute__((vector_size(64)));
  typedef unsigned long long UnsignedBits __attribute__((vector_size(64)));
};
template <>
struct LanesOf<4> {
  typedef double type __attribute__((vector_size(32)));
  typedef long long Bits __attribute__((vector_size(32)));
  typedef unsigned long long UnsignedBits __attribute__((vector_size(32)));
};
template <>
struct LanesOf<2> {
  typedef double type __attribute__((vector_size(16)));
  typedef long long Bits __attribute__((vector_size(16)));
  typedef unsigned long long UnsignedBits __attribute__((vector_size(16)));
};
template <>
struct LanesOf<1> {
  typedef double type;
  typedef long long Bits;
  typedef unsigned long long UnsignedBits;
};
template <int W>
using Lanes = typename LanesOf<W>::type;

template <int W>
INFOFLOW_INLINE Lanes<W> load(const double* p) {
  Lanes<W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <int W>
INFOFLOW_INLINE void store(double* p, Lanes<W> v) {
  std::memcpy(p, &v, sizeof v);
}

// Rows [r, r + MB) of C, JB columns at a time: the MB·JB sums stay in registers over the inner index, and several
// columns at once keep the adders busy when MB is small.
template <int MB, int JB>
INFOFLOW_INLINE std::int64_t multiply_rows(int k, std::int64_t n, int r, const double* A, std::int64_t lda,
                                           const double* B, std::int64_t ldb, double* C, std::int64_t ldc,
                                           const double* bias, Start start, Finish finish, const double* gate) {
  std::int64_t j = 0;
  for (; j + JB <= n; j += JB) {
    Lanes<MB> acc[JB];
    for (int jb = 0; jb < JB; ++jb)
      acc[jb] = start == Start::Accumulate ? load<MB>(C + (j + jb) * ldc + r)
                : start == Start::Bias     ? load<MB>(bias + r)
                                           : Lanes<MB>{};
    for (int kk = 0; kk < k; ++kk) {
      const Lanes<MB> a = load<MB>(A + kk * lda + r);
      for (int jb = 0; jb < JB; ++jb) acc[jb] += a * B[(j + jb) * ldb + kk];
    }
    for (int jb = 0; jb < JB; ++jb) {
      // max(x, 0) that keeps a NaN (x < 0 is false for it), as std::max(x, 0.0) does.
      if (finish == Finish::Relu) acc[jb] = acc[jb] < 0.0 ? Lanes<MB>{} : acc[jb];
      if (finish == Finish::Gate) acc[jb] = load<MB>(gate + (j + jb) * ldc + r) > 0.0 ? acc[jb] : Lanes<MB>{};
      store<MB>(C + (j + jb) * ldc + r, acc[jb]);
    }
  }
  return j;
}

template <int MB, int JB>
INFOFLOW_INLINE void multiply_block(int k, std::int64_t n, int r, const double* A, std::int64_t lda, const double* B,
                                    std::int64_t ldb, double* C, std::int64_t ldc, const double* bias, Start start,
                                    Finish finish, const double* gate) {
  const std::int64_t done = multiply_rows<MB, JB>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate);
  if (done < n)
    multiply_rows<MB, 1>(k, n - done, r, A, lda, B + done * ldb, ldb, C + done * ldc, ldc, bias, start, finish,
                         gate ? gate + done * ldc : nullptr);
}

// The MB × KB tile of G at (r, s) += P·Qᵀ, held in registers over all n columns.
template <int MB, int KB>
INFOFLOW_INLINE void multiply_transposed_tile(std::int64_t n, int r, int s, const double* P, std::int64_t ldp,
                                              const double* Q, std::int64_t ldq, double* G, std::int64_t ldg) {
  Lanes<MB> acc[KB];
  for (int kb = 0; kb < KB; ++kb) acc[kb] = load<MB>(G + (s + kb) * ldg + r);
  for (std::int64_t j = 0; j < n; ++j) {
    const Lanes<MB> p = load<MB>(P + j * ldp + r);
    for (int kb = 0; kb < KB; ++kb) acc[kb] += p * Q[j * ldq + s + kb];
  }
  for (int kb = 0; kb < KB; ++kb) store<MB>(G + (s + kb) * ldg + r, acc[kb]);
}

template <int MB>
INFOFLOW_INLINE void multiply_transposed_rows(int k, std::int64_t n, int r, const double* P, std::int64_t ldp,
                                              const double* Q, std::int64_t ldq, double* G, std::int64_t ldg) {
  int s = 0;
  for (; s + 4 <= k; s += 4) multiply_transposed_tile<MB, 4>(n, r, s, P, ldp, Q, ldq, G, ldg);
  if (s + 2 <= k) multiply_transposed_tile<MB, 2>(n, r, s, P, ldp, Q, ldq, G, ldg), s += 2;
  if (s < k) multiply_transposed_tile<MB, 1>(n, r, s, P, ldp, Q, ldq, G, ldg);
}

template <int MB>
INFOFLOW_INLINE void add_row_sums_block(std::int64_t n, int r, const double* P, std::int64_t ldp, double* g) {
  Lanes<MB> acc = load<MB>(g + r);
  for (std::int64_t j = 0; j < n; ++j) acc += load<MB>(P + j * ldp + r);
  store<MB>(g + r, acc);
}

// exp on W lanes from +, −, × and bit operations only, so that every clone gives the same bits. x = n·ln 2 + r with
// n = round(x / ln 2) and |r| ≤ ln(2)/2 (ln 2 in fdlibm's two parts, so that n·ln2_hi is exact); exp(r) by its Taylor
// polynomial to degree 13 (remainder below 1e-17 relative); 2^n as two factors, so that a result in the subnormals is
// rounded once. Within 2 ulp of std::exp (tests/test_small_products.cpp); 0 below −746, +∞ above 710, NaN for NaN.
template <int W>
INFOFLOW_INLINE Lanes<W> exp_lanes(Lanes<W> x) {
  using Bits = typename LanesOf<W>::Bits;
  constexpr double log2e = 1.4426950408889634, ln2_hi = 6.93147180369123816490e-01,
                   ln2_lo = 1.90821492927058770002e-10;
  constexpr double shifter = 6755399441055744.0;  // 1.5·2^52: adding it rounds to an integer, held in the low bits
  constexpr unsigned long long shifter_bits = 0x4338000000000000ULL;
  constexpr double inverse_factorial[14] = {1.0, 1.0, 0.5, 0.16666666666666666, 0.041666666666666664,
                                            0.008333333333333333, 0.001388888888888889, 0.0001984126984126984,
                                            2.48015873015873e-05, 2.7557319223985893e-06, 2.755731922398589e-07,
                                            2.505210838544172e-08, 2.08767569878681e-09, 1.6059043836821613e-10};
  const Lanes<W> shifted = x * log2e + shifter;
  const Lanes<W> n = shifted - shifter;
  const Lanes<W> r = (x - n * ln2_hi) - n * ln2_lo;
  Lanes<W> p = Lanes<W>{} + inverse_factorial[13];
  for (int d = 12; d >= 0; --d) p = p * r + inverse_factorial[d];
  // The integer work wraps (unsigned) or stays in range (signed), so lanes left over from x < −746 cannot overflow.
  using UnsignedBits = typename LanesOf<W>::UnsignedBits;
  UnsignedBits bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  const Bits k = (Bits)(bits - (UnsignedBits{} + shifter_bits));  // n as an integer, |n| ≤ 1077 where it is used
  const Bits half = k >> 1;  // arithmetic: rounds towards −∞
  const UnsignedBits high = (UnsignedBits)(half + 1023) << 52, low = (UnsignedBits)(k - half + 1023) << 52;
  Lanes<W> scale_high, scale_low;
  std::memcpy(&scale_high, &high, sizeof high);
  std::memcpy(&scale_low, &low, sizeof low);
  Lanes<W> y = p * scale_high * scale_low;
  y = x < -746.0 ? Lanes<W>{} : y;  // exp(x) < 2^-1076, half the least subnormal: 0 (and n would not fit)
  y = x > 710.0 ? Lanes<W>{} + __builtin_inf() : y;
  return y;
}

}  // namespace

INFOFLOW_CLONES void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B,
                              std::int64_t ldb, double* C, std::int64_t ldc, Start start, const double* bias,
                              Finish finish, const double* gate) {
  int r = 0;
  for (; r + 8 <= m; r += 8) multiply_block<8, 2>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate);
  if (r + 4 <= m) multiply_block<4, 4>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate), r += 4;
  if (r + 2 <= m) multiply_block<2, 8>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate), r += 2;
  if (r < m) multiply_block<1, 8>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate);
}

INFOFLOW_CLONES void multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp,
                                         const double* Q, std::int64_t ldq, double* G, std::int64_t ldg) {
  int r = 0;
  for (; r + 8 <= m; r += 8) multiply_transposed_rows<8>(k, n, r, P, ldp, Q, ldq, G, ldg);
  if (r + 4 <= m) multiply_transposed_rows<4>(k, n, r, P, ldp, Q, ldq, G, ldg), r += 4;
  if (r + 2 <= m) multiply_transposed_rows<2>(k, n, r, P, ldp, Q, ldq, G, ldg), r += 2;
  if (r < m) multiply_transposed_rows<1>(k, n, r, P, ldp, Q, ldq, G, ldg);
}

INFOFLOW_CLONES double dot(std::int64_t n, const double* a, const double* b) {
  Lanes<8> acc{};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) acc += load<8>(a + i) * load<8>(b + i);
  double tail = 0;
  for (; i < n; ++i) tail += a[i] * b[i];
  return (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) + tail;
}

INFOFLOW_CLONES void exponentials(std::int64_t n, double* x) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) store<8>(x + i, exp_lanes<8>(load<8>(x + i)));
  for (; i < n; ++i) x[i] = exp_lanes<1>(x[i]);
}

INFOFLOW_CLONES void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g) {
  int r = 0;
  for (; r + 8 <= m; r += 8) add_row_sums_block<8>(n, r, P, ldp, g);
  if (r + 4 <= m) add_row_sums_block<4>(n, r, P, ldp, g), r += 4;
  if (r + 2 <= m) add_row_sums_block<2>(n, r, P, ldp, g), r += 2;
  if (r < m) add_row_sums_block<1>(n, r, P, ldp, g);
}

}  // namespace infoflow::INFOFLOW_SMALL_PRODUCTS_VARIANT
