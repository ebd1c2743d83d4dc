// The kernels of small_products.hpp built for AVX2 (flags in numerics/CMakeLists.txt).
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products_avx2
#include "numerics/train/small_products_kernels.inc"
