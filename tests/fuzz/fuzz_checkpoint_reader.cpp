// Fuzzes the sweep checkpoint reader: any file content opens (bad lines are skipped) and a point appended
// afterwards reads back. The first byte chooses whether the harness seals every line with this user's key before
// writing the file (so the record parser behind the seal is reached) or writes the bytes as they are (so unsealed,
// torn and forged lines are refused).
#include "fuzz_check.hpp"
#include "numerics/sweep/sweep_runner.hpp"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/infoflow-fuzz-checkpoint-" + std::to_string(::getpid()) + ".jsonl";
  const bool seal_lines = size > 0 && (data[0] & 1);
  const std::string text(reinterpret_cast<const char*>(data) + (size > 0), size > 0 ? size - 1 : 0);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (seal_lines) {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        out << infoflow::sealed_checkpoint_line(path, line);
    } else {
      out << text;
    }
  }
  infoflow::SweepCheckpoint ck(path, "fuzz");
  ck.append("fresh-point", nlohmann::json{{"x", 1}});
  infoflow::SweepCheckpoint again(path, "fuzz");
  const nlohmann::json expected{{"x", 1}};
  FUZZ_CHECK(again.has("fresh-point") && again.get("fresh-point") == expected);
  return 0;
}
