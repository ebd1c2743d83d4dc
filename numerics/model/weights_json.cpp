#include "numerics/model/weights_json.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace infoflow {

using nlohmann::json;

namespace {

// ---- writing ----
json scalar_json(double v) {
  if (!std::isfinite(v)) throw NumericError("refusing to write a non-finite weight");
  return v;
}
json scalar_json(const mpfr::mpreal& v) {
  if (!mpfr::isfinite(v)) throw NumericError("refusing to write a non-finite weight");
  const double d = v.toDouble();
  if (mpfr::mpreal(d, v.get_prec()) == v) return d;  // exactly a double: keep it a number
  const int digits = static_cast<int>(std::ceil(v.get_prec() * 0.30103)) + 2;
  return v.toString(digits);
}

template <class S>
json tensor_json(const std::vector<S>& p, const TensorSpec& t) {
  if (t.is_vector) {
    json a = json::array();
    for (int r = 0; r < t.rows; ++r) a.push_back(scalar_json(p[t.offset + r]));
    return a;
  }
  json a = json::array();
  for (int r = 0; r < t.rows; ++r) {
    json row = json::array();
    for (int c = 0; c < t.cols; ++c) row.push_back(scalar_json(p[t.index(r, c)]));
    a.push_back(row);
  }
  return a;
}

// Places a value at a dotted path like "layers[0].heads[1].Q" (creating objects and arrays).
json& at_path(json& root, const std::string& path) {
  json* cur = &root;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '.')) {
    const auto br = part.find('[');
    const std::string key = part.substr(0, br);
    cur = &(*cur)[key];
    if (br != std::string::npos) {
      const std::size_t idx = std::stoul(part.substr(br + 1));
      if (!cur->is_array()) *cur = json::array();
      while (cur->size() <= idx) cur->push_back(json::object());
      cur = &(*cur)[idx];
    }
  }
  return *cur;
}

const char* kind_name(MapKind k) { return k == MapKind::Affine ? "affine" : "ffn"; }

// An FFN's "kind" and, for GeLU units only, "activation": a ReLU FFN is written as it was before GeLU existed, so
// that older readers and every stored model and baseline stay byte for byte the same.
void write_map_kind(json& j, MapKind kind, Activation activation) {
  j["kind"] = kind_name(kind);
  if (kind == MapKind::Ffn && activation == Activation::Gelu) j["activation"] = "gelu";
}

template <class S>
json to_json_impl(const ModelT<S>& m) {
  ParamLayout layout(m.arch);
  json j;
  j["format"] = kWeightsFormat;
  j["d"] = m.arch.d;
  j["E"] = m.arch.E;
  j["positions"] = m.arch.positions;
  write_map_kind(j["encoder"], m.arch.encoder.kind, m.arch.encoder.activation);
  write_map_kind(j["readout"], m.arch.readout.kind, m.arch.readout.activation);
  for (std::size_t l = 0; l < m.arch.layers.size(); ++l) {
    json& layer = j["layers"][l];
    if (!m.arch.layers[l].ffn_width) layer["ffn"] = nullptr;
    else write_map_kind(layer["ffn"], MapKind::Ffn, m.arch.layers[l].ffn_activation);
    for (std::size_t h = 0; h < layout.layers()[l].heads.size(); ++h)
      layer["heads"][h]["beta"] = scalar_json(m.temperatures[layout.layers()[l].heads[h].temperature]);
  }
  for (const auto& t : layout.tensors()) at_path(j, t.name) = tensor_json(m.params, t);
  return j;
}

// ---- reading ----
[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw InputError(path.empty() ? "weights" : "weights " + path, what);
}

// Bits enough to hold a decimal string's digits with 64 to spare (capped at 16384: what is still rounded gets a
// radius), and never fewer than the caller asked for.
long bits_for_decimal(const std::string& s, long at_least) {
  constexpr long kMaxDecimalBits = 1 << 14;
  const long digits = static_cast<long>(std::min<std::size_t>(s.size(), kMaxDecimalBits));
  const long needed = std::min<long>(static_cast<long>(std::ceil(digits * 3.3219280948873623)) + 64, kMaxDecimalBits);
  return std::max(needed, at_least);
}

// `argument` names the document for the error message ("weights ..." or "--inputs ..."). With `radius` given, a
// decimal string is read at enough bits for its digits (at least `bits`), and *radius bounds |stored − denoted|:
// 0 when the string is exact in binary, one ulp of the stored value otherwise (round to nearest errs by half).
mpfr::mpreal read_scalar(const json& v, const std::string& path, long bits, const std::string& argument = "weights",
                         mpfr::mpreal* radius = nullptr) {
  auto fail = [&](const std::string& what) -> mpfr::mpreal { throw InputError(argument + " " + path, what); };
  if (radius) *radius = 0;
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return fail("expected a finite number");
    return mpfr::mpreal(d, bits);
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    mpfr::mpreal r(0, radius ? bits_for_decimal(s, bits) : bits);
    char* end = nullptr;
    const int inexact = mpfr_strtofr(r.mpfr_ptr(), s.c_str(), &end, 10, MPFR_RNDN);
    if (s.empty() || end != s.c_str() + s.size() || !mpfr::isfinite(r))
      return fail("expected a decimal number, got \"" + s + "\"");
    if (radius && inexact != 0) {
      const mpfr_exp_t ulp_exponent = mpfr_get_exp(r.mpfr_srcptr()) - static_cast<mpfr_exp_t>(r.get_prec());
      if (mpfr::iszero(r) || ulp_exponent < mpfr_get_emin())
        return fail("a decimal number too small for MPFR's exponent range, got \"" + s + "\"");
      *radius = mpfr::ldexp(mpfr::mpreal(1, 64), ulp_exponent);
    }
    return r;
  }
  return fail("expected a number or a decimal string");
}

const json& member(const json& j, const std::string& key, const std::string& path) {
  if (!j.is_object()) bad(path, "expected an object");
  auto it = j.find(key);
  if (it == j.end()) bad(path.empty() ? key : path + "." + key, "missing");
  return *it;
}

// An integer in [min_value, max_value]; a value that does not fit is an error, never wrapped.
int read_int(const json& j, const std::string& key, int min_value, int max_value) {
  const json& v = member(j, key, "");
  const std::string expected =
      "expected an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "]";
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max_value) || u < static_cast<std::uint64_t>(std::max(min_value, 0))) bad(key, expected);
  } else if (!v.is_number_integer() || v.get<std::int64_t>() < min_value || v.get<std::int64_t>() > max_value) {
    bad(key, expected);
  }
  return static_cast<int>(v.get<std::int64_t>());
}

// Numbers and strings anywhere in the document: an upper bound on the weights it can hold. The
// declared shapes are checked against it before anything is allocated, so a small file cannot
// ask for gigabytes. (Depth is bounded by the reader, kMaxJsonDepth.)
std::size_t scalar_leaves(const json& j) {
  if (j.is_number() || j.is_string()) return 1;
  std::size_t n = 0;
  if (j.is_array() || j.is_object())
    for (const auto& v : j) n += scalar_leaves(v);
  return n;
}

// An FFN's optional "activation": "relu" (also when absent) or "gelu". An affine map takes none.
Activation read_activation(const json& j, const std::string& path, MapKind kind) {
  if (!j.contains("activation")) return Activation::Relu;
  const json& a = j["activation"];
  if (kind == MapKind::Affine) bad(path + ".activation", "an affine map has no activation (an FFN's: \"relu\" or \"gelu\")");
  if (a == "relu") return Activation::Relu;
  if (a == "gelu") return Activation::Gelu;
  bad(path + ".activation", "expected \"relu\" or \"gelu\"");
}

// Infers a map's shape from its arrays (rows of W or W1 give the hidden width).
MapShape read_map_shape(const json& j, const std::string& path, int in, int out) {
  const json& kind = member(j, "kind", path);
  if (kind == "affine") {
    read_activation(j, path, MapKind::Affine);  // refuses one
    return MapShape{MapKind::Affine, in, out, 0};
  }
  if (kind == "ffn") {
    const json& b1 = member(j, "b1", path);
    if (!b1.is_array() || b1.empty()) bad(path + ".b1", "expected a non-empty array (the FFN width)");
    return MapShape{MapKind::Ffn, in, out, static_cast<int>(b1.size()), read_activation(j, path, MapKind::Ffn)};
  }
  bad(path + ".kind", "expected \"affine\" or \"ffn\"");
}

void read_tensor(const json& root, const TensorSpec& t, long bits, std::vector<mpfr::mpreal>& p, DecimalRounding* rounding) {
  // Reads entry `index` at `path`, and notes its radius when the caller asked.
  const auto read = [&](const json& v, const std::string& path, std::size_t index) {
    if (!rounding) return p[index] = read_scalar(v, path, bits), void();
    p[index] = read_scalar(v, path, bits, "weights", &rounding->param_radius[index]);
    rounding->note(rounding->param_radius[index], path);
  };
  // Walk the dotted path.
  const json* cur = &root;
  std::stringstream ss(t.name);
  std::string part, walked;
  while (std::getline(ss, part, '.')) {
    const auto br = part.find('[');
    cur = &member(*cur, part.substr(0, br), walked);
    walked += (walked.empty() ? "" : ".") + part.substr(0, br);
    if (br != std::string::npos) {
      const std::size_t idx = std::stoul(part.substr(br + 1));
      if (!cur->is_array() || cur->size() <= idx) bad(walked, "expected an array with an entry " + std::to_string(idx));
      cur = &(*cur)[idx];
      walked += "[" + std::to_string(idx) + "]";
    }
  }
  const std::string shape = std::to_string(t.rows) + (t.is_vector ? "" : "x" + std::to_string(t.cols));
  if (!cur->is_array() || static_cast<int>(cur->size()) != t.rows)
    bad(t.name, std::string("expected ") + (t.is_vector ? "a vector of length " : "a matrix of shape ") + shape);
  for (int r = 0; r < t.rows; ++r) {
    const json& row = (*cur)[r];
    if (t.is_vector) {
      read(row, t.name + "[" + std::to_string(r) + "]", t.offset + r);
      continue;
    }
    if (!row.is_array() || static_cast<int>(row.size()) != t.cols)
      bad(t.name + "[" + std::to_string(r) + "]", "expected a row of length " + std::to_string(t.cols) + " (shape " + shape + ")");
    for (int c = 0; c < t.cols; ++c)
      read(row[c], t.name + "[" + std::to_string(r) + "][" + std::to_string(c) + "]", t.index(r, c));
  }
}

}  // namespace

json weights_to_json(const ModelT<double>& m) { return to_json_impl(m); }

json weights_with_certificate(json weights, const CertifiedDomain& domain) {
  weights["certificate"] = domain;
  return weights;
}

std::optional<CertifiedDomain> certified_domain_of(const json& weights) {
  if (!weights.is_object() || !weights.contains("certificate")) return std::nullopt;
  try {
    return weights.at("certificate").get<CertifiedDomain>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}
json weights_to_json(const ModelT<mpfr::mpreal>& m) { return to_json_impl(m); }

ModelT<mpfr::mpreal> weights_from_json(const json& j, long bits, DecimalRounding* rounding) {
  if (!j.is_object()) bad("", "expected a JSON object");
  if (j.contains("format") && j["format"] != kWeightsFormat)
    bad("format", std::string("expected \"") + kWeightsFormat + "\"");
  Architecture a;
  a.d = read_int(j, "d", 1, kMaxModelDim);
  a.E = read_int(j, "E", 1, kMaxModelDim);
  a.positions = j.contains("positions") ? read_int(j, "positions", 0, kMaxPositions) : 0;
  a.encoder = read_map_shape(member(j, "encoder", ""), "encoder", a.d, a.E);
  a.readout = read_map_shape(member(j, "readout", ""), "readout", a.E, 1);
  const json& layers = member(j, "layers", "");
  if (!layers.is_array() || layers.empty()) bad("layers", "expected a non-empty array");
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const std::string ln = "layers[" + std::to_string(l) + "]";
    LayerShape ls;
    const json& heads = member(layers[l], "heads", ln);
    if (!heads.is_array() || heads.empty()) bad(ln + ".heads", "expected a non-empty array");
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const std::string hn = ln + ".heads[" + std::to_string(h) + "]";
      const json& Q = member(heads[h], "Q", hn);
      const json& V = member(heads[h], "V", hn);
      if (!Q.is_array() || Q.empty()) bad(hn + ".Q", "expected a non-empty matrix");
      if (!V.is_array() || V.empty()) bad(hn + ".V", "expected a non-empty matrix");
      ls.heads.push_back(HeadShape{static_cast<int>(Q.size()), static_cast<int>(V.size())});
    }
    if (layers[l].contains("ffn") && !layers[l]["ffn"].is_null()) {
      const MapShape ffn = read_map_shape(layers[l]["ffn"], ln + ".ffn", a.E, a.E);
      if (ffn.kind != MapKind::Ffn) bad(ln + ".ffn.kind", "expected \"ffn\" (a layer's token-wise map is an FFN)");
      ls.ffn_width = ffn.width;
      ls.ffn_activation = ffn.activation;
    }
    a.layers.push_back(ls);
  }
  a.validate();
  ParamLayout layout(a);
  const std::size_t declared = layout.size() + layout.temperature_count(), held = scalar_leaves(j);
  if (declared > held)
    bad("", "the declared shapes need " + std::to_string(declared) + " numbers but the document holds only " +
                std::to_string(held));
  if (declared > kMaxWeightScalars / static_cast<std::size_t>(std::max<long>(bits / 64, 1)))
    bad("", "too many weights (" + std::to_string(declared) + ") at " + std::to_string(bits) + " bits");
  ModelT<mpfr::mpreal> m = make_model<mpfr::mpreal>(a, Precision{bits});
  if (rounding) {
    *rounding = DecimalRounding{};
    rounding->param_radius.assign(layout.size(), mpfr::mpreal(0));
    rounding->temperature_radius.assign(layout.temperature_count(), mpfr::mpreal(0));
  }
  for (const auto& t : layout.tensors()) read_tensor(j, t, bits, m.params, rounding);
  for (std::size_t l = 0; l < layout.layers().size(); ++l)
    for (std::size_t h = 0; h < layout.layers()[l].heads.size(); ++h) {
      const std::string hn = "layers[" + std::to_string(l) + "].heads[" + std::to_string(h) + "]";
      const std::size_t k = layout.layers()[l].heads[h].temperature;
      mpfr::mpreal radius;
      const mpfr::mpreal beta = read_scalar(member(layers[l]["heads"][h], "beta", hn), hn + ".beta", bits, "weights",
                                            rounding ? &radius : nullptr);
      if (rounding) rounding->temperature_radius[k] = radius, rounding->note(radius, hn + ".beta");
      if (!(beta > 0)) bad(hn + ".beta", "expected a temperature > 0");
      m.temperatures[k] = beta;
    }
  return m;
}

std::vector<std::vector<std::vector<mpfr::mpreal>>> inputs_from_json(const json& j, int d, long bits) {
  if (j.is_object() && !j.contains("inputs")) throw InputError("--inputs", "expected an object with the key \"inputs\"");
  const json& arr = j.is_object() ? j.at("inputs") : j;
  if (!arr.is_array()) throw InputError("--inputs", "expected an array of sequences");
  std::vector<std::vector<std::vector<mpfr::mpreal>>> out;
  for (std::size_t s = 0; s < arr.size(); ++s) {
    const std::string sn = "inputs[" + std::to_string(s) + "]";
    if (!arr[s].is_array() || arr[s].empty()) throw InputError("--inputs " + sn, "expected a non-empty array of tokens");
    std::vector<std::vector<mpfr::mpreal>> seq;
    for (std::size_t t = 0; t < arr[s].size(); ++t) {
      const json& tok = arr[s][t];
      const std::string tn = sn + "[" + std::to_string(t) + "]";
      if (!tok.is_array() || static_cast<int>(tok.size()) != d)
        throw InputError("--inputs " + tn, "expected a token of dimension d = " + std::to_string(d));
      std::vector<mpfr::mpreal> x;
      for (std::size_t i = 0; i < tok.size(); ++i) {
        x.push_back(read_scalar(tok[i], tn + "[" + std::to_string(i) + "]", bits, "--inputs"));
      }
      seq.push_back(std::move(x));
    }
    out.push_back(std::move(seq));
  }
  return out;
}

}  // namespace infoflow

namespace infoflow {

std::optional<std::string> first_weight_beyond_double(const ModelT<mpfr::mpreal>& m) {
  const ParamLayout layout(m.arch);
  const auto beyond = [](const mpfr::mpreal& v) { return mpfr::isfinite(v) && std::isinf(v.toDouble()); };
  for (const TensorSpec& t : layout.tensors())
    for (int r = 0; r < t.rows; ++r)
      for (int c = 0; c < t.cols; ++c)
        if (const auto& v = m.params[t.index(r, c)]; beyond(v))
          return t.name + "[" + std::to_string(r) + "]" + (t.is_vector ? "" : "[" + std::to_string(c) + "]") + " = " +
                 v.toString(17);
  for (std::size_t l = 0; l < layout.layers().size(); ++l)
    for (std::size_t h = 0; h < layout.layers()[l].heads.size(); ++h)
      if (const auto& v = m.temperatures[layout.layers()[l].heads[h].temperature]; beyond(v))
        return "layers[" + std::to_string(l) + "].heads[" + std::to_string(h) + "].beta = " + v.toString(17);
  return std::nullopt;
}

}  // namespace infoflow
