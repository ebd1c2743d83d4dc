#pragma once
// The matrix products of the batched trainer (numerics/train), where one side is a weight matrix of a few rows and
// columns and the other has a column per token of the block (hundreds to thousands). Eigen's general product packs
// both sides into blocks first and its kernel is built for large inner dimensions; here the inner dimension is 2 to
// 100 and packing costs as much as the arithmetic (perf, docs/training.md). These kernels run over the columns once
// and keep the short output column in registers.
//
// Run-time dispatch: the kernels are compiled for AVX-512, AVX2 and the baseline x86-64 (SSE2), and each entry point
// forwards to the widest build the CPU runs (small_products_variants.hpp), so the same binary runs everywhere. The
// result does not depend on the choice: every output entry is accumulated in one fixed order (documented per kernel),
// the vector units only compute independent entries side by side, and there is no fused multiply-add (the kernels are
// compiled with -ffp-contract=off: GCC would otherwise contract a*b + c in the AVX2 and AVX-512 builds).
// tests/test_small_products.cpp checks every build against plain loops in the documented order, bit for bit.
//
// All matrices are column-major raw arrays with a leading dimension, as in BLAS: entry (i, j) of A is A[i + j·lda]. The
// caller maps Eigen's storage (or a block of it) onto them.
#include <cstdint>

namespace infoflow::small_products {

/// Where the sums of multiply start: from zero, from a bias vector (the same m entries for every column), or from C.
enum class Start { Zero, Bias, Accumulate };

/// What multiply does to each entry before storing it: nothing; max(entry, 0) (a NaN stays NaN); or keep the entry
/// where the same entry of a gate matrix (m × n) is positive and store 0 elsewhere (the reverse sweep of a ReLU whose
/// output is the gate).
enum class Finish { None, Relu, Gate };

/// C = finish(start + A·B), for A m × k, B k × n and C m × n: entry (i, j) is start(i, j) + a(i, 0)·b(0, j) +
/// a(i, 1)·b(1, j) + …, added term by term in that order. `bias` (m entries) is read only when start is Start::Bias,
/// `gate` only when finish is Finish::Gate.
/// The gate has the layout of C (leading dimension ldc).
void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B, std::int64_t ldb,
              double* C, std::int64_t ldc, Start start, const double* bias = nullptr, Finish finish = Finish::None,
              const double* gate = nullptr);

/// G += P·Qᵀ: P is m × n, Q is k × n, G is m × k. Entry (i, kk) of G gets p(i, j)·q(kk, j) added for j = 0, 1, … in
/// turn.
void multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp, const double* Q,
                         std::int64_t ldq, double* G, std::int64_t ldg);

/// g += the row sums of P (m × n): g(i) gets p(i, 0), p(i, 1), … added in turn.
void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g);

/// Σ a[i]·b[i] in a fixed order: eight partial sums over i ≡ 0, …, 7 (mod 8) for the first 8⌊n/8⌋ terms, combined
/// pairwise ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)), then plus the remaining terms summed in turn.
double dot(std::int64_t n, const double* a, const double* b);

/// Row i of P = softmax(β · row i of S) for each row of the rows × cols matrix S: p(i, j) = e^{β s(i, j) − m_i} / Σ_j′
/// e^{β s(i, j′) − m_i}, where m_i is the row's largest β s(i, j) (NaNs passed over, as std::max passes them), each
/// exponential that of `exponentials`, the sum added for j = 0, 1, … in turn, and each entry then divided by it. The
/// rows run side by side in the vector lanes, so one row's sum is one lane's chain and the order stays the
/// documented one: row i gets exactly the bits a scalar loop over j gives.
void softmax_rows(double beta, int rows, int cols, const double* S, std::int64_t lds, double* P, std::int64_t ldp);

/// The reverse sweep of softmax_rows, row by row: with P its output and D = d/dP on entry, D becomes d/d(β S):
/// d(i, j) = p(i, j)·(d(i, j) − μ_i) for μ_i = Σ_j p(i, j)·d(i, j), summed for j = 0, 1, … in turn.
void softmax_rows_backward(int rows, int cols, const double* P, std::int64_t ldp, double* D, std::int64_t ldd);

/// x[i] = σ(x[i]) and slope[i] = σ'(x[i]) for i < n, σ the GeLU unit x·Φ(x) (numerics/scalar/gelu.hpp): the trainers'
/// forward sweep keeps the slopes for the reverse one. Within a few ulp of the exact values (docs/training.md, "GeLU
/// units"; tests/test_small_products.cpp against MPFR) and the same bits on every instruction set; a NaN argument
/// comes back as itself (its own bits, value and slope), and at ±∞ the values of the scalar gelu_and_slope.
void gelu_and_slopes(std::int64_t n, double* x, double* slope);

/// x[i] = exp(x[i]) for i < n, within 2 ulp of std::exp and the same bits on every instruction set: 0 below −746,
/// +∞ above 710, NaN for NaN.
void exponentials(std::int64_t n, double* x);

}  // namespace infoflow::small_products
