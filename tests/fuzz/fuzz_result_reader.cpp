// Fuzzes the result and baseline reader (report --results, regress --baseline): either a result that
// writes back to JSON and reads again, or InputError.
#include "fuzz_check.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "reports/result.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto j = infoflow::parse_json_text(text, "--results", "fuzz input");
    const infoflow::SuiteResult r = infoflow::suite_result_from_json(j);
    const infoflow::SuiteResult again = infoflow::suite_result_from_json(infoflow::to_json(r));
    FUZZ_CHECK(again.checks.size() == r.checks.size() && again.series.size() == r.series.size());
    (void)infoflow::without_timings(j);
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
