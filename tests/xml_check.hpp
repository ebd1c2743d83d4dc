#pragma once
// A strict check that a generated SVG (or any XML the toolkit writes) is well-formed, for the tests and the report
// fuzzer: every tag closed in order, attribute values quoted, only the five named entities and numeric references,
// no control character XML 1.0 forbids, and nothing but comments, text and elements. A label that escaped its
// quoting (a '<', an unescaped '&', a raw control character) makes it fail.
#include <string>
#include <vector>

namespace infoflow::test {

/// "" when `xml` is well-formed, else what is wrong and where.
inline std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  const auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_';
  };
  const auto at = [](std::size_t i) { return " at byte " + std::to_string(i); };
  const auto reference_end = [&](std::size_t i) -> std::size_t {  // xml[i] == '&'
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(i, std::char_traits<char>::length(e), e) == 0) return i + std::char_traits<char>::length(e);
    if (xml.compare(i, 2, "&#") == 0) {
      std::size_t j = i + 2;
      while (j < xml.size() && xml[j] >= '0' && xml[j] <= '9') ++j;
      if (j > i + 2 && j < xml.size() && xml[j] == ';') return j + 1;
    }
    return std::string::npos;
  };
  std::size_t i = 0;
  if (xml.compare(0, 5, "<?xml") == 0) i = xml.find("?>") == std::string::npos ? xml.size() : xml.find("?>") + 2;
  bool root_seen = false;
  while (i < xml.size()) {
    const unsigned char c = static_cast<unsigned char>(xml[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "control character" + at(i);
    if (c == 0xEF && i + 2 < xml.size() && static_cast<unsigned char>(xml[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(xml[i + 2]) & 0xFE) == 0xBE)
      return "U+FFFE or U+FFFF, not characters in XML 1.0," + at(i);
    if (c == '&') {
      const std::size_t end = reference_end(i);
      if (end == std::string::npos) return "unescaped '&'" + at(i);
      i = end;
      continue;
    }
    if (c == '>') return "unescaped '>' in text" + at(i);
    if (c != '<') {
      if (open.empty() && c != ' ' && c != '\n' && c != '\t' && c != '\r') return "text outside the root element" + at(i);
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const std::size_t end = xml.find("-->", i + 4);
      if (end == std::string::npos) return "unclosed comment" + at(i);
      i = end + 3;
      continue;
    }
    const bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    const std::size_t name_start = j;
    while (j < xml.size() && name_char(xml[j])) ++j;
    if (j == name_start) return "a '<' that starts no tag" + at(i);
    const std::string name = xml.substr(name_start, j - name_start);
    if (closing) {
      if (j >= xml.size() || xml[j] != '>') return "malformed end tag" + at(i);
      if (open.empty() || open.back() != name) return "end tag </" + name + "> does not close the open element" + at(i);
      open.pop_back();
      i = j + 1;
      continue;
    }
    if (open.empty() && root_seen) return "a second root element" + at(i);
    root_seen = true;
    // Attributes: name="value" (or 'value'), values free of '<' and with valid references.
    while (true) {
      while (j < xml.size() && (xml[j] == ' ' || xml[j] == '\n' || xml[j] == '\t')) ++j;
      if (j >= xml.size()) return "unclosed tag <" + name + at(i);
      if (xml[j] == '>') {
        open.push_back(name);
        i = j + 1;
        break;
      }
      if (xml.compare(j, 2, "/>") == 0) {
        i = j + 2;
        break;
      }
      const std::size_t attr = j;
      while (j < xml.size() && name_char(xml[j])) ++j;
      if (j == attr || j + 1 >= xml.size() || xml[j] != '=' || (xml[j + 1] != '"' && xml[j + 1] != '\''))
        return "malformed attribute in <" + name + ">" + at(j);
      const char quote = xml[j + 1];
      j += 2;
      while (j < xml.size() && xml[j] != quote) {
        const unsigned char a = static_cast<unsigned char>(xml[j]);
        if (a == '<' || (a < 0x20 && a != '\t' && a != '\n' && a != '\r')) return "forbidden character in an attribute" + at(j);
        if (a == '&') {
          const std::size_t end = reference_end(j);
          if (end == std::string::npos) return "unescaped '&' in an attribute" + at(j);
          j = end;
          continue;
        }
        ++j;
      }
      if (j >= xml.size()) return "unclosed attribute value" + at(attr);
      ++j;
    }
  }
  if (!open.empty()) return "element <" + open.back() + "> never closed";
  if (!root_seen) return "no element";
  return "";
}

}  // namespace infoflow::test
