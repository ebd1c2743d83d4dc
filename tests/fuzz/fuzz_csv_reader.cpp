// Fuzzes the fit command's CSV reader: either finite points or InputError.
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
    if (p.x.size() != p.y.size()) __builtin_trap();
    for (std::size_t i = 0; i < p.x.size(); ++i)
      if (!std::isfinite(p.x[i]) || !std::isfinite(p.y[i])) __builtin_trap();
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
