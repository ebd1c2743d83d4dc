// The entry points of small_products.hpp: each forwards to the widest build of the kernels this CPU runs
// (small_products_variants.hpp). The builds give the same bits, so the choice changes the speed only.
#include "numerics/train/small_products.hpp"

#include "numerics/train/small_products_variants.hpp"

namespace infoflow::small_products {

#define INFOFLOW_KERNELS_OF(ns, name)                                                                             \
  Kernels {                                                                                                           \
    name, &ns::multiply, &ns::multiply_transposed, &ns::add_row_sums, &ns::exponentials, &ns::gelu_and_slopes,       \
        &ns::dot, &ns::softmax_rows, &ns::softmax_rows_backward                                                       \
  }

std::vector<Kernels> runnable_kernels() {
  std::vector<Kernels> builds;
#ifdef INFOFLOW_SMALL_PRODUCTS_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) builds.push_back(INFOFLOW_KERNELS_OF(small_products_avx512, "avx512f"));
  if (__builtin_cpu_supports("avx2")) builds.push_back(INFOFLOW_KERNELS_OF(small_products_avx2, "avx2"));
  builds.push_back(INFOFLOW_KERNELS_OF(small_products_baseline, "x86-64 baseline (SSE2)"));
#else
  builds.push_back(INFOFLOW_KERNELS_OF(small_products_baseline, "portable"));
#endif
  return builds;
}

#undef INFOFLOW_KERNELS_OF

const Kernels& dispatched_kernels() {
  static const Kernels widest = runnable_kernels().front();
  return widest;
}

void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B, std::int64_t ldb,
              double* C, std::int64_t ldc, Start start, const double* bias, Finish finish, const double* gate) {
  dispatched_kernels().multiply(m, k, n, A, lda, B, ldb, C, ldc, start, bias, finish, gate);
}

void multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp, const double* Q,
                         std::int64_t ldq, double* G, std::int64_t ldg) {
  dispatched_kernels().multiply_transposed(m, k, n, P, ldp, Q, ldq, G, ldg);
}

void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g) {
  dispatched_kernels().add_row_sums(m, n, P, ldp, g);
}

double dot(std::int64_t n, const double* a, const double* b) { return dispatched_kernels().dot(n, a, b); }

void exponentials(std::int64_t n, double* x) { dispatched_kernels().exponentials(n, x); }

void gelu_and_slopes(std::int64_t n, double* x, double* slope) { dispatched_kernels().gelu_and_slopes(n, x, slope); }

void softmax_rows(double beta, int rows, int cols, const double* S, std::int64_t lds, double* P, std::int64_t ldp) {
  dispatched_kernels().softmax_rows(beta, rows, cols, S, lds, P, ldp);
}

void softmax_rows_backward(int rows, int cols, const double* P, std::int64_t ldp, double* D, std::int64_t ldd) {
  dispatched_kernels().softmax_rows_backward(rows, cols, P, ldp, D, ldd);
}

}  // namespace infoflow::small_products
