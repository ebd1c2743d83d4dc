#include "theorems/common/certify_soundness.hpp"

#include "numerics/certify/branch_and_bound.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/model.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"
#include "reports/result.hpp"
#include "reports/text_format.hpp"
#include "numerics/certify/certify_model.hpp"
#include "numerics/target/target_eval.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace infoflow {

using nlohmann::json;

namespace {

constexpr long kSearchPrec = 256;

// ---- random models ----

// Weights of every magnitude the checks meet, from tiny to 1e3: a tiny model is nearly constant (its error is the
// target's), a large one has sharp softmaxes and many ReLU kinks inside a box.
constexpr double kScales[] = {1e-3, 0.3, 1.0, 3.0, 30.0, 1e3};

struct RandomModel {
  Model model;
  std::string description;
};

MapShape random_map(SplitMix64& rng, int in, int out, int max_width, std::string& text, const char* name) {
  if (rng.uniform() < 0.5) {
    text += std::string(" ") + name + "=affine";
    return MapShape{MapKind::Affine, in, out, 0};
  }
  const int width = 2 + static_cast<int>(rng.uniform_index(static_cast<std::size_t>(max_width - 1)));
  text += std::string(" ") + name + "=ffn" + std::to_string(width);
  return MapShape{MapKind::Ffn, in, out, width};
}

RandomModel random_campaign_model(SplitMix64& rng, int d, int T) {
  RandomModel r;
  Architecture a;
  a.d = d;
  a.E = 2 + static_cast<int>(rng.uniform_index(3));
  const int layers = 1 + static_cast<int>(rng.uniform_index(2));
  std::string shape = std::to_string(layers) + " layer(s), heads";
  for (int l = 0; l < layers; ++l) {
    LayerShape layer;
    const int heads = 1 + static_cast<int>(rng.uniform_index(3));
    for (int h = 0; h < heads; ++h)
      layer.heads.push_back(HeadShape{1 + static_cast<int>(rng.uniform_index(2)), 1 + static_cast<int>(rng.uniform_index(2))});
    shape += (l ? "+" : " ") + std::to_string(heads);
    if (l + 1 < layers && rng.uniform() < 0.6) layer.ffn_width = 2 + static_cast<int>(rng.uniform_index(3));
    if (layer.ffn_width) shape += "(ffn" + std::to_string(layer.ffn_width) + ")";
    a.layers.push_back(layer);
  }
  shape += ", E " + std::to_string(a.E);
  a.encoder = random_map(rng, d, a.E, 4, shape, "encoder");
  a.readout = random_map(rng, a.E, 1, 3, shape, "readout");
  if (rng.uniform() < 0.5) {
    a.positions = T;
    shape += ", positions";
  }
  a.validate();
  r.model = make_model<double>(a);
  const double scale = kScales[rng.uniform_index(std::size(kScales))];
  for (double& w : r.model.params) w = rng.uniform(-scale, scale);
  for (double& b : r.model.temperatures) b = rng.uniform() < 0.25 ? rng.uniform(5.0, 50.0) : rng.uniform(0.5, 2.0);
  std::ostringstream text;
  text << shape << ", weights in [-" << format_number(scale, 3) << ", " << format_number(scale, 3) << "]";
  // Zeros (a query or value of 0, a neuron that never fires) and near-ties (two weights a relative 1e-9 apart, so
  // that two neurons' kinks or two heads' logits nearly coincide): where enclosures meet degenerate cases.
  const double character = rng.uniform();
  auto& p = r.model.params;
  if (character < 1.0 / 3) {
    for (double& w : p)
      if (rng.uniform() < 0.3) w = 0;
    text << ", 30% zeros";
  } else if (character < 2.0 / 3 && p.size() > 1) {
    for (std::size_t k = 0; k < p.size() / 3; ++k) {
      const std::size_t i = rng.uniform_index(p.size()), j = rng.uniform_index(p.size());
      p[j] = p[i] * (1 + 1e-9 * rng.uniform(-1.0, 1.0));
    }
    text << ", near-ties";
  }
  r.description = text.str();
  return r;
}

// ---- random targets of the framework's syntax, with kinks ----

class TargetGenerator {
 public:
  TargetGenerator(SplitMix64& rng, int T, int d) : rng_(rng), T_(T), d_(d) {}

  /// The whole target: mostly a reduction or a k-th largest (where the kinks are), sometimes a sum of two.
  std::string target(int depth) {
    const double u = rng_.uniform();
    if (u < 0.55) return reduction({}, depth);
    if (u < 0.8) return kth({});
    return "(" + reduction({}, depth - 1) + ")" + (rng_.uniform() < 0.5 ? " + " : " - ") + "(" +
           (rng_.uniform() < 0.5 ? kth({}) : reduction({}, 0)) + ")";
  }

 private:
  // min, max or sum over one or two fresh indices; its body nested (min_{s} max_{t} ...) while depth lasts.
  std::string reduction(std::vector<std::string> bound, int depth) {
    static const char* ops[] = {"min", "max", "sum"};
    const std::string op = ops[rng_.uniform_index(3)];
    std::string binders = fresh(bound);
    if (rng_.uniform() < 0.4) binders += "," + fresh(bound);
    return op + "_{" + binders + "} " + body(bound, depth - 1);
  }
  std::string body(const std::vector<std::string>& bound, int depth) {
    const double u = rng_.uniform();
    if (depth >= 0 && u < 0.4) return reduction(bound, depth);
    if (u < 0.55) return kernel(bound, "") + (rng_.uniform() < 0.5 ? " + " : " - ") + kernel(bound, "");
    if (u < 0.65) return kernel(bound, "") + " - " + format_number(rng_.uniform(0.0, 2.0), 3);
    return kernel(bound, "");
  }
  // kth_largest(k, kernel of a fresh index), the rank anywhere in 1..T.
  std::string kth(std::vector<std::string> bound) {
    const std::string u = fresh(bound);
    const int k = 1 + static_cast<int>(rng_.uniform_index(static_cast<std::size_t>(T_)));
    return "kth_largest(" + std::to_string(k) + ", " + kernel(bound, u) + ")";
  }

 private:
  // A fresh index name, added to `bound`.
  std::string fresh(std::vector<std::string>& bound) {
    static const char* names[] = {"s", "t", "u", "v", "w", "r"};
    for (const char* n : names)
      if (std::find(bound.begin(), bound.end(), n) == bound.end()) {
        bound.push_back(n);
        return n;
      }
    throw ContractError("TargetGenerator", "more than six nested indices");
  }
  // x[i]: `must` if given; else mostly the innermost bound index, or another bound one, or a fixed position.
  std::string token(const std::vector<std::string>& bound, const std::string& must, const std::string& not_this = "") {
    if (!must.empty()) return "x[" + must + "]";
    for (int attempt = 0; attempt < 4; ++attempt) {
      const double u = rng_.uniform();
      std::string t;
      if (!bound.empty() && u < 0.5) t = "x[" + bound.back() + "]";
      else if (!bound.empty() && u < 0.8) t = "x[" + bound[rng_.uniform_index(bound.size())] + "]";
      else t = "x[" + std::to_string(1 + rng_.uniform_index(static_cast<std::size_t>(T_))) + "]";
      if (t != not_this) return t;
    }
    return "x[" + std::to_string(1 + rng_.uniform_index(static_cast<std::size_t>(T_))) + "]";
  }
  // A kernel comparing tokens, kinked or not: dot, norm of a difference (a kink where the tokens meet), norm of a
  // token (a kink at 0), and for d = 1 the token itself. `must`: an index the kernel must use (kth_largest's).
  std::string kernel(const std::vector<std::string>& bound, const std::string& must) {
    const std::size_t choice = rng_.uniform_index(d_ == 1 ? 4 : 3);
    const std::string a = token(bound, must);
    const std::string b = token(bound, "", choice == 1 ? a : "");
    switch (choice) {
      case 0: return "dot(" + a + ", " + b + ")";
      case 1: return "norm(" + a + " - " + b + ")";
      case 2: return "norm(" + a + ")";
      default: return a;
    }
  }

  SplitMix64& rng_;
  int T_, d_;
};

std::string random_campaign_target(SplitMix64& rng, int T, int d) {
  // Nested at most twice; a target the evaluator refuses is drawn again.
  TargetGenerator g(rng, T, d);
  for (int attempt = 0; attempt < 50; ++attempt) {
    const std::string text = g.target(1 + static_cast<int>(rng.uniform_index(2)));
    try {
      check_target_evaluable(parse_target(text), T, d);
      return text;
    } catch (const InputError&) {
    }
  }
  return "min_{s,t} dot(x[s], x[t])";
}

// ---- random boxes ----

struct Box {
  std::string kind;
  std::vector<double> lo, hi;
};

Box random_campaign_box(SplitMix64& rng, int T, int d) {
  const std::size_t n = static_cast<std::size_t>(T * d);
  Box b;
  b.lo.resize(n), b.hi.resize(n);
  switch (rng.uniform_index(4)) {
    case 0: {  // a cube, from [-1, 1]-wide to 0.05-wide
      static const double widths[] = {2.0, 1.0, 0.5, 0.05};
      const double w = widths[rng.uniform_index(4)], a = rng.uniform(-1.0, 1.0 - w / 2);
      std::fill(b.lo.begin(), b.lo.end(), a);
      std::fill(b.hi.begin(), b.hi.end(), a + w);
      b.kind = "cube";
      break;
    }
    case 1: {  // a thin slab: some coordinates fixed (width 0) or 1e-6 wide, the rest 0.5 wide
      for (std::size_t i = 0; i < n; ++i) {
        b.lo[i] = rng.uniform(-1.0, 0.5);
        b.hi[i] = b.lo[i] + 0.5;
      }
      const std::size_t thin = 1 + rng.uniform_index(std::max<std::size_t>(n - 1, 1));
      for (std::size_t k = 0; k < thin; ++k) {
        const std::size_t i = rng.uniform_index(n);
        b.hi[i] = b.lo[i] + (rng.uniform() < 0.5 ? 0.0 : 1e-6);
      }
      b.kind = "slab";
      break;
    }
    case 2: {  // on a kink: around a point where two tokens coincide, or a token is 0 (norm's kink)
      std::vector<double> c(n);
      for (double& v : c) v = rng.uniform(-1.0, 1.0);
      const std::size_t s = rng.uniform_index(static_cast<std::size_t>(T)), t = rng.uniform_index(static_cast<std::size_t>(T));
      const bool zero = rng.uniform() < 0.3;
      for (int j = 0; j < d; ++j) c[t * d + j] = zero ? 0.0 : c[s * d + j];
      const double h = rng.uniform() < 0.5 ? 0.05 : 0.25;
      for (std::size_t i = 0; i < n; ++i) b.lo[i] = c[i] - h, b.hi[i] = c[i] + h;
      b.kind = "kink";
      break;
    }
    default: {  // any per-coordinate box, widths log-uniform in [1e-3, 1]
      for (std::size_t i = 0; i < n; ++i) {
        b.lo[i] = rng.uniform(-1.0, 1.0);
        b.hi[i] = b.lo[i] + std::pow(10.0, rng.uniform(-3.0, 0.0));
      }
      b.kind = "per-coordinate";
    }
  }
  return b;
}

// ---- the dense MPFR search (the independent route: points only, no ball, no gradient) ----

// Room for MPFR's own rounding at 256 bits: the search's value is within far less of the exact one for every model
// here (outputs below 1e30), so an excess beyond it is certify's.
double tolerance(double v) { return 1e-30 * (1 + std::fabs(v)); }

class DenseSearch {
 public:
  DenseSearch(const Model& model, const ParsedTarget& target, int T, int d, const Box& box)
      : model_(convert_model<mpfr::mpreal>(model, Precision{kSearchPrec})),
        layout_(model.arch),
        target_(target),
        T_(T),
        d_(d),
        box_(box) {}

  /// model − F at x (256-bit MPFR).
  mpfr::mpreal error(const std::vector<double>& x) {
    ++evaluations_;
    Sequence<mpfr::mpreal> X(T_);
    for (int t = 0; t < T_; ++t)
      for (int j = 0; j < d_; ++j) X[t].push_back(mpfr::mpreal(x[t * d_ + j], kSearchPrec));
    return forward(model_, layout_, X).y - evaluate_target(target_, X, Precision{kSearchPrec});
  }

  /// |model − F| at x, rounded down; the largest so far and where are kept.
  double at(const std::vector<double>& x) {
    const mpfr::mpreal e = mpfr::abs(error(x));
    // MPFR's range is vast; a NaN would be a defect of the search, never a point certify must bound.
    const double v = mpfr::isnan(e) ? 0.0 : e.toDouble(MPFR_RNDD);
    if (v > best_ || best_at_.empty()) best_ = v, best_at_ = x;
    return v;
  }

  void run(SplitMix64& rng, long points, long refine_steps, const std::vector<double>& certify_argmax) {
    const std::size_t n = box_.lo.size();
    std::vector<std::pair<double, std::vector<double>>> found;
    auto keep = [&](std::vector<double> x) {
      for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], box_.lo[i], box_.hi[i]);
      found.emplace_back(at(x), std::move(x));
    };
    if (certify_argmax.size() == n) keep(certify_argmax);
    const std::size_t corners = n <= 6 ? std::size_t{1} << n : 0;
    for (std::size_t c = 0; c < corners; ++c) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = (c >> i) & 1 ? box_.hi[i] : box_.lo[i];
      keep(x);
    }
    std::vector<double> centre(n);
    for (std::size_t i = 0; i < n; ++i) centre[i] = box_.lo[i] / 2 + box_.hi[i] / 2;
    keep(centre);
    while (evaluations_ < points) {
      std::vector<double> x = uniform_point(rng);
      // A third of the points on a kink: a token copied onto another (ties of min, max, kth_largest and of the
      // softmax), or set to 0 (norm's kink), as far as the box allows.
      const double u = rng.uniform();
      if (u < 0.34 && T_ > 1) {
        const std::size_t s = rng.uniform_index(static_cast<std::size_t>(T_)), t = rng.uniform_index(static_cast<std::size_t>(T_));
        for (int j = 0; j < d_; ++j) x[t * d_ + j] = x[s * d_ + j];
      } else if (u < 0.45) {
        const std::size_t t = rng.uniform_index(static_cast<std::size_t>(T_));
        for (int j = 0; j < d_; ++j) x[t * d_ + j] = 0.0;
      }
      keep(x);
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    found.resize(std::min<std::size_t>(found.size(), 4));
    // (1+1) local search from the four best: steps from half the box's width down to 2^-30 of it, and tie moves.
    for (long step = 0; step < refine_steps; ++step) {
      auto& [value, x] = found[static_cast<std::size_t>(step) % found.size()];
      std::vector<double> y = x;
      const std::size_t k = rng.uniform_index(n);
      if (rng.uniform() < 0.8 || T_ == 1) {
        const double size = std::ldexp(box_.hi[k] - box_.lo[k], -1 - static_cast<int>(rng.uniform_index(30)));
        y[k] += rng.uniform() < 0.5 ? -size : size;
      } else {
        const std::size_t other = (k / d_ + 1 + rng.uniform_index(static_cast<std::size_t>(T_ - 1))) % T_;
        y[k] = x[other * d_ + k % d_];
      }
      y[k] = std::clamp(y[k], box_.lo[k], box_.hi[k]);
      const double v = at(y);
      if (v >= value) value = v, x = std::move(y);
    }
    for (auto& f : found) tops_.push_back(std::move(f.second));
  }

  /// The points the local search ended at: maxima of |e| over a box of a piecewise-smooth function sit on its kinks
  /// (a ReLU at 0, a tie of a max) or on the box's faces, so sub-boxes around them straddle kinks.
  const std::vector<std::vector<double>>& local_maxima() const { return tops_; }

  /// The box's enclosures against values inside: for each sub-box, e at its corners (up to 64), its centre and
  /// `points` uniform points, then a (1+1) local search pushing e up and one pushing it down (`points` steps each).
  /// Returns the first violation in words ("" when none) and counts the sub-boxes.
  std::string audit(SplitMix64& rng, const std::vector<std::pair<std::vector<double>, std::vector<double>>>& boxes,
                    const std::vector<BoxEnclosure>& enclosures, long points) {
    for (std::size_t b = 0; b < boxes.size(); ++b) {
      const auto& [lo, hi] = boxes[b];
      const std::size_t n = lo.size();
      const double upper = enclosures[b].value.upper(), lower = enclosures[b].value.lower();
      std::string found;
      auto check = [&](const std::vector<double>& x) -> mpfr::mpreal {
        const mpfr::mpreal e = error(x);
        if (found.empty() && !mpfr::isnan(e)) {
          const double down = e.toDouble(MPFR_RNDD), up = e.toDouble(MPFR_RNDU);
          if (down > upper + tolerance(upper) || up < lower - tolerance(lower))
            found = "e = " + format_number(down, 17) + " at a point of the sub-box " + box_text(lo, hi) +
                    " lies outside its enclosure [" + format_number(lower, 17) + ", " + format_number(upper, 17) + "]";
        }
        return e;
      };
      std::vector<double> x(n);
      const std::size_t corners = n <= 6 ? std::size_t{1} << n : 0;
      for (std::size_t c = 0; c < corners; ++c) {
        for (std::size_t i = 0; i < n; ++i) x[i] = (c >> i) & 1 ? hi[i] : lo[i];
        check(x);
      }
      for (std::size_t i = 0; i < n; ++i) x[i] = lo[i] / 2 + hi[i] / 2;
      check(x);
      std::vector<double> top = x, bottom = x;
      mpfr::mpreal top_e = check(x), bottom_e = top_e;
      for (long p = 0; p < points; ++p) {
        for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(lo[i] + (hi[i] - lo[i]) * rng.uniform(), lo[i], hi[i]);
        const mpfr::mpreal e = check(x);
        if (e > top_e) top_e = e, top = x;
        if (e < bottom_e) bottom_e = e, bottom = x;
      }
      for (long p = 0; p < 2 * points; ++p) {
        const bool up = p % 2 == 0;
        std::vector<double> y = up ? top : bottom;
        const std::size_t k = rng.uniform_index(n);
        y[k] = std::clamp(y[k] + (rng.uniform() - 0.5) * std::ldexp(hi[k] - lo[k], -static_cast<int>(rng.uniform_index(20))),
                          lo[k], hi[k]);
        const mpfr::mpreal e = check(y);
        if (up && e >= top_e) top_e = e, top = y;
        if (!up && e <= bottom_e) bottom_e = e, bottom = y;
      }
      if (found.empty()) found = audit_gradient(rng, lo, hi, enclosures[b].gradient);
      if (!found.empty()) return found;
    }
    return "";
  }

  /// The gradient enclosure against derivatives at two random points of the box: central differences in MPFR with
  /// steps h and h/2 (h = 2^-50 of the box's width, at least 2^-60); a point where the two disagree beyond 1e-6
  /// relative is near a kink or too curved to resolve, and is skipped. A derivative outside its enclosure by more
  /// than that tolerance is the violation: the mean-value form rests on that enclosure.
  std::string audit_gradient(SplitMix64& rng, const std::vector<double>& lo, const std::vector<double>& hi,
                             const std::vector<ArbBall>& gradient) {
    const std::size_t n = lo.size();
    for (int p = 0; p < 2; ++p) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(lo[i] + (hi[i] - lo[i]) * rng.uniform(), lo[i], hi[i]);
      for (std::size_t i = 0; i < n; ++i) {
        if (!(hi[i] > lo[i])) continue;  // a coordinate the box fixes has no derivative to compare
        const double h = std::max(std::ldexp(hi[i] - lo[i], -50), 0x1p-60);
        if (!(x[i] - h >= lo[i] && x[i] + h <= hi[i])) continue;
        auto difference = [&](double step) {
          std::vector<double> up = x, down = x;
          up[i] += step, down[i] -= step;
          // The steps are exact: x ± step are doubles (step a power of two far below x's ulp would round; skipped).
          if (up[i] - x[i] != step || x[i] - down[i] != step) return mpfr::mpreal(NAN);
          return (error(up) - error(down)) / (2 * mpfr::mpreal(step, kSearchPrec));
        };
        const mpfr::mpreal d1 = difference(h), d2 = difference(h / 2);
        if (mpfr::isnan(d1) || mpfr::isnan(d2)) continue;
        const double derivative = d2.toDouble();
        const double tol = 1e-6 * (1 + std::fabs(derivative));
        if (std::fabs((d1 - d2).toDouble()) > tol) continue;
        if (derivative > gradient[i].upper() + tol || derivative < gradient[i].lower() - tol)
          return "the derivative in input " + std::to_string(i + 1) + ", " + format_number(derivative, 17) +
                 ", at a point of the sub-box " + box_text(lo, hi) + " lies outside its gradient enclosure [" +
                 format_number(gradient[i].lower(), 17) + ", " + format_number(gradient[i].upper(), 17) + "]";
      }
    }
    return "";
  }

  double best() const { return best_; }
  const std::vector<double>& best_at() const { return best_at_; }
  long evaluations() const { return evaluations_; }

 private:
  std::vector<double> uniform_point(SplitMix64& rng) const {
    std::vector<double> x(box_.lo.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = rng.uniform();
      x[i] = box_.lo[i] * (1 - u) + box_.hi[i] * u;
    }
    return x;
  }

  ModelT<mpfr::mpreal> model_;
  ParamLayout layout_;
  const ParsedTarget& target_;
  int T_, d_;
  const Box& box_;
  double best_ = 0;
  std::vector<double> best_at_;
  std::vector<std::vector<double>> tops_;
  long evaluations_ = 0;
};


// Sub-boxes of the triple's box, from its whole width down to 2^-14 of it: a third centred on the local maxima of |e|
// the search found (kinks of the model or the target, w.h.p.), a third on a kink of the target's kernels (a token
// copied onto another, or a token at 0, as far as the box allows), a third anywhere.
std::vector<std::pair<std::vector<double>, std::vector<double>>> random_sub_boxes(
    SplitMix64& rng, const Box& box, int T, int d, long count, const std::vector<std::vector<double>>& maxima) {
  const std::size_t n = box.lo.size();
  std::vector<std::pair<std::vector<double>, std::vector<double>>> out;
  for (long b = 0; b < count; ++b) {
    std::vector<double> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = box.lo[i] + (box.hi[i] - box.lo[i]) * rng.uniform();
    const double where = rng.uniform();
    if (where < 1.0 / 3 && !maxima.empty()) {
      c = maxima[rng.uniform_index(maxima.size())];
    } else if (where < 2.0 / 3) {
      const std::size_t s = rng.uniform_index(static_cast<std::size_t>(T)), t = rng.uniform_index(static_cast<std::size_t>(T));
      const bool zero = rng.uniform() < 0.3;
      for (int j = 0; j < d; ++j) c[t * d + j] = zero ? 0.0 : c[s * d + j];
    }
    const double fraction = std::ldexp(1.0, -static_cast<int>(rng.uniform_index(15)));
    std::vector<double> lo(n), hi(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double centre = std::clamp(c[i], box.lo[i], box.hi[i]), half = fraction * (box.hi[i] - box.lo[i]) / 2;
      lo[i] = std::max(box.lo[i], centre - half);
      hi[i] = std::min(box.hi[i], centre + half);
    }
    out.emplace_back(std::move(lo), std::move(hi));
  }
  return out;
}

SoundnessTriple run_triple(const SoundnessCampaignOptions& o, long index) {
  SoundnessTriple r;
  r.index = index;
  r.seed = derive_seed(o.seed, "certify-soundness-" + std::to_string(index));
  SplitMix64 rng(r.seed);
  const int d = 1 + static_cast<int>(rng.uniform_index(2));
  const int T = d == 1 ? 2 + static_cast<int>(rng.uniform_index(3)) : 2 + static_cast<int>(rng.uniform_index(2));
  const RandomModel m = random_campaign_model(rng, d, T);
  r.model = "d " + std::to_string(d) + ", T " + std::to_string(T) + ", " + m.description;
  r.target = random_campaign_target(rng, T, d);
  const Box box = random_campaign_box(rng, T, d);
  r.box_kind = box.kind;
  r.lo = box.lo, r.hi = box.hi;
  CertifyRequest q;
  q.target = r.target;
  q.T = T;
  q.d = d;
  q.box_lo = box.lo;
  q.box_hi = box.hi;
  q.relative_gap = 1e-3;
  q.budget_seconds = 86400;  // the box budget decides
  q.max_boxes = o.max_boxes;
  q.threads = 1;             // the campaign runs triples in parallel
  CertifyReport rep;
  try {
    rep = certify_model(convert_model<mpfr::mpreal>(m.model, Precision{kSearchPrec}), q);
  } catch (const std::exception& e) {
    // certify refusing a model of the documented format, or failing inside, is a defect too.
    r.unsound = true;
    r.problem = std::string("certify raised: ") + e.what();
    return r;
  }
  r.upper = rep.result.upper;
  r.lower = rep.result.lower;
  r.boxes = rep.result.boxes;
  const ParsedTarget target = parse_target(r.target);
  DenseSearch search(m.model, target, T, d, box);
  const std::vector<double>& argmax = rep.result.argmax;
  bool argmax_in_box = argmax.size() == box.lo.size();
  for (std::size_t i = 0; argmax_in_box && i < argmax.size(); ++i) argmax_in_box = box.lo[i] <= argmax[i] && argmax[i] <= box.hi[i];
  const double at_argmax = argmax_in_box ? search.at(argmax) : 0.0;
  search.run(rng, o.search_points, o.refine_steps, {});
  r.attained = search.best();
  r.attained_at = search.best_at();
  std::vector<std::string> problems;
  // Every box the search encloses is a certified bound on that box: sub-boxes of all widths, on kinks and off, each
  // enclosure held against e at points inside (pushed up and down by a local search).
  const auto sub_boxes = random_sub_boxes(rng, box, T, d, o.sub_boxes, search.local_maxima());
  const std::string outside =
      search.audit(rng, sub_boxes, certify_box_enclosures(m.model, r.target, T, sub_boxes), o.sub_box_points);
  r.sub_boxes = static_cast<long>(sub_boxes.size());
  if (!outside.empty()) problems.push_back(outside);
  r.evaluations = search.evaluations();
  if (!argmax_in_box) problems.push_back("the input certify prints is not in the box");
  if (r.attained > r.upper + tolerance(r.upper))
    problems.push_back("an attained error " + format_number(r.attained, 17) + " above the certified upper bound " +
                       format_number(r.upper, 17));
  if (argmax_in_box && r.lower > at_argmax + tolerance(at_argmax))
    problems.push_back("the lower bound " + format_number(r.lower, 17) + " above the error at its own input, " +
                       format_number(at_argmax, 17));
  if (r.lower > r.upper) problems.push_back("lower bound above the upper bound");
  r.unsound = !problems.empty();
  for (const auto& p : problems) r.problem += (r.problem.empty() ? "" : "; ") + p;
  return r;
}

std::size_t tightness_bin(double ratio) {
  static const double edges[] = {1.01, 1.1, 2.0, 10.0, 1e3};
  if (!std::isfinite(ratio)) return std::size(edges) + 1;
  std::size_t b = 0;
  while (b < std::size(edges) && ratio > edges[b]) ++b;
  return b;
}

}  // namespace

double SoundnessTriple::tightness() const {
  if (!std::isfinite(upper)) return INFINITY;
  if (attained <= 0) return upper <= 0 ? 1.0 : INFINITY;
  return upper / attained;
}

const std::vector<std::string>& tightness_bins() {
  static const std::vector<std::string> bins = {"<= 1.01", "(1.01, 1.1]", "(1.1, 2]", "(2, 10]", "(10, 1000]",
                                                "> 1000", "no finite bound"};
  return bins;
}

SoundnessCampaign run_soundness_campaign(const SoundnessCampaignOptions& o) {
  if (o.triples < 1 || o.triples > 100'000) throw InputError("--triples", "expected 1 <= N <= 100000");
  if (o.first < 0 || o.first > 1'000'000'000) throw InputError("--first", "expected 0 <= I <= 1e9");
  if (o.max_boxes < 1 || o.max_boxes > 10'000'000) throw InputError("--max-boxes", "expected 1 <= N <= 1e7");
  if (o.search_points < 1 || o.search_points > 10'000'000) throw InputError("--search-points", "expected 1 <= N <= 1e7");
  if (o.refine_steps < 0 || o.refine_steps > 10'000'000) throw InputError("--refine-steps", "expected 0 <= N <= 1e7");
  if (o.sub_boxes < 0 || o.sub_boxes > 1'000'000) throw InputError("--sub-boxes", "expected 0 <= N <= 1e6");
  if (o.sub_box_points < 1 || o.sub_box_points > 1'000'000) throw InputError("--sub-box-points", "expected 1 <= N <= 1e6");
  if (o.threads < 1 || o.threads > 256) throw InputError("--threads", "expected 1 <= K <= 256");
  const auto start = std::chrono::steady_clock::now();
  SoundnessCampaign c;
  c.options = o;
  c.triples.resize(static_cast<std::size_t>(o.triples));
#pragma omp parallel for schedule(dynamic, 1) num_threads(o.threads)
  for (long i = 0; i < o.triples; ++i) c.triples[static_cast<std::size_t>(i)] = run_triple(o, o.first + i);
  for (const auto& bin : tightness_bins()) c.histogram.emplace_back(bin, 0);
  for (const auto& t : c.triples) {
    c.unsound += t.unsound;
    if (!t.unsound) ++c.histogram[tightness_bin(t.tightness())].second;
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

void to_json(json& j, const SoundnessCampaign& c) {
  j = json{{"triples", c.triples.size()}, {"unsound", c.unsound}, {"seed", c.options.seed},
           {"first", c.options.first}, {"max_boxes", c.options.max_boxes}, {"search_points", c.options.search_points},
           {"refine_steps", c.options.refine_steps}, {"seconds", c.seconds}};
  json hist = json::object();
  for (const auto& [bin, count] : c.histogram) hist[bin] = count;
  j["tightness_histogram"] = hist;
  json rows = json::array();
  for (const auto& t : c.triples)
    rows.push_back({{"index", t.index}, {"seed", t.seed}, {"model", t.model}, {"target", t.target},
                    {"box_kind", t.box_kind}, {"box_lo", t.lo}, {"box_hi", t.hi},
                    {"sup_error_upper", bound_to_json(t.upper)}, {"sup_error_lower", t.lower},
                    {"attained", t.attained}, {"attained_at", t.attained_at}, {"tightness", bound_to_json(t.tightness())},
                    {"boxes", t.boxes}, {"sub_boxes", t.sub_boxes}, {"evaluations", t.evaluations}, {"unsound", t.unsound}, {"problem", t.problem}});
  j["results"] = rows;
}

// The command that reruns the campaign (or, with --first i --triples 1, one triple of it).
static std::string rerun_command(const SoundnessCampaignOptions& o) {
  return "infoflow-verify certify-soundness --seed " + std::to_string(o.seed) + " --first " + std::to_string(o.first) +
         " --triples " + std::to_string(o.triples) + " --max-boxes " + std::to_string(o.max_boxes) +
         " --search-points " + std::to_string(o.search_points) + " --refine-steps " + std::to_string(o.refine_steps) +
         " --sub-boxes " + std::to_string(o.sub_boxes) + " --sub-box-points " + std::to_string(o.sub_box_points);
}

std::string soundness_campaign_table(const SoundnessCampaign& c) {
  std::ostringstream o;
  o << "certify soundness campaign: " << c.triples.size() << " (model, target, box) triples; certify with "
    << c.options.max_boxes << " boxes each against a dense 256-bit MPFR search (" << c.options.search_points << " points, "
    << c.options.refine_steps << " local steps) and " << c.options.sub_boxes << " sub-box enclosures audited per triple\n"
    << "  (" << rerun_command(c.options) << ")\n";
  for (const auto& t : c.triples)
    if (t.unsound)
      o << "  UNSOUND triple " << t.index << " (rerun alone: --first " << t.index << " --triples 1, the other settings as above): " << t.model << "; target " << t.target << "; " << t.box_kind << " box " << box_text(t.lo, t.hi) << ": "
        << t.problem << "\n";
  o << "  unsound: " << c.unsound << " of " << c.triples.size() << "\n";
  o << "  tightness U / attained (sound triples):\n";
  for (const auto& [bin, count] : c.histogram) o << "    " << bin << ": " << count << "\n";
  o << "  " << format_number(c.seconds, 3) << " s\n";
  return o.str();
}

SoundnessCampaignOptions suite_soundness_options(long triples, std::uint64_t seed, int threads) {
  SoundnessCampaignOptions o;
  o.triples = triples;
  o.seed = seed;
  o.threads = threads;
  o.max_boxes = 150;
  o.search_points = 300;
  o.refine_steps = 150;
  o.sub_boxes = 16;
  o.sub_box_points = 8;
  return o;
}

Check soundness_campaign_check(const std::string& id, const SoundnessCampaignOptions& options) {
  const CheckComputation own(id);
  const SoundnessCampaign c = run_soundness_campaign(options);
  Check k;
  k.id = id;
  k.grade = Grade::Sampled;
  k.statement = "certify's bounds hold on random models (one and two layers, 1-3 heads, FFN and affine maps, positions, "
                "weights from 1e-3 to 1e3, zeros, near-ties) x random targets with kinks (min, max, kth_largest, norms at "
                "0, nested reductions, sums) x random boxes (cubes, thin slabs, boxes on a kink, per-coordinate boxes): "
                "no |model - F| found by a dense 256-bit MPFR search with local refinement exceeds the certified upper "
                "bound, and the attained lower bound holds at its own input";
  k.bound = "0 unsound triples";
  k.compared = static_cast<long>(c.triples.size());
  k.verdict = c.unsound == 0 ? Verdict::Pass : Verdict::Fail;
  json hist = json::object();
  for (const auto& [bin, count] : c.histogram) hist[bin] = count;
  k.measured = {{"triples", c.triples.size()}, {"unsound", c.unsound}, {"tightness_histogram", hist},
                {"rerun", rerun_command(options)}};
  json bad = json::array();
  for (const auto& t : c.triples)
    if (t.unsound) bad.push_back({{"index", t.index}, {"model", t.model}, {"target", t.target}, {"problem", t.problem}});
  if (!bad.empty()) k.measured["unsound_triples"] = bad;
  k.figure = std::to_string(c.unsound) + " unsound of " + std::to_string(c.triples.size()) + " triples";
  return k;
}

}  // namespace infoflow
