#include "numerics/sweep/sweep_runner.hpp"
#include "numerics/util/errors.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

using namespace infoflow;
using nlohmann::json;

namespace {
std::string fresh_path(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("infoflow-sweep-" + name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(p);
  return p.string();
}
std::vector<std::string> keys(int n) {
  std::vector<std::string> k;
  for (int i = 0; i < n; ++i) k.push_back("p" + std::to_string(i));
  return k;
}
}  // namespace

TEST_CASE("A sweep resumes: finished points are kept, only the rest is computed", "[sweep]") {
  const std::string path = fresh_path("resume");
  std::atomic<int> calls{0};
  {
    SweepCheckpoint cp(path, "v1");
    // Fail at point 5 (as a kill would stop it): the points finished before stay in the checkpoint.
    REQUIRE_THROWS(run_sweep("s", keys(10), [&](std::size_t i) -> json {
      if (i == 5) throw NumericError("interrupted");
      ++calls;
      return json{{"i", i}, {"sq", i * i}};
    }, cp, 1));
  }
  const int first = calls.load();
  REQUIRE(first == 5);
  calls = 0;
  SweepCheckpoint cp(path, "v1");
  REQUIRE(cp.size() == 5);
  const auto out = run_sweep("s", keys(10), [&](std::size_t i) -> json {
    ++calls;
    return json{{"i", i}, {"sq", i * i}};
  }, cp, 2);
  REQUIRE(calls.load() == 5);
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i]["sq"] == i * i);
  std::filesystem::remove(path);
}

TEST_CASE("A torn last line is dropped and a different fingerprint is not reused", "[sweep]") {
  const std::string path = fresh_path("torn");
  {
    SweepCheckpoint cp(path, "v1");
    cp.append("a", 1);
    cp.append("b", 2);
  }
  {
    std::ofstream f(path, std::ios::app);
    f << "{\"key\":\"c\",\"finger";  // a kill in the middle of a write
  }
  {
    SweepCheckpoint cp(path, "v1");
    REQUIRE(cp.size() == 2);
    cp.append("c", 3);
  }
  SweepCheckpoint again(path, "v1");
  REQUIRE(again.size() == 3);
  REQUIRE(again.get("c") == 3);
  SweepCheckpoint other(path, "v2");
  REQUIRE(other.size() == 0);
  std::filesystem::remove(path);
}

TEST_CASE("Results come back in key order whatever the thread schedule", "[sweep]") {
  const std::string path = fresh_path("order");
  SweepCheckpoint cp(path, "v1");
  const auto out = run_sweep("s", keys(40), [](std::size_t i) -> json { return static_cast<int>(i) * 3; }, cp, 2);
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == static_cast<int>(i) * 3);
  std::filesystem::remove(path);
}
