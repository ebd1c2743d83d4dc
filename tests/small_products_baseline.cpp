// The kernels of numerics/train/small_products.cpp as one baseline x86-64 build (tests/small_products_variants.hpp).
#include "small_products_variants.hpp"
#define INFOFLOW_SMALL_PRODUCTS_VARIANT small_products_baseline
#include "numerics/train/small_products.cpp"
