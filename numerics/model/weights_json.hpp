#pragma once
// The JSON weights format (docs/weights-format.md). Doubles are written as JSON numbers with the
// shortest representation that round-trips exactly; weights of higher precision as decimal strings.
#include "numerics/model/model.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace infoflow {

inline constexpr const char* kWeightsFormat = "infoflow-verify/weights/1";

nlohmann::json weights_to_json(const ModelT<double>& m);
nlohmann::json weights_to_json(const ModelT<mpfr::mpreal>& m);

/// Reads a weights document; decimal strings are rounded to `bits` (a JSON number is exact).
/// Throws InputError naming the JSON path of the offending entry.
ModelT<mpfr::mpreal> weights_from_json(const nlohmann::json& j, long bits);

nlohmann::json read_json_file(const std::string& path, const std::string& argument);
void write_json_file(const std::string& path, const nlohmann::json& j);
/// Writes to a temporary file and renames it, so a reader never sees half a file.
void write_text_file_atomic(const std::string& path, const std::string& text);

/// An input document: {"inputs": [ [[x11, .., x1d], ..], .. ]} or a bare array of sequences.
/// As for weights, a JSON number is the exact double it denotes; a string is a decimal rounded to `bits`.
std::vector<std::vector<std::vector<mpfr::mpreal>>> inputs_from_json(const nlohmann::json& j, int d, long bits);

}  // namespace infoflow
