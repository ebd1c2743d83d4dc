#include "reports/text_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace infoflow {

std::string ordinal(long n) {
  const long last = n % 10, last_two = n % 100;
  const char* suffix = (last_two >= 11 && last_two <= 13) ? "th" : last == 1 ? "st" : last == 2 ? "nd" : last == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string xml_escape(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // U+FFFE and U+FFFF (UTF-8 EF BF BE, EF BF BF) are not characters in XML 1.0 either.
    if (static_cast<unsigned char>(c) == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(s[i + 2]) == 0xBE || static_cast<unsigned char>(s[i + 2]) == 0xBF)) {
      r += "\uFFFD";
      i += 2;
      continue;
    }
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&#39;"; break;
      case '\t': case '\n': case '\r': r += c; break;
      // Other control characters are not allowed in XML 1.0 at all (a document with one does not parse).
      default: r += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? std::string("\uFFFD") : std::string(1, c);
    }
  }
  return r;
}

std::string file_safe_name(std::string s) {
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  return s;
}

std::string junit_xml(const std::string& document_name, const std::vector<JUnitSuite>& suites) {
  // The common JUnit schema (tests/junit_schema.xsd): every testsuite carries tests, failures and errors (a failed check
  // is a failure; nothing here is an error, which JUnit keeps for a test that crashed), and times are plain decimals.
  auto failures_in = [](const JUnitSuite& s) {
    return std::count_if(s.cases.begin(), s.cases.end(), [](const JUnitCase& c) { return c.outcome == JUnitCase::Outcome::Failed; });
  };
  std::size_t tests = 0, failures_total = 0;
  for (const auto& s : suites) tests += s.cases.size(), failures_total += failures_in(s);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" << xml_escape(document_name) << "\" tests=\""
    << tests << "\" failures=\"" << failures_total << "\" errors=\"0\">\n";
  for (const auto& s : suites) {
    const auto skipped = std::count_if(s.cases.begin(), s.cases.end(),
                                       [](const JUnitCase& c) { return c.outcome == JUnitCase::Outcome::Skipped; });
    x << "  <testsuite name=\"" << xml_escape(s.name) << "\" tests=\"" << s.cases.size() << "\" failures=\""
      << failures_in(s) << "\" errors=\"0\" skipped=\"" << skipped << "\"";
    if (s.seconds >= 0) {
      char seconds[64];
      std::snprintf(seconds, sizeof seconds, "%.6f", s.seconds);
      x << " time=\"" << seconds << "\"";
    }
    x << ">\n";
    for (const auto& c : s.cases) {
      x << "    <testcase classname=\"" << xml_escape(c.classname) << "\" name=\"" << xml_escape(c.name) << "\">";
      if (c.outcome == JUnitCase::Outcome::Failed) x << "<failure message=\"" << xml_escape(c.message) << "\"/>";
      if (c.outcome == JUnitCase::Outcome::Skipped) x << "<skipped message=\"" << xml_escape(c.message) << "\"/>";
      x << "</testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

}  // namespace infoflow
