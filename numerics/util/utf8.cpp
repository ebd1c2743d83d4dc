#include "numerics/util/utf8.hpp"

#include <cstdio>

namespace infoflow {

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string first_code_points(const std::string& s, std::size_t n) {
  std::size_t i = 0, seen = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == n) break;
      ++seen;
    }
  }
  return s.substr(0, i);
}

Utf8Char utf8_at(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  const int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > s.size()) return {};
  unsigned long code = length == 1 ? lead : length == 2 ? (lead & 0x1F) : length == 3 ? (lead & 0x0F) : (lead & 0x07);
  for (int k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {};
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values above U+10FFFF are not valid UTF-8 either.
  static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < least[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {length, code};
}

std::string terminal_text(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const Utf8Char c = utf8_at(s, i);
    const bool control = c.length > 0 && ((c.code < 0x20 && c.code != '\t' && c.code != '\n') || (c.code >= 0x7F && c.code < 0xA0));
    if (c.length == 0 || control) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(s[i]));
      out += hex;
      ++i;
    } else {
      out.append(s, i, static_cast<std::size_t>(c.length));
      i += static_cast<std::size_t>(c.length);
    }
  }
  return out;
}

}  // namespace infoflow
