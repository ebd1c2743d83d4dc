// Fuzzes the report's plots with hostile labels and numbers: a result.json (any series field), or, when the
// input is not JSON, its raw bytes as every label of a series. The SVG must be well-formed XML whatever the text
// (a label that escaped its quoting would break it), and no program is ever run to draw it.
#include "../xml_check.hpp"
#include "fuzz_check.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "reports/result.hpp"
#include "reports/svg_plot.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

void check_plot(const infoflow::Series& s) {
  const infoflow::SeriesPlot plot = infoflow::plot_series_svg(s);
  if (plot.svg) FUZZ_CHECK(infoflow::test::xml_problem(*plot.svg).empty());
  else FUZZ_CHECK(!plot.why.empty());
}

// The raw bytes as every label, and the first bytes as numbers (any double, NaN and infinities included).
infoflow::Series raw_series(const std::string& text) {
  infoflow::Series s = infoflow::Series::make("raw", text, text, text);
  s.points_label = text;
  for (std::size_t i = 0; i + 16 <= text.size() && i < 128; i += 16) {
    double x, y;
    std::memcpy(&x, text.data() + i, 8);
    std::memcpy(&y, text.data() + i + 8, 8);
    s.x.push_back(x);
    s.y.push_back(y);
    s.y_interval.push_back(infoflow::Interval{y - std::fabs(x), y + std::fabs(x)});
  }
  if (s.x.empty()) s.x = {1, 2}, s.y = {1, 3};
  if (s.y_interval.size() != s.x.size()) s.y_interval.clear();
  infoflow::LineFit f;
  f.n = s.x.size(), f.slope = s.x[0], f.intercept = s.y[0];
  s.fit = f;
  s.exponent = infoflow::ExponentRef{s.y[0], text, s.x[0]};
  s.overlay = infoflow::Series::Overlay{text, s.x, s.y};
  s.marker = std::make_pair(s.x[0], text);
  s.log_log = !text.empty() && (text[0] & 1);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto j = infoflow::try_parse_json_text(text);
  if (j.is_discarded()) {
    check_plot(raw_series(text));
    return 0;
  }
  try {
    for (const auto& s : infoflow::suite_result_from_json(j).series) check_plot(s);
  } catch (const infoflow::InputError&) {
  }
  return 0;
}
