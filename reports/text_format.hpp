#pragma once
// Text helpers shared by the report writer and the regression: number formatting (numerics/util/number_text.hpp), escaping for
// HTML/XML, file-safe names, and one JUnit XML writer.
#include <string>
#include <vector>

#include "numerics/util/number_text.hpp"  // format_number, format_bound (re-exported for the writers)
#include "numerics/util/utf8.hpp"  // code_points, first_code_points, terminal_text (re-exported for the writers)

namespace infoflow {

/// 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, …
std::string ordinal(long n);

/// Escapes & < > " ' for HTML text, attributes and XML alike; control characters other than tab, newline and
/// carriage return (which XML 1.0 forbids) become U+FFFD.
std::string xml_escape(const std::string& s);

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
