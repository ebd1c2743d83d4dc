#pragma once
// Splitting comma-separated text (suite options, CSV lines): one helper for both.
#include <sstream>
#include <string>
#include <vector>

namespace infoflow {

/// The fields of `s` between commas, optionally with surrounding spaces, tabs and CRs trimmed.
inline std::vector<std::string> split_commas(const std::string& s, bool trim = false) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (trim) {
      const auto first = item.find_first_not_of(" \t\r"), last = item.find_last_not_of(" \t\r");
      item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    }
    out.push_back(item);
  }
  return out;
}

}  // namespace infoflow
