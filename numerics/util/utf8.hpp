#pragma once
// UTF-8 as user text needs it: counting and cutting by characters, decoding one character, and making text safe to
// echo on a terminal. Shared by the parsers (error messages name the character at fault) and the report writers.
#include <cstddef>
#include <string>

namespace infoflow {

/// The number of characters (UTF-8 code points) of s, and its first n characters (never a broken code point).
std::size_t code_points(const std::string& s);
std::string first_code_points(const std::string& s, std::size_t n);

/// The valid UTF-8 sequence starting at s[i]: its length in bytes (1 to 4) and its code point, or length 0 when the
/// bytes there are not valid UTF-8 (a stray continuation byte, a truncated sequence, an overlong form, a surrogate,
/// a value above U+10FFFF).
struct Utf8Char {
  int length = 0;
  unsigned long code = 0;
};
Utf8Char utf8_at(const std::string& s, std::size_t i);

/// s as a terminal may print it: valid UTF-8 text is kept; control characters (C0 but tab and newline, DEL, C1)
/// and bytes that are not UTF-8 become \xNN. For user text echoed in an error message on stderr.
std::string terminal_text(const std::string& s);

}  // namespace infoflow
