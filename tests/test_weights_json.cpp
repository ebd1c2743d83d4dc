#include "numerics/model/forward.hpp"
#include "numerics/model/random_model.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/util/errors.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace infoflow;
using nlohmann::json;

namespace {
std::string run_capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  return out;
}
std::string temp_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("infoflow-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}
}  // namespace

TEST_CASE("Double weights round-trip exactly through JSON", "[weights]") {
  auto rng = test::rng_for("roundtrip");
  const Model m = random_model(feature_complete_architecture(2, 5, 4), rng);
  const json j = json::parse(weights_to_json(m).dump());
  const auto back = convert_model<double>(weights_from_json(j, 256), Precision{53});
  REQUIRE(back.params == m.params);
  REQUIRE(back.temperatures == m.temperatures);
}

TEST_CASE("GeLU units round-trip through JSON, and a ReLU model is written as before", "[weights]") {
  auto rng = test::rng_for("roundtrip-gelu");
  const Architecture gelu = with_gelu_units(feature_complete_architecture(2, 5, 4));
  const Model m = random_model(gelu, rng);
  const json j = json::parse(weights_to_json(m).dump());
  REQUIRE(j["encoder"]["activation"] == "gelu");
  REQUIRE(j["layers"][0]["ffn"]["activation"] == "gelu");
  REQUIRE(j["readout"]["activation"] == "gelu");
  const auto back = weights_from_json(j, 256);
  REQUIRE(back.arch.encoder.activation == Activation::Gelu);
  REQUIRE(back.arch.layers[0].ffn_activation == Activation::Gelu);
  REQUIRE(back.arch.readout.activation == Activation::Gelu);
  REQUIRE(convert_model<double>(back, Precision{53}).params == m.params);
  // The same weights read as ReLU units compute another function: the key is read, not ignored.
  json relu = j;
  relu["layers"][0]["ffn"].erase("activation");
  const auto X = random_cube_sequence(3, 2, rng);
  REQUIRE(forward(convert_model<double>(weights_from_json(relu, 64), Precision{53}), X).y != forward(m, X).y);
  // A ReLU model has no "activation" key anywhere (older readers and stored files stay as they were).
  const json plain = weights_to_json(random_model(feature_complete_architecture(2, 5, 4), rng));
  REQUIRE(plain.dump().find("activation") == std::string::npos);
}

TEST_CASE("High-precision weights are stored as decimal strings and read back at precision", "[weights]") {
  auto rng = test::rng_for("mpfr-weights");
  const Model m = random_model(feature_complete_architecture(1, 3, 2), rng);
  auto hp = convert_model<mpfr::mpreal>(m, Precision{256});
  hp.params[0] = mpfr::mpreal(1, 256) / 3;
  const json j = weights_to_json(hp);
  REQUIRE(j["encoder"]["W1"][0][0].is_string());
  const auto back = weights_from_json(j, 256);
  REQUIRE(mpfr::abs(back.params[0] - hp.params[0]) < mpfr::mpreal("1e-75", 256));
  REQUIRE(back.params[1] == hp.params[1]);  // an exact double stays exact
}

TEST_CASE("Malformed weights name the JSON path", "[weights]") {
  auto rng = test::rng_for("malformed");
  json j = weights_to_json(random_model(feature_complete_architecture(2, 5, 4), rng));
  SECTION("wrong row length") {
    j["layers"][0]["heads"][1]["K"][0].erase(0);
    REQUIRE_THROWS_WITH(weights_from_json(j, 64), Catch::Contains("layers[0].heads[1].K[0]"));
  }
  SECTION("missing field") {
    j.erase("cls0");
    REQUIRE_THROWS_WITH(weights_from_json(j, 64), Catch::Contains("cls0"));
  }
  SECTION("non-positive temperature") {
    j["layers"][1]["heads"][0]["beta"] = 0.0;
    REQUIRE_THROWS_WITH(weights_from_json(j, 64), Catch::Contains("beta"));
  }
  SECTION("unknown activation") {
    j["layers"][0]["ffn"]["activation"] = "tanh";
    REQUIRE_THROWS_WITH(weights_from_json(j, 64), Catch::Contains("layers[0].ffn.activation") && Catch::Contains("gelu"));
  }
  SECTION("activation of an affine map") {
    json a = weights_to_json(random_model(test::one_layer_architecture(2, 3, 1), rng));
    a["encoder"]["activation"] = "gelu";
    REQUIRE_THROWS_WITH(weights_from_json(a, 64), Catch::Contains("encoder.activation"));
  }
  SECTION("a layer's token-wise map that is not an FFN") {
    // Read before as "no FFN", its weights ignored: a different model than the file's.
    j["layers"][0]["ffn"] = json{{"kind", "affine"}, {"W", json::array()}, {"b", json::array()}};
    REQUIRE_THROWS_WITH(weights_from_json(j, 64), Catch::Contains("layers[0].ffn.kind"));
  }
  SECTION("not a number") {
    j["readout"]["b2"][0] = "abc";
    REQUIRE_THROWS_AS(weights_from_json(j, 64), InputError);
  }
}

TEST_CASE("eval and an independent numpy implementation of docs/weights-format.md agree", "[weights][reference]") {
  auto rng = test::rng_for("reference-impl");
  const std::string dir = temp_dir("reference");
  for (int i = 0; i < 3 * test::multiplier(); ++i) {
    // Every other model with GeLU units in every FFN (reference_forward.py's math.erfc against the C library's).
    const Architecture a = feature_complete_architecture(3, 6, 7);
    const Model m = random_model(i % 2 == 1 ? with_gelu_units(a) : a, rng, 0.8);
    json inputs = json::array();
    std::vector<double> ours;
    for (int s = 0; s < 5; ++s) {
      const auto X = random_cube_sequence(1 + static_cast<int>(rng.uniform_index(7)), 3, rng);
      inputs.push_back(X);
      ours.push_back(forward(m, X).y);
    }
    write_json_file(dir + "/w.json", weights_to_json(m));
    write_json_file(dir + "/x.json", json{{"inputs", inputs}});
    const json ref = json::parse(run_capture("/usr/bin/python3 " INFOFLOW_SOURCE_DIR "/scripts/reference_forward.py " + dir +
                                             "/w.json " + dir + "/x.json"));
    const json ev = json::parse(run_capture(INFOFLOW_CLI " eval --weights " + dir + "/w.json --inputs " + dir +
                                            "/x.json --precision double"));
    const json ev_arb = json::parse(run_capture(INFOFLOW_CLI " eval --weights " + dir + "/w.json --inputs " + dir +
                                                "/x.json --precision arb:256"));
    for (std::size_t s = 0; s < ours.size(); ++s) {
      INFO("model " << i << " sequence " << s << ": " << inputs[s].dump());
      REQUIRE(ev["outputs"][s].get<double>() == Approx(ref["outputs"][s].get<double>()).epsilon(1e-12));
      REQUIRE(ev["outputs"][s].get<double>() == ours[s]);
      const mpfr::mpreal mid(ev_arb["outputs"][s]["mid"].get<std::string>(), 256);
      REQUIRE(std::fabs(mid.toDouble() - ours[s]) <= 1e-12 * std::max(1.0, std::fabs(ours[s])));
      REQUIRE(std::stod(ev_arb["outputs"][s]["rad"].get<std::string>()) < 1e-60);
    }
  }
  std::filesystem::remove_all(dir);
}
