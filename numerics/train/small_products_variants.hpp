#pragma once
// The builds of the kernels of small_products.hpp, one per instruction set, each in a namespace of its own
// (small_products_<set>.cpp): small_products.cpp dispatches to the widest this CPU runs, and the tests compare them
// with each other and with plain loops, bit for bit.
#include "numerics/train/small_products.hpp"

#include <vector>

#define INFOFLOW_DECLARE_SMALL_PRODUCTS(ns)                                                                            \
  namespace infoflow::ns {                                                                                            \
  void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B, std::int64_t ldb,   \
                double* C, std::int64_t ldc, small_products::Start start, const double* bias,                        \
                small_products::Finish finish, const double* gate);                                                  \
  void multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp, const double* Q,          \
                           std::int64_t ldq, double* G, std::int64_t ldg);                                           \
  void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g);                             \
  void exponentials(std::int64_t n, double* x);                                                                       \
  void gelu_and_slopes(std::int64_t n, double* x, double* slope);                                                     \
  double dot(std::int64_t n, const double* a, const double* b);                                                       \
  void softmax_rows(double beta, int rows, int cols, const double* S, std::int64_t lds, double* P, std::int64_t ldp); \
  void softmax_rows_backward(int rows, int cols, const double* P, std::int64_t ldp, double* D, std::int64_t ldd);     \
  }

INFOFLOW_DECLARE_SMALL_PRODUCTS(small_products_baseline)
#if defined(__x86_64__)
#define INFOFLOW_SMALL_PRODUCTS_X86 1
INFOFLOW_DECLARE_SMALL_PRODUCTS(small_products_avx2)
INFOFLOW_DECLARE_SMALL_PRODUCTS(small_products_avx512)
#endif

namespace infoflow::small_products {

/// One build of the kernels: its entry points, and the instruction set it was compiled for.
struct Kernels {
  const char* instruction_set;
  decltype(&small_products_baseline::multiply) multiply;
  decltype(&small_products_baseline::multiply_transposed) multiply_transposed;
  decltype(&small_products_baseline::add_row_sums) add_row_sums;
  decltype(&small_products_baseline::exponentials) exponentials;
  decltype(&small_products_baseline::gelu_and_slopes) gelu_and_slopes;
  decltype(&small_products_baseline::dot) dot;
  decltype(&small_products_baseline::softmax_rows) softmax_rows;
  decltype(&small_products_baseline::softmax_rows_backward) softmax_rows_backward;
};

/// The builds this CPU runs, the widest first: AVX-512, AVX2, baseline on x86-64; the one portable build elsewhere.
std::vector<Kernels> runnable_kernels();

/// The build the entry points of small_products.hpp use: runnable_kernels().front(), chosen once.
const Kernels& dispatched_kernels();

}  // namespace infoflow::small_products
