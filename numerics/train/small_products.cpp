#include "numerics/train/small_products.hpp"

#include <cstring>

// The x86 clones of the entry points (small_products.hpp); elsewhere one portable build.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define INFOFLOW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define INFOFLOW_CLONES
#endif
#define INFOFLOW_INLINE [[gnu::always_inline]] inline

namespace infoflow::small_products {

namespace {

// W doubles side by side (GCC's vector extension). Each clone lowers it to the registers it has: one zmm, two ymm or
// four xmm for W = 8. Lanes are independent: a vector operation is W scalar operations, each rounded as such.
template <int W>
struct LanesOf;
template <>
struct LanesOf<8> {
  typedef double type __attribute__((vector_size(64)));
};
template <>
struct LanesOf<4> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct LanesOf<2> {
  typedef double type __attribute__((vector_size(16)));
};
template <>
struct LanesOf<1> {
  typedef double type;
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

}  // namespace

INFOFLOW_CLONES void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B,
                              std::int64_t ldb, double* C, std::int64_t ldc, Start start, const double* bias,
                              Finish finish, const double* gate) {
  int r = 0;
  for (; r + 8 <= m; r += 8) multiply_block<8, 1>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate);
  if (r + 4 <= m) multiply_block<4, 2>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate), r += 4;
  if (r + 2 <= m) multiply_block<2, 4>(k, n, r, A, lda, B, ldb, C, ldc, bias, start, finish, gate), r += 2;
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

INFOFLOW_CLONES void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g) {
  int r = 0;
  for (; r + 8 <= m; r += 8) add_row_sums_block<8>(n, r, P, ldp, g);
  if (r + 4 <= m) add_row_sums_block<4>(n, r, P, ldp, g), r += 4;
  if (r + 2 <= m) add_row_sums_block<2>(n, r, P, ldp, g), r += 2;
  if (r < m) add_row_sums_block<1>(n, r, P, ldp, g);
}

}  // namespace infoflow::small_products
