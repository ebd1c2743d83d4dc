#include <catch2/catch.hpp>
#include "numerics/scalar/arb_ball.hpp"
TEST_CASE("placeholder") { REQUIRE(1 == 1); }
