// The list of suites. To add one, declare its SuiteInfo factory here and append it (theorems/README.md).
#include "theorems/suite.hpp"

namespace infoflow {

SuiteInfo lemmas_suite();
SuiteInfo depth_separation_suite();
SuiteInfo kth_retrieval_suite();
SuiteInfo framework_suite();
SuiteInfo experiments_suite();
SuiteInfo aggregation_decoding_suite();

const std::vector<SuiteInfo>& all_suites() {
  static const std::vector<SuiteInfo> suites = {
      lemmas_suite(),
      depth_separation_suite(),
      kth_retrieval_suite(),
      aggregation_decoding_suite(),
      framework_suite(),
      experiments_suite(),
  };
  return suites;
}

const SuiteInfo* find_suite(const std::string& id_or_alias) {
  for (const auto& s : all_suites())
    if (s.id == id_or_alias || s.alias == id_or_alias) return &s;
  return nullptr;
}

}  // namespace infoflow
