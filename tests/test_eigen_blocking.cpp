// Eigen's products block for the cache sizes the CPU reports, so without a pin the same build fits other models on
// another CPU (numerics/util/eigen_blocking.hpp). These tests stand in for "another CPU" by setting the sizes Eigen
// would have read there.
#include "numerics/fit/decoder_fitter.hpp"
#include "numerics/util/eigen_blocking.hpp"
#include "test_support.hpp"

#include <Eigen/Core>
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // TestEventListenerBase, for the listener below
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

namespace {

// Every test of this executable runs with the sizes the CLI pins, as the product does.
struct PinEigenCacheSizes : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(Catch::TestRunInfo const&) override { infoflow::pin_eigen_cache_sizes(); }
};

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// A Levenberg–Marquardt fit through Ceres (its JᵀJ is an Eigen product in the statically linked library): 400 samples
// of 2 outputs, so the product's inner dimension, 800, spans several panels at a small L1.
std::vector<double> decoder_fit_parameters() {
  auto rng = infoflow::test::rng_for("eigen-blocking-decoder");
  infoflow::DecoderData train;
  for (int i = 0; i < 400; ++i) {
    std::vector<double> v(4);
    for (double& x : v) x = rng.uniform(-1, 1);
    train.v.push_back(v);
    train.y.push_back({std::max(v[0], v[1]) * v[2], std::fabs(v[3] - v[0])});
  }
  infoflow::ModelFitOptions o;
  o.restarts = 1;
  o.max_iterations = 30;
  return infoflow::fit_ffn_decoder(4, 8, 2, train, {}, o).decoder.params;
}

}  // namespace

CATCH_REGISTER_LISTENER(PinEigenCacheSizes)

TEST_CASE("Eigen blocking: the pin overrides whatever cache sizes the CPU reported", "[eigen]") {
  Eigen::setCpuCacheSizes(4 * 1024, 64 * 1024, 1024 * 1024);
  infoflow::pin_eigen_cache_sizes();
  const infoflow::EigenCacheSizes pinned;
  CHECK(Eigen::l1CacheSize() == pinned.l1);
  CHECK(Eigen::l2CacheSize() == pinned.l2);
  CHECK(Eigen::l3CacheSize() == pinned.l3);
}

TEST_CASE("Eigen blocking: a Ceres fit gives the same bits whatever cache sizes the CPU reported", "[eigen]") {
  // Two CPUs: this one's pin, and a CPU with small caches, first unpinned (the defect), then pinned.
  infoflow::pin_eigen_cache_sizes();
  const std::vector<double> pinned = decoder_fit_parameters();
  Eigen::setCpuCacheSizes(4 * 1024, 64 * 1024, 1024 * 1024);
  const std::vector<double> small_caches = decoder_fit_parameters();
  infoflow::pin_eigen_cache_sizes();
  const std::vector<double> small_caches_pinned = decoder_fit_parameters();
  // The fit is sensitive to the blocking (else this test could not tell a missing pin), and the pin removes it.
  CHECK_FALSE(same_bits(pinned, small_caches));
  CHECK(same_bits(pinned, small_caches_pinned));
  if (!same_bits(pinned, small_caches_pinned))
    for (std::size_t i = 0; i < pinned.size(); ++i)
      std::fprintf(stderr, "parameter %zu: %.17g (pinned) %.17g (small caches, pinned)\n", i, pinned[i], small_caches_pinned[i]);
}
