#pragma once
// numerics/train/small_products.cpp built again as single variants, each in a namespace of its own, so that a test can
// compare them bit for bit with the dispatched entry points: the baseline x86-64 (SSE2) build and the AVX2 build.
#include "numerics/train/small_products.hpp"

#define INFOFLOW_DECLARE_SMALL_PRODUCTS(ns)                                                                            \
  namespace infoflow::ns {                                                                                            \
  void multiply(int m, int k, std::int64_t n, const double* A, std::int64_t lda, const double* B, std::int64_t ldb,   \
                double* C, std::int64_t ldc, small_products::Start start, const double* bias,                        \
                small_products::Finish finish, const double* gate);                                                  \
  void multiply_transposed(int m, int k, std::int64_t n, const double* P, std::int64_t ldp, const double* Q,          \
                           std::int64_t ldq, double* G, std::int64_t ldg);                                           \
  void add_row_sums(int m, std::int64_t n, const double* P, std::int64_t ldp, double* g);                             \
  void exponentials(std::int64_t n, double* x);                                                                       \
  double dot(std::int64_t n, const double* a, const double* b);                                                       \
  }

INFOFLOW_DECLARE_SMALL_PRODUCTS(small_products_baseline)
INFOFLOW_DECLARE_SMALL_PRODUCTS(small_products_avx2)
