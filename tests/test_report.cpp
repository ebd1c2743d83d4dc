// The report writer and its plots (reports/report_writer.hpp, reports/svg_plot.hpp): hostile labels stay text,
// log axes read as powers of ten, nothing is dropped silently, and the writes never follow a planted link.
#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "reports/report_writer.hpp"
#include "reports/svg_plot.hpp"
#include "reports/text_format.hpp"
#include "test_support.hpp"
#include "xml_check.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace infoflow;

namespace {

// Every way a label once reached gnuplot's interpreter (back-quotes, a newline ending the string, system(),
// `set output`, a shell escape) and every way one could break out of SVG or HTML.
const std::vector<std::string> kHostileLabels = {
    "x `touch PWNED` y",
    "title\" \nsystem(\"touch PWNED\")\nset output '/tmp/infoflow-pwned.svg'\n!touch PWNED\n\"",
    "a\\\" `id` \\",
    "</text><script>alert(1)</script><text>",
    "]]><!-- & &amp; &#x3c; &unknown;",
    std::string("control \x01\x02\x1b[31m\x7f characters"),
    "quote ' and \" both",
    "\xe2\x80\xae right-to-left and \xf0\x9f\x98\x80 emoji",
    "non-characters \xef\xbf\xbe and \xef\xbf\xbf",
};

Series hostile_series(const std::string& label) {
  Series s = Series::make("hostile", label, label, label);
  s.x = {1, 2, 4, 8};
  s.y = {1, 4, 16, 64};
  s.points_label = label;
  LineFit f;
  f.n = 4, f.slope = 2, f.intercept = 0;
  s.fit = f;
  s.exponent = ExponentRef{2.0, label};
  s.overlay = Series::Overlay{label, {1, 8}, {2, 128}};
  s.marker = std::make_pair(3.0, label);
  return s;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("Hostile labels in every field stay text: the SVG is well-formed and runs nothing", "[report]") {
  for (const auto& label : kHostileLabels) {
    INFO("label: " << label);
    const SeriesPlot plot = plot_series_svg(hostile_series(label));
    REQUIRE(plot.svg);
    CHECK(test::xml_problem(*plot.svg) == "");
    CHECK(plot.svg->find("<script") == std::string::npos);
    CHECK(plot.dropped.empty());
  }
  // No program was asked to run anything: the plots are written in-process.
  CHECK_FALSE(std::filesystem::exists("PWNED"));
  CHECK_FALSE(std::filesystem::exists("/tmp/infoflow-pwned.svg"));
}

TEST_CASE("A report of results with hostile strings is written and runs nothing", "[report]") {
  const std::string dir = test::temp_path("hostile-report");
  std::filesystem::remove_all(dir);
  SuiteResult r;
  r.suite = "hostile";
  r.title = kHostileLabels[1];
  r.profile = "quick";
  for (const auto& label : kHostileLabels) r.series.push_back(hostile_series(label));
  const ReportFiles files = write_report({r}, dir);
  CHECK(files.plots.size() == kHostileLabels.size());
  for (const auto& p : files.plots) CHECK(test::xml_problem(read_file(p)) == "");
  const std::string html = read_file(files.html);
  CHECK(html.find("<script>alert(1)") == std::string::npos);
  // report.md: result text stays text there too (no raw HTML, no table broken by a '|').
  const std::string md = read_file(files.markdown);
  CHECK(md.find("<script") == std::string::npos);
  CHECK(md.find("</text>") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists("PWNED"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Log axes are labelled with powers of ten, not raw decimals", "[report]") {
  Series s = Series::make("ticks", "parameters against 1/eps", "1/eps", "parameters");
  s.x = {10, 100, 1000, 1e4, 1e5, 1e6};
  s.y = {1e3, 1e6, 1e9, 1e12, 1e15, 1.0000000000000059e15};
  const SeriesPlot plot = plot_series_svg(s);
  REQUIRE(plot.svg);
  CHECK(plot.svg->find("10<tspan") != std::string::npos);
  CHECK(plot.svg->find("1000000000000005") == std::string::npos);
  CHECK(test::xml_problem(*plot.svg) == "");
}

TEST_CASE("Points that cannot be drawn are listed, not dropped silently", "[report]") {
  Series s = Series::make("kappa", "kappa(T)", "T", "kappa");
  s.x = {2, 3, 4, 5, 6};
  s.y = {0.5, 0.0, -1.0, NAN, 2.0};
  const SeriesPlot plot = plot_series_svg(s);
  REQUIRE(plot.svg);
  CHECK(plot.dropped.size() == 3);
  s.y = {0, 0, 0, 0, 0};
  const SeriesPlot none = plot_series_svg(s);
  CHECK_FALSE(none.svg);
  CHECK(none.dropped.size() == 5);
  // A linear axis draws zero and negative values.
  s.log_log = false;
  s.y = {0.5, 0.0, -1.0, NAN, 2.0};
  CHECK(plot_series_svg(s).dropped.size() == 1);
}

TEST_CASE("Error bars are drawn where a series has intervals, unbounded ends to the edge", "[report]") {
  Series s = Series::make("bars", "with intervals", "x", "y", false);
  s.x = {1, 2, 3};
  s.y = {1, 2, 3};
  s.y_interval = {Interval{0.5, 1.5}, Interval{1.5, INFINITY}, Interval{-INFINITY, 3.5}};
  const SeriesPlot plot = plot_series_svg(s);
  REQUIRE(plot.svg);
  CHECK(test::xml_problem(*plot.svg) == "");
  std::size_t bars = 0;
  for (std::size_t at = plot.svg->find("<path"); at != std::string::npos; at = plot.svg->find("<path", at + 1)) ++bars;
  CHECK(bars == 3);
}

TEST_CASE("The XML checker itself refuses what a broken label would produce", "[report]") {
  CHECK(test::xml_problem("<svg><text>a</text></svg>") == "");
  CHECK(test::xml_problem("<svg><text>a < b</text></svg>") != "");
  CHECK(test::xml_problem("<svg><text>a & b</text></svg>") != "");
  CHECK(test::xml_problem("<svg><text>a \x01 b</text></svg>") != "");
  CHECK(test::xml_problem("<svg><text x=\"1\" y=\"a\"b\">a</text></svg>") != "");
  CHECK(test::xml_problem("<svg><text></svg></text>") != "");
  CHECK(test::xml_problem(std::string("<svg>") + xml_escape("a < b & \x01 \"c\"") + "</svg>") == "");
}

TEST_CASE("A write never follows a link planted at a temporary name or at the file itself", "[report]") {
  // Temporaries used to be PATH.tmp.PID.N, opened with a truncating ofstream: a link planted there was followed.
  const std::string dir = test::temp_path("planted");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string victim = dir + "/victim", path = dir + "/report.md";
  {
    std::ofstream v(victim);
    v << "precious";
  }
  for (int n = 0; n < 200; ++n)
    std::filesystem::create_symlink(victim, path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(n));
  std::filesystem::create_symlink(victim, path);
  write_text_file_atomic(path, "report text");
  CHECK(read_file(victim) == "precious");
  CHECK_FALSE(std::filesystem::is_symlink(path));
  CHECK(read_file(path) == "report text");
  std::filesystem::remove_all(dir);
}

TEST_CASE("The lock file is never created through a link", "[report]") {
  const std::string dir = test::temp_path("lock-link");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(dir + "/elsewhere", dir + "/.infoflow-lock");  // dangling
  const auto take_lock = [&] { OutputFolderLock lock(dir, "--out"); };
  REQUIRE_THROWS_AS(take_lock(), InputError);
  CHECK_FALSE(std::filesystem::exists(dir + "/elsewhere"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("report reads DIR's own results only, and refuses none silently", "[report]") {
  const std::string dir = test::temp_path("collect");
  std::filesystem::remove_all(dir);
  SuiteResult r;
  r.suite = "s1";
  r.profile = "quick";
  write_json_file(dir + "/s1/result.json", to_json(r));
  r.suite = "deep";
  write_json_file(dir + "/a/b/result.json", to_json(r));  // two folders down: not DIR's own
  r.suite = "linked";
  write_json_file(test::temp_path("collect-outside.json"), to_json(r));
  std::filesystem::create_directories(dir + "/link");
  std::filesystem::create_symlink(test::temp_path("collect-outside.json"), dir + "/link/result.json");
  std::filesystem::create_symlink(dir + "/gone", dir + "/dangling");
  const CollectedResults c = collect_results(dir);
  REQUIRE(c.results.size() == 1);
  CHECK(c.results[0].suite == "s1");
  std::filesystem::remove_all(dir);
  std::filesystem::remove(test::temp_path("collect-outside.json"));
}

TEST_CASE("Ordinals", "[report]") {
  CHECK(ordinal(1) == "1st");
  CHECK(ordinal(2) == "2nd");
  CHECK(ordinal(3) == "3rd");
  CHECK(ordinal(4) == "4th");
  CHECK(ordinal(11) == "11th");
  CHECK(ordinal(12) == "12th");
  CHECK(ordinal(13) == "13th");
  CHECK(ordinal(21) == "21st");
  CHECK(ordinal(112) == "112th");
}
