#pragma once
// Eigen's matrix products split their inner dimension into panels whose sizes it derives from the cache sizes the CPU
// reports (cpuid, read once per process). Another panel size sums the same products in another order, so the same
// build gave other last bits on another CPU: Ceres's JᵀJ (Eigen, linked statically) in every Levenberg–Marquardt fit,
// and through 150 iterations of a non-convex fit those bits decide the fit (Theorem 3's decoder fits, seen on an AMD
// EPYC with a 32 KiB L1 against the 48 KiB of the machine that wrote reports/baselines/quick.json). Pinning the sizes
// makes every product sum in one order on every x86-64, so "same seed, same build, same report" holds across machines.
#include <cstddef>

namespace infoflow {

/// The cache sizes every Eigen product in the process blocks for (bytes): 48 KiB L1, 2 MiB L2, 32 MiB L3, those of
/// the machine on which the committed baselines were first written. Any fixed values give machine-independent
/// results; these keep those baselines' bits.
struct EigenCacheSizes {
  std::ptrdiff_t l1 = 48 * 1024, l2 = 2 * 1024 * 1024, l3 = 32 * 1024 * 1024;
};

/// Sets Eigen's blocking cache sizes to `EigenCacheSizes{}`, for Eigen's own products and for those inside the
/// statically linked Ceres (one Eigen instance per executable). Call it at the start of `main`, before any thread
/// starts (Eigen keeps the sizes in unsynchronised statics).
void pin_eigen_cache_sizes();

}  // namespace infoflow
