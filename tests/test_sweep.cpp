#include "numerics/sweep/sweep_runner.hpp"
#include "numerics/util/errors.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace infoflow;
using nlohmann::json;

namespace {
std::string fresh_path(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("infoflow-sweep-" + name + "-" + std::to_string(::getpid()) + ".jsonl");
  std::filesystem::remove(p);
  return p.string();
}
// A typed sweep record, as the suites use them.
struct Square {
  std::size_t i = 0;
  std::size_t sq = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Square, i, sq)

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
    REQUIRE_THROWS(run_sweep<Square>("s", keys(10), [&](std::size_t i) {
      if (i == 5) throw NumericError("interrupted");
      ++calls;
      return Square{i, i * i};
    }, cp, 1));
  }
  const int first = calls.load();
  REQUIRE(first == 5);
  calls = 0;
  SweepCheckpoint cp(path, "v1");
  REQUIRE(cp.size() == 5);
  const std::vector<Square> out = run_sweep<Square>("s", keys(10), [&](std::size_t i) {
    ++calls;
    return Square{i, i * i};
  }, cp, 2);
  REQUIRE(calls.load() == 5);
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i].sq == i * i);
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
  const auto out = run_sweep<int>("s", keys(40), [](std::size_t i) { return static_cast<int>(i) * 3; }, cp, 2);
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == static_cast<int>(i) * 3);
  std::filesystem::remove(path);
}

TEST_CASE("A stored value that does not read back as the record is recomputed, not reused", "[sweep]") {
  const std::string path = fresh_path("stale");
  {
    SweepCheckpoint cp(path, "v1");
    cp.append("p0", json{{"i", 0}, {"sq", 0}});     // a current record
    cp.append("p1", json{{"i", 1}, {"old", 1}});    // another version's record: a field is missing
    cp.append("p2", json{{"i", "two"}, {"sq", 4}});  // wrong type
  }
  SweepCheckpoint cp(path, "v1");
  std::vector<std::size_t> computed;
  const auto out = run_sweep<Square>("s", keys(3), [&](std::size_t i) {
    computed.push_back(i);
    return Square{i, i * i};
  }, cp, 1);
  REQUIRE(computed == std::vector<std::size_t>{1, 2});
  REQUIRE(out[1].sq == 1);
  REQUIRE(out[2].sq == 4);
  std::filesystem::remove(path);
}

TEST_CASE("Checkpoint lines of the wrong shape are skipped, not fatal", "[sweep]") {
  const std::string path = fresh_path("shapes");
  const auto sealed = [&](const std::string& record) { return sealed_checkpoint_line(path, record); };
  {
    std::ofstream f(path);
    f << sealed("{\"key\": 5, \"fingerprint\": \"v1\", \"value\": 1}")        // key not a string
      << sealed("{\"key\": \"a\", \"fingerprint\": [], \"value\": 1}")       // fingerprint not a string
      << sealed("[1, 2, 3]")                                                 // not an object
      << sealed("{\"key\": \"b\", \"fingerprint\": \"v1\", \"value\": 2}");  // fine
  }
  SweepCheckpoint cp(path, "v1");
  REQUIRE(cp.size() == 1);
  REQUIRE(cp.get("b") == 2);
  std::filesystem::remove(path);
}

TEST_CASE("A forged or edited checkpoint record is recomputed, never taken into a result", "[sweep]") {
  // An audit multiplied a stored decoder value by 7.5 (and divided an NMSE by 1000, flipping a verdict): the
  // well-formed record was reused with exit 0. Only records sealed by this user's key are finished points.
  const std::string path = fresh_path("forged");
  {
    SweepCheckpoint cp(path, "v1");
    cp.append("p0", json{{"i", 0}, {"sq", 0}});
    cp.append("p1", json{{"i", 1}, {"sq", 1}});
  }
  std::vector<std::string> lines;
  {
    std::ifstream f(path);
    for (std::string l; std::getline(f, l);) lines.push_back(l);
  }
  REQUIRE(lines.size() == 2);
  const std::string edited = lines[1].substr(0, lines[1].find("\"sq\":1")) + "\"sq\":75}}";  // the seal kept, the value changed
  {
    std::ofstream f(path);
    f << lines[0] << "\n"
      << edited << "\n"
      << "{\"fingerprint\":\"v1\",\"key\":\"p2\",\"value\":{\"i\":2,\"sq\":400}}\n"  // the old, unsealed format
      << std::string(64, '0') + " {\"fingerprint\":\"v1\",\"key\":\"p3\",\"value\":{\"i\":3,\"sq\":900}}\n";  // a made-up seal
  }
  SweepCheckpoint cp(path, "v1");
  CHECK(cp.size() == 1);
  CHECK(cp.untrusted_lines() == 3);
  // A line sealed for another checkpoint (the same fingerprint) does not verify here either.
  {
    const std::string other = fresh_path("forged-other");
    std::ofstream f(other);
    f << sealed_checkpoint_line(path, "{\"fingerprint\":\"v1\",\"key\":\"p0\",\"value\":{\"i\":0,\"sq\":0}}");
    f.close();
    CHECK(SweepCheckpoint(other, "v1").size() == 0);
    std::filesystem::remove(other);
  }
  std::vector<std::size_t> computed;
  const auto out = run_sweep<Square>("s", keys(4), [&](std::size_t i) {
    computed.push_back(i);
    return Square{i, i * i};
  }, cp, 1);
  CHECK(computed == std::vector<std::size_t>{1, 2, 3});
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i].sq == i * i);
  std::filesystem::remove(path);
}

TEST_CASE("A symbolic link in a checkpoint's place is refused, and its target left alone", "[sweep]") {
  // The checkpoint used to be opened O_APPEND | O_CREAT and truncated to its last newline through a planted link:
  // an unrelated file was cut and appended to.
  const std::string path = fresh_path("link"), victim = fresh_path("victim");
  {
    std::ofstream f(victim);
    f << "precious text without a final newline";
  }
  std::filesystem::create_symlink(victim, path);
  REQUIRE_THROWS_AS(SweepCheckpoint(path, "v1"), InputError);
  std::ifstream f(victim);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(text == "precious text without a final newline");
  std::filesystem::remove(path);
  std::filesystem::remove(victim);
}

#include "numerics/sweep/distribution.hpp"

TEST_CASE("records between processes keep NaN and infinities", "[sweep]") {
  const nlohmann::json j{{"a", NAN}, {"b", {1.5, INFINITY, -INFINITY}}, {"c", "text"}, {"d", {{"e", 2}}}};
  const nlohmann::json back = infoflow::decode_record_text(infoflow::encode_record_text(j));
  CHECK(std::isnan(back["a"].get<double>()));
  CHECK(back["b"][0].get<double>() == 1.5);
  CHECK(std::isinf(back["b"][1].get<double>()));
  CHECK(back["b"][2].get<double>() < 0);
  CHECK(back["c"] == "text");
  CHECK(back["d"]["e"] == 2);
  CHECK(infoflow::is_root_process());  // a plain process writes its files
}

TEST_CASE("A checkpoint keeps NaN and infinities across a resume", "[sweep]") {
  const auto path = fresh_path("nonfinite");
  {
    SweepCheckpoint cp(path, "v1");
    cp.append("p0", json{{"rmse", {0.5, NAN}}, {"gap", INFINITY}, {"low", -INFINITY}});
  }
  SweepCheckpoint cp(path, "v1");  // a resumed run reads the record back as it was kept in memory
  REQUIRE(cp.has("p0"));
  const json& v = cp.get("p0");
  CHECK(v["rmse"][0].get<double>() == 0.5);
  CHECK(std::isnan(v["rmse"][1].get<double>()));
  CHECK(v["gap"].get<double>() == INFINITY);
  CHECK(v["low"].get<double>() == -INFINITY);
  std::filesystem::remove(path);
}

namespace {
// Points p0 .. p(n-1) of another build, Square{i, i²}, under fingerprint "build=old".
void write_old_build_points(const std::string& path, int n) {
  SweepCheckpoint old(path, "v1/build=old");
  for (int i = 0; i < n; ++i) old.append("p" + std::to_string(i), json(Square{std::size_t(i), std::size_t(i * i)}));
}
SweepCheckpoint::Adoption adopt_old(const std::shared_ptr<std::vector<std::string>>& notes) {
  return {"v1/build=old", "build old", notes};
}
}  // namespace

TEST_CASE("Another build's points are adopted once its first and last recompute to the same bits", "[sweep]") {
  const std::string path = fresh_path("adopt");
  write_old_build_points(path, 5);
  auto notes = std::make_shared<std::vector<std::string>>();
  std::vector<std::size_t> computed;
  std::mutex mu;
  const auto square = [&](std::size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    computed.push_back(i);
    return Square{i, i * i};
  };
  {
    SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
    REQUIRE(cp.size() == 0);            // the other build's lines are not this build's finished points
    REQUIRE(cp.adoptable().size() == 5);
    const auto out = run_sweep<Square>("s", keys(6), square, cp, 2);
    for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i].sq == i * i);
  }
  std::sort(computed.begin(), computed.end());
  CHECK(computed == std::vector<std::size_t>{0, 4, 5});  // the two witnesses and the point no build had
  REQUIRE(notes->size() == 1);
  CHECK_THAT(notes->front(), Catch::Contains("3 point(s) adopted (--adopt-build) from build old after this build "
                                            "recomputed p0, p4 to the same record"));
  // The adopted points are now this checkpoint's: a later run resumes them without the option, computing nothing, and
  // its result still says where they came from.
  computed.clear();
  auto later = std::make_shared<std::vector<std::string>>();
  SweepCheckpoint again(path, "v1/build=new", {{}, {}, later});
  CHECK(again.size() == 6);
  CHECK(again.adopted_from("p2").has_value());
  CHECK_FALSE(again.adopted_from("p4").has_value());  // a witness is this build's own
  (void)run_sweep<Square>("s", keys(6), square, again, 1);
  CHECK(computed.empty());
  CHECK(*later == *notes);
  std::filesystem::remove(path);
}

TEST_CASE("An adopted point is never a witness: a later adoption recomputes it", "[sweep]") {
  // The review's case: a first run adopts p1 and p3 (witnesses p0, p4); a second run over p1, p2, p3 must not take
  // p2 on the word of p1 and p3, which are the other build's records themselves.
  const std::string path = fresh_path("adopt-twice");
  write_old_build_points(path, 5);
  std::vector<std::string> computed;
  std::mutex mu;
  const std::vector<std::string> first{"p0", "p1", "p3", "p4"}, second{"p1", "p2", "p3"};
  const auto square_of = [&](const std::vector<std::string>& k) {
    return [&, k](std::size_t i) {
      std::lock_guard<std::mutex> lock(mu);
      computed.push_back(k[i]);
      const std::size_t n = std::stoul(k[i].substr(1));
      return Square{n, n * n};
    };
  };
  auto notes = std::make_shared<std::vector<std::string>>();
  {
    SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
    (void)run_sweep<Square>("s", first, square_of(first), cp, 1);
  }
  CHECK(computed == std::vector<std::string>{"p0", "p4"});
  computed.clear();
  notes->clear();
  SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
  (void)run_sweep<Square>("s", second, square_of(second), cp, 1);
  CHECK(computed == std::vector<std::string>{"p1", "p3"});  // recomputed, now this build's own
  CHECK_FALSE(cp.adopted_from("p1").has_value());
  REQUIRE(cp.adopted_from("p2").has_value());
  CHECK(cp.adopted_from("p2")->at("witnesses") == json{"p1", "p3"});
  REQUIRE(notes->size() == 1);
  CHECK_THAT(notes->front(), Catch::Contains("1 point(s) adopted (--adopt-build) from build old"));
  std::filesystem::remove(path);
}

TEST_CASE("A witness that differs in its last bit stops the adoption, and no point of that build is taken", "[sweep]") {
  const std::string path = fresh_path("adopt-differs");
  {
    SweepCheckpoint old(path, "v1/build=old");
    for (int i = 0; i < 5; ++i) old.append("p" + std::to_string(i), json{{"x", 0.1 * i}});
  }
  auto notes = std::make_shared<std::vector<std::string>>();
  {
    SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
    // This build computes p4 one ulp away from the other build's record: only the text of the last bit differs.
    const auto compute = [](std::size_t i) {
      const double x = 0.1 * static_cast<double>(i);
      return json{{"x", i == 4 ? std::nextafter(x, 1.0) : x}};
    };
    try {
      (void)run_sweep<json>("s", keys(5), compute, cp, 1);
      FAIL("the adoption went ahead");
    } catch (const InputError& e) {
      CHECK(e.argument() == "--adopt-build");
      CHECK_THAT(std::string(e.what()), Catch::Contains("'p4' differs from that of build old"));
    }
  }
  CHECK(notes->empty());
  SweepCheckpoint after(path, "v1/build=new");
  CHECK(after.size() == 2);  // the two witnesses, as this build computed them; none of the other build's points
  CHECK(after.has("p0"));
  CHECK(after.has("p4"));
  std::filesystem::remove(path);
}

TEST_CASE("An adoption interrupted after its witnesses does not recompute them, nor pick others", "[sweep]") {
  const std::string path = fresh_path("adopt-resume");
  write_old_build_points(path, 5);
  {
    SweepCheckpoint cp(path, "v1/build=new");  // an earlier run of this build recomputed the witnesses, then stopped
    cp.append("p0", json(Square{0, 0}));
    cp.append("p4", json(Square{4, 16}));
  }
  auto notes = std::make_shared<std::vector<std::string>>();
  std::atomic<int> calls{0};
  SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
  (void)run_sweep<Square>("s", keys(5), [&](std::size_t i) { ++calls; return Square{i, i * i}; }, cp, 1);
  CHECK(calls.load() == 0);
  REQUIRE(notes->size() == 1);
  CHECK_THAT(notes->front(), Catch::Contains("3 point(s)"));
  std::filesystem::remove(path);
}

TEST_CASE("Only witnesses to adopt: nothing is adopted and no note says otherwise", "[sweep]") {
  const std::string path = fresh_path("adopt-none");
  write_old_build_points(path, 2);
  auto notes = std::make_shared<std::vector<std::string>>();
  std::atomic<int> calls{0};
  SweepCheckpoint cp(path, "v1/build=new", adopt_old(notes));
  (void)run_sweep<Square>("s", keys(2), [&](std::size_t i) { ++calls; return Square{i, i * i}; }, cp, 1);
  CHECK(calls.load() == 2);
  CHECK(notes->empty());
  std::filesystem::remove(path);
}

TEST_CASE("A chain of adoptions keeps where the points came from", "[sweep]") {
  // Build old computed p0..p4; build mid adopted them (witnesses p0, p4); build new adopts from mid.
  const std::string path = fresh_path("adopt-chain");
  write_old_build_points(path, 5);
  const auto square = [](std::size_t i) { return Square{i, i * i}; };
  {
    SweepCheckpoint mid(path, "v1/build=mid", adopt_old(nullptr));
    (void)run_sweep<Square>("s", keys(5), square, mid, 1);
  }
  auto notes = std::make_shared<std::vector<std::string>>();
  SweepCheckpoint fresh(path, "v1/build=new", {"v1/build=mid", "build mid", notes});
  (void)run_sweep<Square>("s", keys(5), square, fresh, 1);
  // Mid wrote p0, p4 (its witnesses, computed), then p1, p2, p3 (adopted): new's witnesses are p0 and p3.
  REQUIRE(fresh.adopted_from("p2").has_value());
  CHECK(fresh.adopted_from("p2")->at("earlier").at("source") == "build old");
  REQUIRE(fresh.adopted_from("p4").has_value());
  CHECK_FALSE(fresh.adopted_from("p4")->contains("earlier"));  // mid computed p4 itself
  REQUIRE(notes->size() == 2);
  CHECK_THAT(notes->at(0) + notes->at(1),
             Catch::Contains("1 point(s) adopted (--adopt-build) from build mid after this build recomputed p0, p3") &&
                 Catch::Contains("2 point(s) adopted (--adopt-build) from build mid after this build recomputed p0, p3 "
                                 "to the same record, bit for bit; build mid had adopted them from build old after "
                                 "build mid recomputed p0, p4"));
  std::filesystem::remove(path);
}
