// The kernels of small_products.hpp built for the baseline x86-64 (SSE2), or the one portable build elsewhere (flags in numerics/CMakeLists.txt).
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products_baseline
#include "numerics/train/small_products_kernels.inc"
