// Fuzzes the fit command's CSV reader: either finite points or InputError.
#include "fuzz_check.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/xy_csv.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto p = infoflow::parse_xy_csv(text, "--csv");
    FUZZ_CHECK(p.x.size() == p.y.size());
    for (std::size_t i = 0; i < p.x.size(); ++i)
      FUZZ_CHECK(std::isfinite(p.x[i]) && std::isfinite(p.y[i]));
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
