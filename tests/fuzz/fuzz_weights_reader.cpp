// Fuzzes the weights reader: JSON text -> model. Either a model or InputError; every model it
// returns has a layout that matches its parameter vector.
#include "fuzz_check.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto j = infoflow::parse_json_text(text, "--weights", "fuzz input");
    const auto m = infoflow::weights_from_json(j, 64);
    FUZZ_CHECK(m.params.size() == infoflow::ParamLayout(m.arch).size());
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
