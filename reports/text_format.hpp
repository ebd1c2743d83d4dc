#pragma once
// Text helpers shared by the report writer and the regression: number formatting, escaping for
// HTML/XML, file-safe names, and one JUnit XML writer.
#include <string>
#include <vector>

namespace infoflow {

/// `digits` significant digits; "+inf", "-inf" or "nan" for non-finite values.
/// A bound as text that errs on its own side: the decimal printed is >= v (upward) or <= v (downward), with the
/// fewest of `digits`..17 significant digits that allow it (a certified "sup <= U" must never print below U).
std::string format_bound(double v, int digits, bool upward);

std::string format_number(double v, int digits = 4);

/// 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, …
std::string ordinal(long n);

/// Escapes & < > " ' for HTML text, attributes and XML alike; control characters other than tab, newline and
/// carriage return (which XML 1.0 forbids) become U+FFFD.
std::string xml_escape(const std::string& s);

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

/// Every character but letters, digits, '-' and '_' becomes '_'.
std::string file_safe_name(std::string s);

struct JUnitCase {
  enum class Outcome { Passed, Failed, Skipped };
  std::string classname;
  std::string name;
  Outcome outcome = Outcome::Passed;
  std::string message;  // for Failed and Skipped
};

struct JUnitSuite {
  std::string name;
  std::vector<JUnitCase> cases;
  double seconds = -1.0;  // omitted when negative
};

/// A JUnit XML document with one <testsuite> per suite.
std::string junit_xml(const std::string& document_name, const std::vector<JUnitSuite>& suites);

}  // namespace infoflow
