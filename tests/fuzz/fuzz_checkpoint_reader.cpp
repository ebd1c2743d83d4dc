// Fuzzes the sweep checkpoint reader: any file content opens (bad lines are skipped) and a
// point appended afterwards reads back.
#include "fuzz_check.hpp"
#include "numerics/sweep/sweep_runner.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/infoflow-fuzz-checkpoint-" + std::to_string(::getpid()) + ".jsonl";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  infoflow::SweepCheckpoint ck(path, "fuzz");
  ck.append("fresh-point", nlohmann::json{{"x", 1}});
  infoflow::SweepCheckpoint again(path, "fuzz");
  const nlohmann::json expected{{"x", 1}};
  FUZZ_CHECK(again.has("fresh-point") && again.get("fresh-point") == expected);
  return 0;
}
