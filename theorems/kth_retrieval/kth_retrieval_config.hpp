#pragma once
// What Theorem 2's suite runs, per profile, after the command-line options are applied.
#include "theorems/common/single_layer_study.hpp"

#include <vector>

namespace infoflow {

struct KthRetrievalConfig {
  std::vector<int> argmax_T;  // k = 1 construction sweep (up to 1024)
  std::vector<double> eps;
  int random_samples = 16;
  int worst_case_members = 3;
  std::vector<int> ks;     // fitted k values
  std::vector<int> fit_T;
  std::vector<int> head_dims;
  std::vector<double> l3_values{0.0, 0.5, 0.9};
  std::vector<double> beta_grid;  // L3: 0 and a log grid up to 1e4
  SingleLayerStudySettings study;
  std::vector<int> class_T;  // the certified order-statistic class bound (docs/lower-bounds.md §5)
  /// certify's soundness campaign (docs/certify.md §4.1): full 100 triples, nightly 1000; the quick profile leaves it to
  /// the test suite (tests/test_certify.cpp), which runs it at 24 and 30 triples.
  long soundness_triples = 0;
};

/// Throws InputError naming the option (--k, --T, --argmax-T, --eps, --n, --p); k > T is an error.
KthRetrievalConfig kth_retrieval_config(const SuiteContext& ctx);
std::vector<SuiteOption> kth_retrieval_options();

}  // namespace infoflow
