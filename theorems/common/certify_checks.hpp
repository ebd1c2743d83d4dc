#pragma once
// Suite checks on `certify`: two routes to a construction's sup error (docs/certify.md §4), and the float64 rounding
// bound against 256-bit MPFR (§2.1). The search and the checker they judge are in numerics/certify/certify_model.hpp.
#include "numerics/model/model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace infoflow {

/// Two independent routes to one model's sup error (docs/certify.md §4): branch-and-bound (any model) against a
/// lemma-composed certificate (the construction's own proof) and sampled errors. Fails when the attained lower bound
/// exceeds the lemma certificate (one of them is wrong) or the certified upper bound is below a sampled error;
/// reports how close the two certified bounds are.
struct CertifyAgreementCase {
  std::string name;                // e.g. "thm1 construction T=2 d=2 eps=0.1"
  Model model;
  std::string target;
  int T = 0;
  double lemma_bound = 0;          // certified by the lemmas
  double sampled_max = 0;          // the largest sampled |model − F|
  long max_boxes = 4000;           // deterministic budget
  std::uint64_t seed = 0;          // of the enclosure audit's random boxes and points
};
struct Check;
Check certify_agreement_check(const std::string& id, const std::vector<CertifyAgreementCase>& cases);

/// The float64 rounding bound (double_execution.hpp) against 256-bit MPFR: for each model, the largest rounding the
/// search of observed_double_rounding finds over the box [0, 1]^{T·d} must not exceed the certified bound over the
/// box, nor the bound on the degenerate box of the input where it was found (where the analysis is tightest).
struct RoundingCase {
  std::string name;
  Model model;
  int T = 0;
  long samples = 2000;             // MPFR forward passes of the search
  std::uint64_t seed = 0;
};
Check rounding_bound_check(const std::string& id, const std::vector<RoundingCase>& cases);
/// One head, weights <= 1e3, beta = 5000, whose float64 rounding is ~1e-4 where two logits nearly tie: the reference
/// case of the rounding bound (no sound bound on such a model can be below that, docs/certify.md §2.1).
Model near_tie_head();

/// The largest |model − F| over `count` uniform inputs of [0,1]^{T·d} (double; seeded).
double sampled_sup_error(const Model& model, const std::string& target, int T, int count, std::uint64_t seed);

}  // namespace infoflow
