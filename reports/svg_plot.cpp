#include "reports/svg_plot.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace infoflow {

namespace {
std::string gp_quote(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r + "\"";
}
}  // namespace

std::optional<std::string> plot_series_svg(const Series& s, std::string& why) {
  if (s.x.empty()) {
    why = "no points";
    return std::nullopt;
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    why = "gnuplot not found (scripts/setup installs gnuplot-nox)";
    return std::nullopt;
  }
  char tmpl[] = "/tmp/infoflow-plot-XXXXXX";
  if (!mkdtemp(tmpl)) {
    why = "cannot create a temporary directory";
    return std::nullopt;
  }
  const std::filesystem::path dir(tmpl);
  {
    std::ofstream data(dir / "points.dat");
    data << std::setprecision(17);
    for (std::size_t i = 0; i < s.x.size(); ++i) data << s.x[i] << ' ' << s.y[i] << '\n';
  }
  if (s.overlay) {
    std::ofstream data(dir / "overlay.dat");
    data << std::setprecision(17);
    for (std::size_t i = 0; i < s.overlay->x.size(); ++i) data << s.overlay->x[i] << ' ' << s.overlay->y[i] << '\n';
  }
  std::ostringstream gp;
  gp << std::setprecision(17);
  gp << "set terminal svg size 640,420 font 'Helvetica,12' background rgb 'white'\n";
  gp << "set output " << gp_quote((dir / "plot.svg").string()) << "\n";
  gp << "set title " << gp_quote(s.title) << " noenhanced\n";
  gp << "set xlabel " << gp_quote(s.x_label) << " noenhanced\nset ylabel " << gp_quote(s.y_label) << " noenhanced\n";
  if (s.log_log) gp << "set logscale xy\n";
  gp << "set key top left box noenhanced\nset grid\n";
  std::string plot = "plot " + gp_quote((dir / "points.dat").string()) + " using 1:2 with points pt 7 ps 1 lc rgb '#1f77b4' title " + gp_quote(s.points_label);
  if (s.fit) {
    if (s.log_log)
      gp << "fitline(x) = exp(" << s.fit->intercept << ") * x**(" << s.fit->slope << ")\n";
    else
      gp << "fitline(x) = " << s.fit->intercept << " + " << s.fit->slope << " * x\n";
    std::ostringstream t;
    t << std::setprecision(3) << "fit: slope " << s.fit->slope;
    plot += ", fitline(x) with lines lw 2 lc rgb '#d62728' title " + gp_quote(t.str());
  }
  if (s.exponent && s.log_log) {
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < s.x.size(); ++i) mx += std::log(s.x[i]), my += std::log(s.y[i]);
    mx /= s.x.size(), my /= s.y.size();
    gp << "refline(x) = exp(" << (my - s.exponent->value * mx) << ") * x**(" << s.exponent->value << ")\n";
    std::ostringstream t;
    t << std::setprecision(3) << s.exponent->source << " slope " << s.exponent->value;
    plot += ", refline(x) with lines dt 2 lw 2 lc rgb '#2ca02c' title " + gp_quote(t.str());
  } else if (s.exponent && s.exponent->intercept) {
    gp << "refline(x) = " << *s.exponent->intercept << " + " << s.exponent->value << " * x\n";
    std::ostringstream t;
    t << std::setprecision(3) << s.exponent->source << ": " << *s.exponent->intercept << " + " << s.exponent->value << " x";
    plot += ", refline(x) with lines dt 2 lw 2 lc rgb '#2ca02c' title " + gp_quote(t.str());
  }
  if (s.overlay && !s.overlay->x.empty())
    plot += ", " + gp_quote((dir / "overlay.dat").string()) +
            " using 1:2 with linespoints pt 5 ps 0.8 lw 2 lc rgb '#ff7f0e' title " + gp_quote(s.overlay->label);
  if (s.marker) {
    gp << "set arrow from " << s.marker->first << ", graph 0 to " << s.marker->first
       << ", graph 1 nohead dt 3 lw 2 lc rgb '#9467bd'\n";
    gp << "set label " << gp_quote(s.marker->second) << " at " << s.marker->first
       << ", graph 0.92 offset 0.5,0 noenhanced tc rgb '#9467bd'\n";
  }
  gp << plot << "\n";
  {
    std::ofstream script(dir / "plot.gp");
    script << gp.str();
  }
  const std::string cmd = "gnuplot " + (dir / "plot.gp").string() + " 2>" + (dir / "gnuplot.err").string();
  const int rc = std::system(cmd.c_str());
  std::optional<std::string> svg;
  if (rc == 0) {
    std::ifstream in(dir / "plot.svg");
    std::stringstream ss;
    ss << in.rdbuf();
    svg = ss.str();
    // gnuplot names the file it wrote in the SVG; drop the temporary path for determinism.
    const auto pos = svg->find(dir.string());
    if (pos != std::string::npos) svg->erase(pos, dir.string().size());
  } else {
    std::ifstream in(dir / "gnuplot.err");
    std::stringstream ss;
    ss << in.rdbuf();
    why = "gnuplot failed: " + ss.str();
  }
  std::filesystem::remove_all(dir);
  return svg;
}

}  // namespace infoflow
