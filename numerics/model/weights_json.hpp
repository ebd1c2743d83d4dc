#pragma once
// The JSON weights format (docs/weights-format.md). Doubles are written as JSON numbers with the
// shortest representation that round-trips exactly; weights of higher precision as decimal strings.
#include "numerics/model/model.hpp"
#include "numerics/util/file_io.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace infoflow {

inline constexpr const char* kWeightsFormat = "infoflow-verify/weights/1";

// Input limits of the weights reader (docs/input-limits.md). Shapes beyond them, or shapes that need
// more numbers than the document holds, are refused before anything is allocated.
inline constexpr int kMaxModelDim = 4096;        // d and E
inline constexpr int kMaxPositions = 1 << 20;    // rows of the positional table
inline constexpr std::size_t kMaxWeightScalars = std::size_t{1} << 26;  // weights at 64 bits; fewer at more

nlohmann::json weights_to_json(const ModelT<double>& m);
nlohmann::json weights_to_json(const ModelT<mpfr::mpreal>& m);

/// Where the reader could not hold a decimal string exactly. Binary floating point holds 0.1 at no precision, so a
/// proof about "the function the file defines" must carry the difference: |denoted − stored| ≤ radius, entry by
/// entry (indexed like ModelT::params and ModelT::temperatures; 0 where the stored value is exact).
struct DecimalRounding {
  std::vector<mpfr::mpreal> param_radius, temperature_radius;
  std::size_t rounded = 0;  // entries with a radius > 0
  std::string first;        // the JSON path of the first of them
  void note(const mpfr::mpreal& radius, const std::string& path) {
    if (radius > 0 && rounded++ == 0) first = path;
  }
};

/// Reads a weights document; decimal strings are rounded to `bits` (a JSON number is exact). With `rounding`, each
/// decimal string is read at enough bits for its digits (at least `bits`, at most 16384) and the radius of what is
/// still rounded is recorded there (certify encloses it: docs/certify.md §2).
/// Throws InputError naming the JSON path of the offending entry.
ModelT<mpfr::mpreal> weights_from_json(const nlohmann::json& j, long bits, DecimalRounding* rounding = nullptr);


/// What a weights file was certified for: the target, the sequence length and token dimension, the input
/// box, and the certified bound on sup |model − target| over that domain. It covers the real-number
/// function the weights define, not its double-precision execution (rounding can exceed a bound with no
/// slack by ~1e-12 relative). Outside this domain the bound says nothing, and `eval` warns.
struct CertifiedDomain {
  std::string target;
  int T = 0;
  int d = 0;
  double box_lo = 0.0, box_hi = 1.0;
  double sup_error_bound = 0.0;
  std::string covers = "the real-number function the weights define (not floating-point execution)";
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CertifiedDomain, target, T, d, box_lo, box_hi, sup_error_bound, covers)

/// The weights document with its certificate attached (key "certificate").
nlohmann::json weights_with_certificate(nlohmann::json weights, const CertifiedDomain& domain);
/// The certificate of a weights document, if it has a well-formed one.
std::optional<CertifiedDomain> certified_domain_of(const nlohmann::json& weights);

/// An input document: {"inputs": [ [[x11, .., x1d], ..], .. ]} or a bare array of sequences.
/// As for weights, a JSON number is the exact double it denotes; a string is a decimal rounded to `bits`.
std::vector<std::vector<std::vector<mpfr::mpreal>>> inputs_from_json(const nlohmann::json& j, int d, long bits);

/// The largest magnitude a double holds (DBL_MAX), as text for messages.
inline constexpr const char* kDoubleRangeText = "|w| <= 1.7976931348623157e308";
/// The first weight or temperature (named by its JSON path, with its value) whose magnitude is beyond the double
/// range, so that rounding it to double gives ±inf: a model whose double weights are not the ones the file defines.
std::optional<std::string> first_weight_beyond_double(const ModelT<mpfr::mpreal>& m);

}  // namespace infoflow
