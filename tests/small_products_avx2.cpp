// The kernels of numerics/train/small_products.cpp as one AVX2 build (tests/small_products_variants.hpp; compiled with
// -mavx2, called only where the CPU has AVX2).
#include "small_products_variants.hpp"
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products_avx2
#include "numerics/train/small_products.cpp"
