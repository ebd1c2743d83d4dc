// numerics/fit/witness_search.cpp and numerics/lemmas/lipschitz_witness.cpp: a found pair certifies in arb.
#include "numerics/fit/witness_search.hpp"
#include "numerics/lemmas/lipschitz_witness.hpp"
#include "numerics/model/sampled_error.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"
#include "theorems/common/single_layer_study.hpp"
#include "theorems/depth_separation/min_dot_target.hpp"

#include <catch2/catch.hpp>

using namespace infoflow;

TEST_CASE("A witness found by the search is certified in arb", "[thm1][witness]") {
  auto rng = test::rng_for("witness");
  const Model m = random_model(single_layer_fit_architecture(2, 3, 1, 4), rng, 0.3);
  const Target F = min_pairwise_dot_target();
  const double eps = 0.05;
  WitnessSearchOptions o;
  o.candidates = 300;
  o.refine = 2;
  o.seed = test::seed();
  const WitnessPair pair = search_witness(m, F, 3, eps, o);
  REQUIRE(pair.found);
  REQUIRE(pair.target_gap >= 3 * eps);
  const ArbBall F1 = F(convert_sequence<ArbBall>(pair.X1, Precision{128})), F2 = F(convert_sequence<ArbBall>(pair.X2, Precision{128}));
  const WitnessCertificate c = certify_witness(m, pair.X1, pair.X2, F1, F2, eps, 128);
  REQUIRE(c.valid);
  REQUIRE(c.state_distance_upper >= pair.state_distance - 1e-12);
  for (const auto& X : {pair.X1, pair.X2})
    for (const auto& x : X)
      for (double v : x) REQUIRE((v >= 0.0 && v <= 1.0));
}
