#pragma once
// Theorem 3's three kinds of evidence (docs/theory.md §5): (a) the packing bound in arb and its fitted slope;
// (b) exact closest pairs of concrete aggregation maps over the ε-grid, certified in arb, against the packing
// bound, with the information loss of a linear map made explicit; (c) fitted decoders of the positional
// average map, whose apparent exponent should steepen as T0·d/E grows; (d) explicit decoders (the upper side).
#include "theorems/aggregation_decoding/decoding_config.hpp"

namespace infoflow {

void run_packing_bound(const DecodingConfig& cfg, const SuiteContext& ctx, SuiteResult& r);
void run_closest_pairs(const DecodingConfig& cfg, const SuiteContext& ctx, SuiteResult& r);
/// (d) Theorem 3's upper side: snake-lattice encoders with explicit decoders, certified in arb and counted.
void run_decoder_constructions(const DecodingConfig& cfg, const SuiteContext& ctx, SuiteResult& r);
void run_decoder_fits(const DecodingConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
