#include "reports/mutation_table.hpp"

#include "reports/text_format.hpp"

#include <sstream>

namespace infoflow {

using nlohmann::json;

std::string mutation_markdown(const json& r) {
  std::ostringstream o;
  o << "| mutant | defect | caught | checks that failed |\n|---|---|---|---|\n";
  for (const auto& m : r.at("mutants")) {
    std::string killed;
    for (const auto& k : m.at("killed")) killed += (killed.empty() ? "" : ", ") + ("`" + k.get<std::string>() + "`");
    o << "| `" << m.at("mutant").get<std::string>() << "` | " << m.at("defect").get<std::string>() << " | "
      << (m.at("caught").get<bool>() ? "yes" : "**NO**") << " | " << (killed.empty() ? "none" : killed) << " |\n";
  }
  o << "\n| check | verdict without a mutant | killed by |\n|---|---|---|\n";
  for (const auto& c : r.at("checks")) {
    std::string by;
    for (const auto& k : c.at("killed_by")) by += (by.empty() ? "" : ", ") + k.get<std::string>();
    o << "| `" << c.at("check").get<std::string>() << "` | " << c.at("baseline").get<std::string>() << " | "
      << (by.empty() ? "**not killed**" : by) << " |\n";
  }
  if (!r.at("one_sided").empty()) {
    o << "\nOne-sided evidence (pass or inconclusive by design, never fail: fits bound the optimal cost from above "
         "only), not counted among the checks that must be able to fail:\n";
    for (const auto& c : r.at("one_sided")) o << "- `" << c.get<std::string>() << "`\n";
  }
  return o.str();
}

std::string mutation_html(const json& r) {
  std::ostringstream o;
  o << "<table class=\"mutants\"><tr><th>mutant</th><th>defect</th><th>caught</th><th>checks that failed</th></tr>\n";
  for (const auto& m : r.at("mutants")) {
    std::string killed;
    for (const auto& k : m.at("killed")) killed += (killed.empty() ? "" : ", ") + k.get<std::string>();
    const bool caught = m.at("caught").get<bool>();
    o << "<tr><td><code>" << xml_escape(m.at("mutant").get<std::string>()) << "</code></td><td>"
      << xml_escape(m.at("defect").get<std::string>()) << "</td><td class=\"" << (caught ? "pass" : "fail") << "\">"
      << (caught ? "yes" : "NO") << "</td><td>" << xml_escape(killed.empty() ? "none" : killed) << "</td></tr>\n";
  }
  o << "</table>\n<p>Checks no mutant has made fail: ";
  std::string unkilled;
  for (const auto& c : r.at("unkilled_checks")) unkilled += (unkilled.empty() ? "" : ", ") + c.get<std::string>();
  o << xml_escape(unkilled.empty() ? "none" : unkilled) << ".</p>\n";
  return o.str();
}

}  // namespace infoflow
