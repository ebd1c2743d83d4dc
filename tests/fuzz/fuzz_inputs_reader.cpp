// Fuzzes the inputs reader (eval --inputs): either sequences of d-dimensional tokens or InputError.
#include "fuzz_check.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int d = 1 + data[0] % 4;  // the first byte picks the token dimension
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const auto j = infoflow::parse_json_text(text, "--inputs", "fuzz input");
    for (const auto& seq : infoflow::inputs_from_json(j, d, 64))
      for (const auto& tok : seq)
        FUZZ_CHECK(static_cast<int>(tok.size()) == d);
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
