// Fuzzes the target syntax: any text either parses or throws InputError; nothing else may happen.
#include "fuzz_check.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/target/target_syntax.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const infoflow::ParsedTarget t = infoflow::parse_target(text);
    FUZZ_CHECK(t.structure.order >= 0 && t.structure.families >= 1);
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
