#pragma once
// The mutation harness's table (mutation.json, written by `infoflow-verify mutants`) as Markdown and
// HTML, for docs and for the report.
#include <nlohmann/json.hpp>

#include <string>

namespace infoflow {

std::string mutation_markdown(const nlohmann::json& report);
std::string mutation_html(const nlohmann::json& report);

}  // namespace infoflow
