#include "reports/svg_plot.hpp"

#include "reports/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace infoflow {

namespace {

// The picture's geometry, in SVG user units (pixels at 100 %).
constexpr double kWidth = 680;
constexpr double kPlotLeft = 84, kPlotRight = 664;  // the axes' box, horizontally
constexpr double kPlotHeight = 300;
constexpr double kTitleSize = 14, kTextSize = 12, kTickSize = 11;
// Average advance of a character in the sans-serif fonts browsers pick, as a fraction of the font size: used to
// wrap and shorten text so that it fits (erring wide, so text never runs past the picture).
constexpr double kCharWidth = 0.6;
constexpr int kMaxTitleLines = 3;

const char* const kPointsColour = "#1f77b4";
const char* const kFitColour = "#d62728";
const char* const kReferenceColour = "#2ca02c";
const char* const kOverlayColour = "#ff7f0e";
const char* const kMarkerColour = "#9467bd";

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// How many characters of `size`-point text fit in `width` units.
std::size_t chars_fitting(double width, double size) { return static_cast<std::size_t>(width / (kCharWidth * size)); }

// s shortened to at most `n` characters, with an ellipsis when anything was cut.
std::string shortened(const std::string& s, std::size_t n) {
  if (code_points(s) <= n) return s;
  return first_code_points(s, n > 1 ? n - 1 : 0) + "\u2026";
}

// Words of s in lines of at most `n` characters, at most `max_lines` of them (the last shortened if need be).
std::vector<std::string> wrapped(const std::string& s, std::size_t n, int max_lines) {
  std::vector<std::string> lines;
  std::istringstream words(s);
  std::string word, line;
  while (words >> word) {
    if (line.empty()) line = word;
    else if (code_points(line) + 1 + code_points(word) <= n) line += " " + word;
    else {
      lines.push_back(line);
      line = word;
    }
  }
  if (!line.empty()) lines.push_back(line);
  if (static_cast<int>(lines.size()) > max_lines) {
    std::string rest;
    for (std::size_t i = max_lines - 1; i < lines.size(); ++i) rest += (rest.empty() ? "" : " ") + lines[i];
    lines.resize(max_lines - 1);
    lines.push_back(rest);
  }
  for (auto& l : lines) l = shortened(l, n);
  return lines;
}

// An axis: its range in plot coordinates (log10 of the data on a log axis) and where it is drawn.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;          // data range, in axis coordinates
  double pixel_lo = 0, pixel_hi = 1;
  double coordinate(double v) const { return log ? std::log10(v) : v; }
  double pixel(double v) const { return pixel_lo + (coordinate(v) - lo) / (hi - lo) * (pixel_hi - pixel_lo); }
};

struct Tick {
  double value;
  std::string mantissa;  // "" for a power of ten on a log axis; the tick's label on a linear one
  int exponent = 0;      // the power of ten (log axis)
};

// Widens [lo, hi] by 5 % on each side (or by a unit when it is a single value).
void pad(double& lo, double& hi) {
  if (!(hi > lo)) {
    const double w = std::max(1.0, std::abs(lo)) * 0.5;
    lo -= w, hi += w;
    return;
  }
  const double w = (hi - lo) * 0.05;
  lo -= w, hi += w;
}

// Log axis ticks: every power of ten in range (thinned to at most 8), with 2× and 5× ticks when fewer than
// two powers fall in range.
std::vector<Tick> log_ticks(const Axis& a) {
  std::vector<Tick> ticks;
  const int k_lo = static_cast<int>(std::ceil(a.lo - 1e-9)), k_hi = static_cast<int>(std::floor(a.hi + 1e-9));
  const int decades = k_hi - k_lo + 1;
  const int step = decades > 8 ? (decades + 7) / 8 : 1;
  for (int k = k_lo; k <= k_hi; ++k)
    if ((k - k_lo) % step == 0) ticks.push_back({std::pow(10.0, k), "", k});
  if (decades < 2)
    for (int k = k_lo - 1; k <= k_hi; ++k)
      for (const int m : {2, 5}) {
        const double v = m * std::pow(10.0, k);
        if (std::log10(v) >= a.lo && std::log10(v) <= a.hi) ticks.push_back({v, std::to_string(m), k});
      }
  std::sort(ticks.begin(), ticks.end(), [](const Tick& x, const Tick& y) { return x.value < y.value; });
  return ticks;
}

// Linear axis ticks at multiples of 1, 2 or 5 × 10^m, 4 to 10 of them, labelled with up to 6 significant digits.
std::vector<Tick> linear_ticks(const Axis& a) {
  const double span = a.hi - a.lo;
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (m * step) <= 10) {
      step *= m;
      break;
    }
  std::vector<Tick> ticks;
  for (double k = std::ceil(a.lo / step); k * step <= a.hi && ticks.size() < 12; k += 1) {
    const double v = k * step;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", std::abs(v) < step * 1e-9 ? 0.0 : v);
    ticks.push_back({v, buf, 0});
  }
  return ticks;
}

// A label as SVG text content: a power of ten as 10 with a raised exponent, anything else escaped.
std::string tick_label(const Tick& t, bool log) {
  if (!log) return xml_escape(t.mantissa);
  const std::string power = "10<tspan dy=\"-5\" font-size=\"9\">" + std::to_string(t.exponent) + "</tspan>";
  return t.mantissa.empty() ? power : t.mantissa + "\u00d7" + power;
}

struct Point {
  double x, y;
};

struct Drawable {
  std::vector<Point> points;
  std::vector<Interval> intervals;  // one per point, or empty
  std::vector<Point> overlay;
};

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

std::string point_text(double x, double y) { return "(" + format_number(x, 6) + ", " + format_number(y, 6) + ")"; }

// The points that can be drawn; the others are listed in `dropped` with the reason.
Drawable drawable_points(const Series& s, std::vector<std::string>& dropped) {
  Drawable d;
  const bool with_intervals = s.y_interval.size() == s.x.size();
  const auto keep = [&](double x, double y, const std::string& which) {
    if (drawable(x, s.log_log) && drawable(y, s.log_log)) return true;
    const bool finite = std::isfinite(x) && std::isfinite(y);
    dropped.push_back(which + " " + point_text(x, y) + ": " + (finite ? "not positive, cannot be drawn on a log axis" : "not finite"));
    return false;
  };
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
    if (keep(s.x[i], s.y[i], s.points_label)) {
      d.points.push_back({s.x[i], s.y[i]});
      if (with_intervals) d.intervals.push_back(s.y_interval[i]);
    }
  if (s.overlay)
    for (std::size_t i = 0; i < s.overlay->x.size() && i < s.overlay->y.size(); ++i)
      if (keep(s.overlay->x[i], s.overlay->y[i], s.overlay->label)) d.overlay.push_back({s.overlay->x[i], s.overlay->y[i]});
  return d;
}

// A line y = f(x) of the plot: the fit, or the reference through the points' centroid.
struct Line {
  double slope = 0, intercept = 0;  // in axis coordinates: log10 y = intercept + slope log10 x on log axes
  std::string label;
  const char* colour;
  const char* dash;
};

std::string legend_number(double v) { return format_number(v, 3); }

std::vector<Line> series_lines(const Series& s, const std::vector<Point>& pts) {
  std::vector<Line> lines;
  if (s.fit && std::isfinite(s.fit->slope) && std::isfinite(s.fit->intercept))
    // The fit is of log y on log x (natural logarithms): the same line in log10 coordinates.
    lines.push_back({s.fit->slope, s.log_log ? s.fit->intercept / std::log(10.0) : s.fit->intercept,
                     "fit: slope " + legend_number(s.fit->slope), kFitColour, ""});
  if (s.exponent && std::isfinite(s.exponent->value)) {
    if (s.log_log && !pts.empty()) {
      double mx = 0, my = 0;
      for (const auto& p : pts) mx += std::log10(p.x), my += std::log10(p.y);
      mx /= pts.size(), my /= pts.size();
      lines.push_back({s.exponent->value, my - s.exponent->value * mx,
                       s.exponent->source + " slope " + legend_number(s.exponent->value) + " (through the points' centre)",
                       kReferenceColour, "6,4"});
    } else if (!s.log_log && s.exponent->intercept && std::isfinite(*s.exponent->intercept)) {
      lines.push_back({s.exponent->value, *s.exponent->intercept,
                       s.exponent->source + ": " + legend_number(*s.exponent->intercept) + " + " +
                           legend_number(s.exponent->value) + " x",
                       kReferenceColour, "6,4"});
    }
  }
  return lines;
}

struct Ranges {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -std::numeric_limits<double>::infinity();
  double y_lo = std::numeric_limits<double>::infinity(), y_hi = -std::numeric_limits<double>::infinity();
  void add_x(double v) { x_lo = std::min(x_lo, v), x_hi = std::max(x_hi, v); }
  void add_y(double v) { y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v); }
};

// The axes' ranges: the drawn points, their intervals where drawable, the overlay and the marker.
Ranges data_ranges(const Series& s, const Drawable& d) {
  Ranges r;
  const auto coord = [&](double v) { return s.log_log ? std::log10(v) : v; };
  for (const auto& p : d.points) r.add_x(coord(p.x)), r.add_y(coord(p.y));
  for (const auto& p : d.overlay) r.add_x(coord(p.x)), r.add_y(coord(p.y));
  for (const auto& i : d.intervals) {
    if (drawable(i.lo, s.log_log)) r.add_y(coord(i.lo));
    if (drawable(i.hi, s.log_log)) r.add_y(coord(i.hi));
  }
  if (s.marker && drawable(s.marker->first, s.log_log)) r.add_x(coord(s.marker->first));
  pad(r.x_lo, r.x_hi);
  pad(r.y_lo, r.y_hi);
  return r;
}

class SvgWriter {
 public:
  explicit SvgWriter(const Series& s) : s_(s) {}

  std::string draw(const Drawable& d) {
    const std::size_t title_chars = chars_fitting(kWidth - 20, kTitleSize);
    const auto title = wrapped(s_.title, title_chars, kMaxTitleLines);
    const double plot_top = 16 + kTitleSize * 1.3 * title.size() + 8;
    const double plot_bottom = plot_top + kPlotHeight;
    const Ranges r = data_ranges(s_, d);
    x_ = Axis{s_.log_log, r.x_lo, r.x_hi, kPlotLeft, kPlotRight};
    y_ = Axis{s_.log_log, r.y_lo, r.y_hi, plot_bottom, plot_top};
    const auto lines = series_lines(s_, d.points);
    std::vector<LegendEntry> legend;
    legend.push_back({"points", s_.points_label, kPointsColour, ""});
    for (const auto& l : lines) legend.push_back({"line", l.label, l.colour, l.dash});
    if (!d.overlay.empty()) legend.push_back({"overlay", s_.overlay->label, kOverlayColour, ""});
    if (s_.marker && drawable(s_.marker->first, s_.log_log))
      legend.push_back({"marker", s_.marker->second + " (x = " + format_number(s_.marker->first, 4) + ")", kMarkerColour, "2,3"});
    const double legend_top = plot_bottom + 46;
    const double height = legend_top + 18 * legend.size() + 8;

    out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fixed(kWidth) << "\" height=\"" << fixed(height)
         << "\" viewBox=\"0 0 " << fixed(kWidth) << " " << fixed(height)
         << "\" font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    for (std::size_t i = 0; i < title.size(); ++i)
      text(kWidth / 2, 16 + kTitleSize + kTitleSize * 1.3 * i, title[i], kTitleSize, "middle", "bold");
    out_ << "<defs><clipPath id=\"plot-area\"><rect x=\"" << fixed(kPlotLeft) << "\" y=\"" << fixed(plot_top)
         << "\" width=\"" << fixed(kPlotRight - kPlotLeft) << "\" height=\"" << fixed(kPlotHeight)
         << "\"/></clipPath></defs>\n";
    axes(plot_top, plot_bottom);
    out_ << "<g clip-path=\"url(#plot-area)\">\n";
    for (const auto& l : lines) line(l);
    if (!d.overlay.empty()) overlay(d.overlay);
    if (s_.marker && drawable(s_.marker->first, s_.log_log)) {
      const double px = x_.pixel(s_.marker->first);
      out_ << "<line x1=\"" << fixed(px) << "\" y1=\"" << fixed(plot_top) << "\" x2=\"" << fixed(px) << "\" y2=\""
           << fixed(plot_bottom) << "\" stroke=\"" << kMarkerColour << "\" stroke-width=\"2\" stroke-dasharray=\"2,3\"/>\n";
    }
    points(d);
    out_ << "</g>\n";
    for (std::size_t i = 0; i < legend.size(); ++i) legend_row(legend[i], legend_top + 18 * i);
    out_ << "</svg>\n";
    return out_.str();
  }

 private:
  struct LegendEntry {
    std::string kind, label;
    const char* colour;
    const char* dash;
  };

  void text(double x, double y, const std::string& content, double size, const char* anchor, const char* weight = "normal",
            const char* extra = "") {
    out_ << "<text x=\"" << fixed(x) << "\" y=\"" << fixed(y) << "\" font-size=\"" << fixed(size) << "\" text-anchor=\""
         << anchor << "\" font-weight=\"" << weight << "\"" << extra << ">" << xml_escape(content) << "</text>\n";
  }

  void axes(double top, double bottom) {
    out_ << "<rect x=\"" << fixed(kPlotLeft) << "\" y=\"" << fixed(top) << "\" width=\"" << fixed(kPlotRight - kPlotLeft)
         << "\" height=\"" << fixed(kPlotHeight) << "\" fill=\"none\" stroke=\"#444\"/>\n";
    for (const Tick& t : x_.log ? log_ticks(x_) : linear_ticks(x_)) {
      const double px = x_.pixel(t.value);
      out_ << "<line x1=\"" << fixed(px) << "\" y1=\"" << fixed(top) << "\" x2=\"" << fixed(px) << "\" y2=\"" << fixed(bottom)
           << "\" stroke=\"#e4e4e4\"/>\n<text x=\"" << fixed(px) << "\" y=\"" << fixed(bottom + 16) << "\" font-size=\""
           << fixed(kTickSize) << "\" text-anchor=\"middle\">" << tick_label(t, x_.log) << "</text>\n";
    }
    for (const Tick& t : y_.log ? log_ticks(y_) : linear_ticks(y_)) {
      const double py = y_.pixel(t.value);
      out_ << "<line x1=\"" << fixed(kPlotLeft) << "\" y1=\"" << fixed(py) << "\" x2=\"" << fixed(kPlotRight) << "\" y2=\""
           << fixed(py) << "\" stroke=\"#e4e4e4\"/>\n<text x=\"" << fixed(kPlotLeft - 6) << "\" y=\"" << fixed(py + 4)
           << "\" font-size=\"" << fixed(kTickSize) << "\" text-anchor=\"end\">" << tick_label(t, y_.log) << "</text>\n";
    }
    text((kPlotLeft + kPlotRight) / 2, bottom + 36, shortened(s_.x_label, chars_fitting(kPlotRight - kPlotLeft, kTextSize)),
         kTextSize, "middle");
    const double mid = (top + bottom) / 2;
    const std::string rotate = " transform=\"rotate(-90 16 " + fixed(mid) + ")\"";
    text(16, mid, shortened(s_.y_label, chars_fitting(kPlotHeight, kTextSize)), kTextSize, "middle", "normal",
         rotate.c_str());
  }

  void line(const Line& l) {
    const double x0 = x_.lo, x1 = x_.hi;
    const auto py = [&](double xc) {
      return y_.pixel_lo + (l.intercept + l.slope * xc - y_.lo) / (y_.hi - y_.lo) * (y_.pixel_hi - y_.pixel_lo);
    };
    const double y0 = py(x0), y1 = py(x1);
    if (!std::isfinite(y0) || !std::isfinite(y1)) return;
    // Clamped far outside the picture (the clip path cuts it), so a steep line stays a finite number.
    const auto clamp = [](double v) { return std::clamp(v, -1e5, 1e5); };
    out_ << "<line x1=\"" << fixed(x_.pixel_lo) << "\" y1=\"" << fixed(clamp(y0)) << "\" x2=\"" << fixed(x_.pixel_hi)
         << "\" y2=\"" << fixed(clamp(y1)) << "\" stroke=\"" << l.colour << "\" stroke-width=\"2\"";
    if (*l.dash) out_ << " stroke-dasharray=\"" << l.dash << "\"";
    out_ << "/>\n";
  }

  void overlay(const std::vector<Point>& pts) {
    out_ << "<polyline fill=\"none\" stroke=\"" << kOverlayColour << "\" stroke-width=\"2\" points=\"";
    for (const auto& p : pts) out_ << fixed(x_.pixel(p.x)) << "," << fixed(y_.pixel(p.y)) << " ";
    out_ << "\"/>\n";
    for (const auto& p : pts)
      out_ << "<rect x=\"" << fixed(x_.pixel(p.x) - 3.5) << "\" y=\"" << fixed(y_.pixel(p.y) - 3.5)
           << "\" width=\"7\" height=\"7\" fill=\"" << kOverlayColour << "\"/>\n";
  }

  void points(const Drawable& d) {
    for (std::size_t i = 0; i < d.intervals.size(); ++i) {
      const Interval& iv = d.intervals[i];
      // An interval end that cannot be drawn (infinite, or not positive on a log axis) runs to the picture's edge.
      const double top = drawable(iv.hi, y_.log) ? y_.pixel(iv.hi) : y_.pixel_hi;
      const double bottom = drawable(iv.lo, y_.log) ? y_.pixel(iv.lo) : y_.pixel_lo;
      const double px = x_.pixel(d.points[i].x);
      out_ << "<path d=\"M" << fixed(px) << " " << fixed(bottom) << "V" << fixed(top) << "M" << fixed(px - 4) << " "
           << fixed(top) << "h8M" << fixed(px - 4) << " " << fixed(bottom) << "h8\" stroke=\"" << kPointsColour
           << "\" stroke-width=\"1.5\" fill=\"none\"/>\n";
    }
    for (const auto& p : d.points)
      out_ << "<circle cx=\"" << fixed(x_.pixel(p.x)) << "\" cy=\"" << fixed(y_.pixel(p.y)) << "\" r=\"4\" fill=\""
           << kPointsColour << "\"/>\n";
  }

  void legend_row(const LegendEntry& e, double y) {
    const double x = kPlotLeft;
    if (e.kind == "points") {
      out_ << "<circle cx=\"" << fixed(x + 12) << "\" cy=\"" << fixed(y - 4) << "\" r=\"4\" fill=\"" << e.colour << "\"/>\n";
    } else if (e.kind == "overlay") {
      out_ << "<line x1=\"" << fixed(x) << "\" y1=\"" << fixed(y - 4) << "\" x2=\"" << fixed(x + 24) << "\" y2=\""
           << fixed(y - 4) << "\" stroke=\"" << e.colour << "\" stroke-width=\"2\"/><rect x=\"" << fixed(x + 8.5)
           << "\" y=\"" << fixed(y - 7.5) << "\" width=\"7\" height=\"7\" fill=\"" << e.colour << "\"/>\n";
    } else {
      out_ << "<line x1=\"" << fixed(x) << "\" y1=\"" << fixed(y - 4) << "\" x2=\"" << fixed(x + 24) << "\" y2=\""
           << fixed(y - 4) << "\" stroke=\"" << e.colour << "\" stroke-width=\"2\"";
      if (*e.dash) out_ << " stroke-dasharray=\"" << e.dash << "\"";
      out_ << "/>\n";
    }
    text(x + 32, y, shortened(e.label, chars_fitting(kWidth - x - 40, kTextSize)), kTextSize, "start");
  }

  const Series& s_;
  Axis x_, y_;
  std::ostringstream out_;
};

}  // namespace

SeriesPlot plot_series_svg(const Series& s) {
  SeriesPlot plot;
  const Drawable d = drawable_points(s, plot.dropped);
  if (d.points.empty() && d.overlay.empty()) {
    plot.why = s.x.empty() ? "no points" : "no point can be drawn";
    return plot;
  }
  plot.svg = SvgWriter(s).draw(d);
  return plot;
}

}  // namespace infoflow
