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
    if (killed.empty() && !m.value("caught_by_test", "").empty()) killed = "the test " + m.value("caught_by_test", "");
    o << "| `" << m.at("mutant").get<std::string>() << "` | " << m.at("defect").get<std::string>() << " | "
      << (m.at("caught").get<bool>() ? "yes" : "**NO**") << " | " << (killed.empty() ? "none" : killed) << " |\n";
  }
  // Evidence first: each must be killed by a mutant outside its own computation, i.e. one whose switch the check's
  // recorded computation (CheckComputation, in the unmutated run) never read.
  o << "\n| check | role | verdict without a mutant | killed from outside its computation (switch not read by the "
       "check) | killed from inside | switches its computation reads |\n"
       "|---|---|---|---|---|---|\n";
  const auto names = [](const json& list) {
    std::string s;
    for (const auto& k : list) s += (s.empty() ? "" : ", ") + k.get<std::string>();
    return s;
  };
  for (const bool evidence : {true, false})
    for (const auto& c : r.at("checks")) {
      const std::string role = c.value("role", "evidence");
      if ((role == "evidence") != evidence) continue;
      const std::string outside = names(c.value("killed_from_outside_by", json::array()));
      const std::string inside = names(c.value("killed_from_inside_by", json::array()));
      const std::string reads = c.value("computation_recorded", false)
                                    ? (names(c.value("computation_reads", json::array())).empty()
                                           ? "none"
                                           : names(c.value("computation_reads", json::array())))
                                    : "not recorded";
      o << "| `" << c.at("check").get<std::string>() << "` | " << role << " | " << c.at("baseline").get<std::string>()
        << " | " << (outside.empty() ? (role == "evidence" ? "**none**" : "none") : outside) << " | "
        << (inside.empty() ? "-" : inside) << " | " << reads << " |\n";
    }
  if (r.contains("controls") && !r.at("controls").empty()) {
    o << "\nControls (they must not show their check's effect; a control that passes leaves its check undecided):\n";
    for (const auto& c : r.at("controls"))
      o << "- `" << c.at("check").get<std::string>() << "`: " << c.at("verdict").get<std::string>() << "\n";
  }
  if (r.contains("undecided_at_size") && !r.at("undecided_at_size").empty()) {
    o << "\nFitted evidence not decided at the harness's size (its verdict there is not a pass: a comparison with the "
         "paper at the paper's size, a training budget), so not required to be killable here:\n";
    for (const auto& c : r.at("undecided_at_size")) o << "- `" << c.get<std::string>() << "`\n";
  }
  if (!r.at("one_sided").empty()) {
    o << "\nDiagnostics and one-sided evidence (never in a verdict: a per-model witness, or a fit that can pass or be "
         "inconclusive but never fail, since fits bound the optimal cost from above only), not counted among the checks "
         "that must be able to fail:\n";
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
    if (killed.empty() && !m.value("caught_by_test", "").empty()) killed = "the test " + m.value("caught_by_test", "");
    const bool caught = m.at("caught").get<bool>();
    o << "<tr><td><code>" << xml_escape(m.at("mutant").get<std::string>()) << "</code></td><td>"
      << xml_escape(m.at("defect").get<std::string>()) << "</td><td class=\"" << (caught ? "pass" : "fail") << "\">"
      << (caught ? "yes" : "NO") << "</td><td>" << xml_escape(killed.empty() ? "none" : killed) << "</td></tr>\n";
  }
  o << "</table>\n<table class=\"mutants\"><tr><th>evidence check</th><th>killed from outside its computation</th>"
       "<th>killed from inside</th></tr>\n";
  for (const auto& c : r.at("checks")) {
    if (c.value("role", "evidence") != "evidence") continue;
    std::string outside, inside;
    for (const auto& k : c.value("killed_from_outside_by", json::array())) outside += (outside.empty() ? "" : ", ") + k.get<std::string>();
    for (const auto& k : c.value("killed_from_inside_by", json::array())) inside += (inside.empty() ? "" : ", ") + k.get<std::string>();
    o << "<tr><td><code>" << xml_escape(c.at("check").get<std::string>()) << "</code></td><td class=\""
      << (outside.empty() ? "fail" : "pass") << "\">" << xml_escape(outside.empty() ? "none" : outside) << "</td><td>"
      << xml_escape(inside.empty() ? "-" : inside) << "</td></tr>\n";
  }
  o << "</table>\n<p>Checks no mutant has made fail: ";
  std::string unkilled;
  for (const auto& c : r.at("unkilled_checks")) unkilled += (unkilled.empty() ? "" : ", ") + c.get<std::string>();
  o << xml_escape(unkilled.empty() ? "none" : unkilled) << ".</p>\n";
  return o.str();
}

}  // namespace infoflow
