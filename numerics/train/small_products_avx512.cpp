// The kernels of small_products.hpp built for AVX-512 (AVX512F) (flags in numerics/CMakeLists.txt).
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products_avx512
#include "numerics/train/small_products_kernels.inc"
