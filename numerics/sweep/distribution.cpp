#include "numerics/sweep/distribution.hpp"

#include <cmath>

namespace infoflow {

namespace {
SweepDistributor* g_distributor = nullptr;
}

SweepDistributor* sweep_distributor() { return g_distributor; }
void set_sweep_distributor(SweepDistributor* d) { g_distributor = d; }
bool is_root_process() { return !g_distributor || g_distributor->is_root(); }

nlohmann::json encode_nonfinite(const nlohmann::json& j) {
  if (j.is_number_float()) {
    const double v = j.get<double>();
    if (std::isnan(v)) return {{"$nonfinite", "nan"}};
    if (std::isinf(v)) return {{"$nonfinite", v > 0 ? "inf" : "-inf"}};
    return j;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(encode_nonfinite(v));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = encode_nonfinite(it.value());
    return out;
  }
  return j;
}
nlohmann::json decode_nonfinite(const nlohmann::json& j) {
  if (j.is_object() && j.size() == 1 && j.contains("$nonfinite") && j["$nonfinite"].is_string()) {
    const std::string s = j["$nonfinite"].get<std::string>();
    return s == "inf" ? INFINITY : s == "-inf" ? -INFINITY : NAN;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(decode_nonfinite(v));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = decode_nonfinite(it.value());
    return out;
  }
  return j;
}

std::string encode_record_text(const nlohmann::json& j) {
  return encode_nonfinite(j).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
nlohmann::json decode_record_text(const std::string& text) { return decode_nonfinite(nlohmann::json::parse(text)); }

}  // namespace infoflow
