#include "numerics/certify/certify_model.hpp"

#include "numerics/certify/double_execution.hpp"
#include "numerics/model/forward.hpp"
#include "numerics/model/weights_json.hpp"
#include "numerics/scalar/noise_symbols.hpp"
#include "numerics/sweep/sweep_runner.hpp"
#include "numerics/target/target_eval.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/number_text.hpp"
#include "numerics/util/record_seal.hpp"
#include "numerics/util/rng.hpp"
#include "build_commit.hpp"  // INFOFLOW_BUILD_COMMIT: a checkpoint is resumed by the build that wrote it only

#include <algorithm>
#include <cmath>

namespace infoflow {

using nlohmann::json;

namespace {

constexpr long kPrec = 128;
// MPFR forward passes the sampled rounding (observed_double_rounding) may spend: the reference rho is measured against.
constexpr long kRoundingSamples = 2000;
// The rounding bound's refinement stops once it is within this factor of the rounding observed.
constexpr double kRoundingTarget = 10;

// The working precision of the balls: 128 bits, or 64 more than the longest weight needs (a decimal string read at
// 400 bits would otherwise lose its last digits to the first product, and a large readout would magnify that).
long working_precision(const ModelT<mpfr::mpreal>& m) {
  long bits = 0;
  for (const auto& v : m.params) bits = std::max<long>(bits, mpfr_min_prec(v.mpfr_srcptr()));
  for (const auto& v : m.temperatures) bits = std::max<long>(bits, mpfr_min_prec(v.mpfr_srcptr()));
  return bits <= 64 ? kPrec : std::max(kPrec, bits + 64);
}

void validate(const ModelT<mpfr::mpreal>& m, const CertifyRequest& q) {
  if (q.T < 1 || q.T > 64) throw InputError("--T", "expected 1 <= T <= 64");
  if (q.d != m.arch.d) throw InputError("--d", "the model's tokens have d = " + std::to_string(m.arch.d) + ", not " + std::to_string(q.d));
  if (q.T * q.d > 64) throw InputError("--T", "T*d = " + std::to_string(q.T * q.d) + " inputs: branch-and-bound takes at most 64");
  if (m.arch.positions > 0 && q.T > m.arch.positions)
    throw InputError("--T", "T = " + std::to_string(q.T) + " exceeds the model's positional table (" +
                                std::to_string(m.arch.positions) + " rows)");
  const std::size_t n = static_cast<std::size_t>(q.T * q.d);
  if (q.box_lo.size() != q.box_hi.size() || (q.box_lo.size() != 1 && q.box_lo.size() != n))
    throw InputError("--box", "expected LO,HI (a cube) or " + std::to_string(n) + " lower ends then " + std::to_string(n) +
                                  " upper ends (T*d = " + std::to_string(n) + "), got " + std::to_string(q.box_lo.size()) +
                                  " and " + std::to_string(q.box_hi.size()));
  bool wide = false;
  for (std::size_t i = 0; i < q.box_lo.size(); ++i) {
    if (!(std::isfinite(q.box_lo[i]) && std::isfinite(q.box_hi[i]) && q.box_lo[i] <= q.box_hi[i]))
      throw InputError("--box", "expected finite LO <= HI in every coordinate (coordinate " + std::to_string(i + 1) + ")");
    wide |= q.box_lo[i] < q.box_hi[i];
  }
  // A cube must have some width; a per-coordinate box may be thin in some coordinates (even all: one point).
  if (q.box_lo.size() == 1 && !wide) throw InputError("--box", "expected finite LO < HI");
  if (!(q.relative_gap >= 0 && q.relative_gap <= 1e6)) throw InputError("--gap", "expected 0 <= G <= 1e6");
  if (!(q.budget_seconds > 0 && q.budget_seconds <= 86400)) throw InputError("--budget", "expected 0 < S <= 86400 seconds");
  if (q.threads < 1 || q.threads > 256) throw InputError("--threads", "expected 1 <= K <= 256");
  if (q.max_boxes < 1 || q.max_boxes > 1'000'000'000) throw InputError("--max-boxes", "expected 1 <= N <= 1e9");
  if (q.execution != "real" && q.execution != "double")
    throw InputError("--execution", "expected real or double, got '" + q.execution + "'");
  if (q.execution == "double") require_float64_analysable(m.arch);  // before the search, not after it
  if (q.enclosure != "affine" && q.enclosure != "affine-only" && q.enclosure != "mean-value")
    throw InputError("--enclosure", "expected affine, affine-only or mean-value, got '" + q.enclosure + "'");
  if (q.rounding_boxes < 1 || q.rounding_boxes > 10'000'000)
    throw InputError("--rounding-boxes", "expected 1 <= N <= 1e7");
  if (!(q.checkpoint_seconds > 0 && q.checkpoint_seconds <= 86400))
    throw InputError("--checkpoint-every", "expected 0 < S <= 86400 seconds");
}

// b ← b ± radius.
void add_error(ArbBall& b, const mpfr::mpreal& radius) {
  if (radius == 0) return;
  arf_t r;
  arf_init(r);
  arf_set_mpfr(r, radius.mpfr_srcptr());
  arb_add_error_arf(b.raw(), r);
  arf_clear(r);
}

// The search bounds boxes by the double affine form (DoubleAffineForm), whose rounding errors are bounded at 53 bits;
// the checker re-encloses each leaf by the arb form (AffineForm), whose radii are 30-bit mantissas rounded up at every
// operation (and whose midpoints round at the working precision), so its enclosure of the same box is wider by about
// 2^-30 of the radii per operation. The search's range is widened by 2^-16 of its half-width and 2^-100 of its
// magnitude, so that every leaf the search bounded is one the checker can confirm (up to 2^14 operations): the claim
// stays an upper bound, looser by at most 1.5e-5 of the range's width.
ArbBall checkable(ArbBall range) {
  if (!range.is_finite()) return range;
  const double lo = range.lower(), hi = range.upper();
  const double margin = std::ldexp(hi - lo, -17) + std::ldexp(std::max(std::fabs(lo), std::fabs(hi)), -100);
  arb_add_error(range.raw(), ArbBall(margin, 53).raw());
  return range;
}

// e(X) = model(X) − F(X) on boxes (dual balls, for the mean-value form) and at points (arb), for one model, target,
// T and d: what the branch-and-bound and the enclosure audit evaluate.
class ErrorEvaluation {
 public:
  /// `rounding`: the reader's radii (the file's decimal strings that the stored weights only approximate); every
  /// weight ball is widened by its radius, so the enclosures hold for the values the file denotes.
  /// `affine`: the box enclosure also takes the affine form's range (docs/certify.md §1.2); without it, the
  /// natural enclosure and the mean-value form only (certify --enclosure mean-value, for comparison).
  ErrorEvaluation(const ModelT<mpfr::mpreal>& model, const ParsedTarget& target, int T, int d,
                  const DecimalRounding* rounding = nullptr, long precision = 0, bool affine = true)
      : prec_(precision > 0 ? precision : working_precision(model)),
        dual_(convert_model<DualBall>(model, Precision{prec_})),
        ball_(convert_model<ArbBall>(model, Precision{prec_})),
        affine_(convert_model<AffineForm>(model, Precision{prec_})),
        fast_(convert_model<DoubleAffineForm>(model, Precision{prec_})),
        double_(convert_model<double>(model, Precision{53})),
        layout_(model.arch),
        target_(target),
        T_(T),
        d_(d),
        use_affine_(affine) {
    if (!rounding) return;
    for (std::size_t i = 0; i < rounding->param_radius.size(); ++i) {
      add_error(dual_.params[i].value, rounding->param_radius[i]);
      add_error(ball_.params[i], rounding->param_radius[i]);
      add_error(affine_.params[i].centre, rounding->param_radius[i]);
      add_error(fast_.params[i], ArbBall(rounding->param_radius[i], prec_));
    }
    for (std::size_t i = 0; i < rounding->temperature_radius.size(); ++i) {
      add_error(dual_.temperatures[i].value, rounding->temperature_radius[i]);
      add_error(ball_.temperatures[i], rounding->temperature_radius[i]);
      add_error(affine_.temperatures[i].centre, rounding->temperature_radius[i]);
      add_error(fast_.temperatures[i], ArbBall(rounding->temperature_radius[i], prec_));
    }
  }
  /// e over the box whose sides are the dual balls' values: its value is the natural enclosure intersected with the
  /// affine form's range (two enclosures of one set; where they do not meet one of them is wrong, and the value is
  /// made indeterminate so that nothing is certified from it).
  BoxEvaluation on_box() const {
    return [this](const std::vector<DualBall>& x) {
      const Sequence<DualBall> X = as_sequence(x, T_, d_);
      DualBall e = forward(dual_, layout_, X).y - evaluate_target(target_, X, Precision{prec_});
      if (!use_affine_) return e;
      std::vector<ArbBall> sides;
      for (const DualBall& xi : x) sides.push_back(xi.value);
      const ArbBall affine = affine_range(sides);
      ArbBall both(prec_);
      if (!affine.is_finite()) return e;
      if (arb_intersection(both.raw(), e.value.raw(), affine.raw(), prec_)) e.value = both;
      else arb_indeterminate(e.value.raw());
      return e;
    };
  }
  /// e's affine form over the box with these sides (balls; input i is token i / d, coordinate i % d): in arb
  /// (AffineForm, the checker's) or in doubles (DoubleAffineForm, the search's).
  template <class Form>
  Form affine_error(const std::vector<ArbBall>& sides) const {
    const FreshNoiseSymbols symbols(sides.size());  // remainders named after the inputs' symbols, per box
    std::vector<Form> x;
    for (std::size_t i = 0; i < sides.size(); ++i) x.push_back(Form::variable(sides[i], i, sides.size()));
    const Sequence<Form> X = as_sequence(x, T_, d_);
    const ModelT<Form>* model = nullptr;
    if constexpr (std::is_same_v<Form, AffineForm>) model = &affine_;
    else model = &fast_;
    return forward(*model, layout_, X).y - evaluate_target(target_, X, Precision{prec_});
  }
  ArbBall affine_range(const std::vector<ArbBall>& sides) const {
    return checkable(affine_error<DoubleAffineForm>(sides).range());
  }
  /// The affine form's range alone, with its coefficients as the trend (certify --enclosure affine-only): the search's
  /// in doubles, widened to what the checker can confirm; the checker's (`in_arb`) in arb, an independent evaluation
  /// of the same linearisations.
  RangeEvaluation range(bool in_arb = false) const {
    if (in_arb) return [this](const std::vector<ArbBall>& sides) { return box_range<AffineForm>(sides); };
    return [this](const std::vector<ArbBall>& sides) { return box_range<DoubleAffineForm>(sides); };
  }
  /// e in double (the weights rounded to double): which candidate points deserve an arb evaluation, never a bound.
  PointEstimate estimate() const {
    return [this](const std::vector<double>& x) {
      const Sequence<double> X = as_sequence(x, T_, d_);
      return forward(double_, layout_, X).y - evaluate_target(target_, X, Precision{53});
    };
  }
  PointEvaluation at_point() const {
    return [this](const std::vector<ArbBall>& x) {
      const Sequence<ArbBall> X = as_sequence(x, T_, d_);
      return forward(ball_, layout_, X).y - evaluate_target(target_, X, Precision{prec_});
    };
  }

 /// The balls' working precision.
  long precision() const { return prec_; }

 private:
  long prec_;
  ModelT<DualBall> dual_;
  ModelT<ArbBall> ball_;
  template <class Form>
  BoxRange box_range(const std::vector<ArbBall>& sides) const {
    const Form form = affine_error<Form>(sides);
    BoxRange r{form.range(), std::vector<double>(sides.size(), 0.0)};
    for (std::size_t i = 0; i < form.coef.size() && i < sides.size(); ++i) r.trend[i] = midpoint(form.coef[i]);
    if constexpr (std::is_same_v<Form, DoubleAffineForm>) r.value = checkable(r.value);
    return r;
  }
  static double midpoint(const ArbBall& a) { return a.mid(); }
  static double midpoint(double a) { return a; }

  ModelT<AffineForm> affine_;
  ModelT<DoubleAffineForm> fast_;
  ModelT<double> double_;
  ParamLayout layout_;
  const ParsedTarget& target_;  // the caller's, alive while this is
  int T_, d_;
  bool use_affine_;
};

}  // namespace

std::vector<BoxEnclosure> certify_box_enclosures(const Model& model, const std::string& target, int T,
                                                 const std::vector<std::pair<std::vector<double>, std::vector<double>>>& boxes) {
  const ParsedTarget t = parse_target(target);
  check_target_evaluable(t, T, model.arch.d);
  const ErrorEvaluation e(convert_model<mpfr::mpreal>(model, Precision{256}), t, T, model.arch.d);
  const BoxEvaluation on_box = e.on_box();
  const PointEvaluation at_point = e.at_point();
  const long prec = e.precision();
  std::vector<BoxEnclosure> out;
  out.reserve(boxes.size());
  for (const auto& [lo, hi] : boxes) {
    BoxEnclosure b{box_enclosure(on_box, at_point, lo, hi, prec), {}};
    std::vector<DualBall> x;
    for (std::size_t i = 0; i < lo.size(); ++i) x.push_back(DualBall::variable(ArbBall::interval(lo[i], hi[i], prec), i, lo.size()));
    b.gradient = on_box(x).grad;
    if (b.gradient.empty()) b.gradient.assign(lo.size(), ArbBall(0.0, prec));  // constant on the box
    out.push_back(std::move(b));
  }
  return out;
}

namespace {

// The affine form at the point x of the box with these sides: C + Σ_i A_i ε_i with ε_i = (x_i − m_i)/r_i for the
// inputs' symbols, and A_k·[−1, 1] for each fresh symbol k ≥ n (a remainder's, whose value at x no input fixes).
ArbBall affine_at(const AffineForm& f, const std::vector<ArbBall>& sides, const std::vector<ArbBall>& x) {
  ArbBall r = f.centre;
  for (std::size_t i = sides.size(); i < f.coef.size(); ++i) arb_add_error(r.raw(), f.coef[i].raw());
  for (std::size_t i = 0; i < f.coef.size() && i < sides.size(); ++i) {
    ArbBall m(x[i].prec()), radius(x[i].prec());
    arf_set(arb_midref(m.raw()), arb_midref(sides[i].raw()));
    arb_get_rad_arb(radius.raw(), sides[i].raw());
    if (arb_is_zero(radius.raw())) continue;  // a thin side: its symbol's coefficient is 0
    r += f.coef[i] * ((x[i] - m) / radius);
  }
  return r;
}

// The double form at the point x: c + Σ_i a_i ε_i ± radius, with ε_i = (x_i − m_i)/r_i for the double centre m_i and
// half-width r_i its inputs were given (DoubleAffineForm::variable), in arb; a fresh symbol's term as ±|a_k|.
ArbBall affine_at(const DoubleAffineForm& f, const std::vector<ArbBall>& sides, const std::vector<ArbBall>& x) {
  const long prec = x.empty() ? kPrec : x.front().prec();
  ArbBall r(f.centre, prec);
  for (std::size_t i = sides.size(); i < f.coef.size(); ++i) arb_add_error(r.raw(), ArbBall(f.coef[i], prec).raw());
  for (std::size_t i = 0; i < f.coef.size() && i < sides.size(); ++i) {
    const DoubleAffineForm input = DoubleAffineForm::variable(sides[i], i, sides.size());
    if (input.coef.size() <= i || input.coef[i] == 0.0) continue;  // a thin side: its symbol's coefficient is 0
    r += ArbBall(f.coef[i], prec) * ((x[i] - ArbBall(input.centre, prec)) / ArbBall(input.coef[i], prec));
  }
  arb_add_error(r.raw(), ArbBall(f.radius, prec).raw());
  return r;
}

// How far the point value v lies outside the form's range and outside its value at the point (≤ 0: inside both).
template <class Form>
double affine_excess(const Form& form, const std::vector<ArbBall>& sides, const std::vector<ArbBall>& x, const ArbBall& v) {
  const ArbBall range = form.range(), related = affine_at(form, sides, x);
  return std::max({v.lower() - range.upper(), range.lower() - v.upper(), v.lower() - related.upper(),
                   related.lower() - v.upper()});
}

}  // namespace

EnclosureAudit audit_box_enclosures(const Model& model, const std::string& target, int T, int boxes, int points,
                                    std::uint64_t seed) {
  const ParsedTarget t = parse_target(target);
  const int d = model.arch.d, n = T * d;
  const ErrorEvaluation e(convert_model<mpfr::mpreal>(model, Precision{256}), t, T, d);
  const BoxEvaluation on_box = e.on_box();
  const PointEvaluation at_point = e.at_point();
  SplitMix64 rng(seed);
  EnclosureAudit a;
  for (int b = 0; b < boxes; ++b) {
    // Boxes from a quarter of the cube down to 2^-10 wide, anywhere in [0,1]^n, each side up to 8 times narrower than
    // the widest (not cubes): wide boxes test the natural enclosure, narrow ones the mean-value and affine forms
    // where the softmax is sharp.
    const double width = std::ldexp(1.0, -2 - static_cast<int>(rng.uniform_index(9)));
    std::vector<double> lo(n), hi(n);
    std::vector<ArbBall> sides;
    for (int i = 0; i < n; ++i) {
      const double w = std::ldexp(width, -static_cast<int>(rng.uniform_index(4)));
      lo[i] = rng.uniform(0.0, 1.0 - w);
      hi[i] = lo[i] + w;
      sides.push_back(ArbBall::interval(lo[i], hi[i], kPrec));
    }
    const ArbBall enclosure = box_enclosure(on_box, at_point, lo, hi, kPrec);
    // The affine forms alone (arb and double): each one's range, and its value at each point's own noise symbols (the
    // relation it claims, which a remainder too small breaks long before the range does).
    const AffineForm form = e.affine_error<AffineForm>(sides);
    const DoubleAffineForm fast = e.affine_error<DoubleAffineForm>(sides);
    ++a.boxes;
    for (int p = 0; p < points; ++p) {
      std::vector<ArbBall> x;
      for (int i = 0; i < n; ++i) x.emplace_back(p == 0 ? lo[i] : p == 1 ? hi[i] : rng.uniform(lo[i], hi[i]), kPrec);
      const ArbBall v = at_point(x);
      ++a.points;
      // A point value that lies (as a ball) entirely outside the box's enclosure: the enclosure is not one.
      const double excess = std::max(v.lower() - enclosure.upper(), enclosure.lower() - v.upper());
      const double affine = std::max(affine_excess(form, sides, x, v), affine_excess(fast, sides, x, v));
      if (excess > 0 || affine > 0) {
        ++a.violations;
        a.worst_excess = std::max({a.worst_excess, excess, affine});
      }
    }
  }
  return a;
}

GradientAudit audit_gradient_enclosures(const Model& model, const std::string& target, int T, int points,
                                        std::uint64_t seed) {
  const ParsedTarget t = parse_target(target);
  const int d = model.arch.d, n = T * d;
  constexpr long kFinePrec = 512;
  const ErrorEvaluation e(convert_model<mpfr::mpreal>(model, Precision{256}), t, T, d, nullptr, kFinePrec);
  const BoxEvaluation on_box = e.on_box();
  const PointEvaluation at_point = e.at_point();
  SplitMix64 rng(seed);
  GradientAudit a;
  // Central differences with step h = 2^-80 at 512 bits: the truncation error is h²·|e‴|/6, far below the tolerance
  // for any model whose third derivative is below 1e35 near the point (a kink within h of a random point has
  // probability ~1e-24).
  const ArbBall h(std::ldexp(1.0, -80), kFinePrec);
  for (int p = 0; p < points; ++p) {
    std::vector<double> x(n);
    for (double& v : x) v = rng.uniform(0.05, 0.95);
    std::vector<DualBall> box;
    for (int i = 0; i < n; ++i)
      box.push_back(DualBall::variable(ArbBall::interval(x[i] - 0x1p-30, x[i] + 0x1p-30, kFinePrec), i, n));
    DualBall g = on_box(box);
    if (g.grad.empty()) g.grad.assign(n, ArbBall(0.0, kFinePrec));
    for (int i = 0; i < n; ++i) {
      std::vector<ArbBall> up, down;
      for (int j = 0; j < n; ++j) {
        up.emplace_back(x[j], kFinePrec), down.emplace_back(x[j], kFinePrec);
        if (j == i) up.back() += h, down.back() -= h;
      }
      const ArbBall fd = (at_point(up) - at_point(down)) / (h + h);
      ++a.derivatives;
      const double tolerance = 1e-12 * (1 + std::fabs(fd.mid()));
      const double excess = std::max(fd.lower() - g.grad[i].upper(), g.grad[i].lower() - fd.upper()) - tolerance;
      if (excess > 0) {  // (an unbounded enclosure contains everything: useless, never wrong)
        ++a.violations;
        if (std::isfinite(excess)) a.worst_excess = std::max(a.worst_excess, excess);
      }
    }
  }
  return a;
}

namespace {

// The function a certificate is about: the model (the file's weights, or those weights rounded to double for
// execution "double"), the reader's radii where they apply, and the problem's identity as written in checkpoints and
// certificates (the model by its digest).
struct CertifiedFunction {
  ModelT<mpfr::mpreal> model;
  Model as_double;
  const DecimalRounding* radii = nullptr;
  json problem;
};

CertifiedFunction certified_function(const ModelT<mpfr::mpreal>& file_model, const CertifyRequest& q,
                                     const DecimalRounding* rounding) {
  // In float64 the model that runs is the file's weights rounded to double; certify that one (exactly) and add
  // the rounding of its execution.
  const bool in_double = q.execution == "double";
  if (in_double)
    if (const auto w = first_weight_beyond_double(file_model))
      throw InputError("--execution", "double: " + *w + " is beyond the double range (" + kDoubleRangeText +
                                          "), so the model has no float64 execution; expected --execution real, or "
                                          "weights a double holds");
  CertifiedFunction f;
  f.as_double = convert_model<double>(file_model, Precision{53});
  f.model = in_double ? convert_model<mpfr::mpreal>(f.as_double, Precision{256}) : file_model;
  // In float64 the weights are the doubles; otherwise the values the file denotes, enclosed with the reader's radii.
  f.radii = !in_double && rounding && rounding->rounded > 0 ? rounding : nullptr;
  const std::size_t rounded = f.radii ? f.radii->rounded : 0;
  std::string identity = weights_to_json(f.model).dump();
  if (f.radii) {
    for (std::size_t i = 0; i < f.radii->param_radius.size(); ++i)
      if (f.radii->param_radius[i] > 0) identity += "|p" + std::to_string(i) + "±" + f.radii->param_radius[i].toString(20);
    for (std::size_t i = 0; i < f.radii->temperature_radius.size(); ++i)
      if (f.radii->temperature_radius[i] > 0) identity += "|b" + std::to_string(i) + "±" + f.radii->temperature_radius[i].toString(20);
  }
  f.problem = json{{"weights_sha256", sha256_hex(identity)},
                   {"target", q.target}, {"T", q.T}, {"d", q.d}, {"execution", q.execution},
                   {"rounded_decimals", rounded}};
  return f;
}

// Whether the target names a token by its position (x[1]) rather than through an index every reduction runs over.
bool names_a_position(const TargetNode& n) {
  if (n.kind == TargetNode::Kind::Token && n.index.empty()) return true;
  for (const auto& c : n.children)
    if (names_a_position(*c)) return true;
  return false;
}

}  // namespace

std::size_t token_permutation_block(const Architecture& arch, const ParsedTarget& target, int T, int d,
                                    const std::vector<double>& lo, const std::vector<double>& hi) {
  // Without a positional table the model permutes its tokens: the encoder and the FFNs act token by token, attention
  // sums over all tokens, and the readout reads the CLS state. A target whose every token is bound by a reduction
  // over all T tokens (min, max, sum, kth_largest) is unchanged by a permutation too.
  if (T < 2 || d < 1 || (arch.positions > 0 && !mutated(Mutant::SymmetryIgnoresPositions)) || names_a_position(*target.root))
    return 0;
  const std::size_t n = static_cast<std::size_t>(T) * static_cast<std::size_t>(d);
  if (lo.size() != n || hi.size() != n) return 0;
  for (std::size_t i = static_cast<std::size_t>(d); i < n; ++i)
    if (lo[i] != lo[i % d] || hi[i] != hi[i % d]) return 0;  // the box must be the same for every token
  return static_cast<std::size_t>(d);
}

CertifyReport certify_model(const ModelT<mpfr::mpreal>& file_model, const CertifyRequest& request,
                            const DecimalRounding* rounding) {
  CertifyRequest q = request;
  if (q.d == 0) q.d = file_model.arch.d;
  validate(file_model, q);
  const ParsedTarget target = parse_target(q.target);
  check_target_evaluable(target, q.T, q.d);
  const CertifiedFunction f = certified_function(file_model, q, rounding);
  const ErrorEvaluation evaluation(f.model, target, q.T, q.d, f.radii, 0, q.enclosure == "affine");
  const BoxEvaluation on_box = evaluation.on_box();
  const PointEvaluation at_point = evaluation.at_point();
  BranchAndBoundOptions o;
  o.lo = box_corner(q.box_lo, q.T * q.d);
  o.hi = box_corner(q.box_hi, q.T * q.d);
  o.relative_gap = q.relative_gap;
  o.budget_seconds = q.budget_seconds;
  o.max_boxes = q.max_boxes;
  o.threads = q.threads;
  o.prec = evaluation.precision();
  if (q.symmetry) o.permutation_block = token_permutation_block(f.model.arch, target, q.T, q.d, o.lo, o.hi);
  o.checkpoint_path = q.checkpoint;
  o.checkpoint_seconds = q.checkpoint_seconds;
  // What the search is about; budgets and gaps may change between a run and its resumption.
  // The enclosure family too: a resumed search's open boxes carry upper bounds from the family that evaluated them.
  o.fingerprint = settings_version(std::string("certify-v2/build=") + INFOFLOW_BUILD_COMMIT + "/enclosure=" + q.enclosure +
                                       "/permutation_block=" + std::to_string(o.permutation_block),
                                   f.problem);
  CertifyReport rep;
  rep.request = q;
  rep.permutation_block = o.permutation_block;
  rep.rounded_decimals = f.radii ? f.radii->rounded : 0;
  if (f.radii) rep.first_rounded = f.radii->first;
  rep.result = q.enclosure == "affine-only" ? sup_abs_branch_and_bound(evaluation.range(), at_point, evaluation.estimate(), o)
                                            : sup_abs_branch_and_bound(on_box, at_point, o);
  rep.boxes_per_second = rep.result.seconds > 0 ? rep.result.boxes / rep.result.seconds : 0;
  const Model& as_double = f.as_double;
  RoundingRefinement refine;
  if (q.execution == "double") {
    DoubleExecutionReport d;
    // The sampled side first: the refinement stops once the certified bound is within kRoundingTarget times the
    // rounding observed (or at --rounding-boxes).
    const ObservedRounding observed = observed_double_rounding(as_double, q.T, o.lo, o.hi, kRoundingSamples, 1);
    refine.max_boxes = q.rounding_boxes;
    refine.stop_below = kRoundingTarget * observed.largest;
    refine.threads = q.threads;
    const DoubleExecutionBound rounding = double_execution_error_bound(as_double, q.T, o.lo, o.hi, refine);
    // A rounding observed above the certified bound would be a defect of the analysis: refuse to print the bound.
    if (observed.largest > rounding.output_error)
      throw ContractError("certify --execution double",
                          "the rounding observed at an input, " + std::to_string(observed.largest) +
                              ", exceeds the certified rounding bound " + std::to_string(rounding.output_error));
    d.rounding_bound = rounding.output_error;
    d.rounding_boxes = rounding.boxes;
    d.rounding_observed = observed.largest;
    d.rounding_observed_at = observed.at;
    d.rounding_samples = observed.evaluations;
    d.upper = (ArbBall(rep.result.upper, kPrec) + ArbBall(d.rounding_bound, kPrec)).upper();
    // The float64 forward pass at the attained input, against F in arb: an attained error of the model as it runs.
    if (rep.result.argmax.size() == static_cast<std::size_t>(q.T * q.d)) {
      const Sequence<double> X = as_sequence(rep.result.argmax, q.T, q.d);
      const Sequence<ArbBall> Xb = convert_sequence<ArbBall>(X, Precision{kPrec});
      const double y = forward(as_double, ParamLayout(as_double.arch), X).y;
      const ArbBall err = ArbBall(y, kPrec) - evaluate_target(target, Xb, Precision{kPrec});
      // A double output that is not finite (an overflow, a NaN) is no approximation at all: +inf, never a NaN
      // that max(0, ·) would turn into 0.
      d.lower = std::isfinite(y) ? std::max(0.0, abs(err).lower()) : INFINITY;
    }
    rep.double_execution = d;
  }
  if ((!q.certificate.empty() || q.verify_proof) && std::isfinite(rep.result.upper)) {
    // The proof, written down and checked at once by the checker's own route: `complete` rests on it.
    json document = certificate_to_json(rep.result, o.lo, o.hi, o.prec, f.problem, o.permutation_block);
    // With execution double, the rounding bound and the settings that derived it: the checker derives it again.
    if (rep.double_execution)
      document["float64_rounding"] = {{"bound", bound_to_json(rep.double_execution->rounding_bound)},
                                      {"max_sub_boxes", refine.max_boxes},
                                      {"stop_below", refine.stop_below}};
    if (!q.certificate.empty()) write_json_file(q.certificate, document, "--certificate");
    rep.certificate_check = check_certificate_file(document, file_model, rounding, q.threads);
    if (!rep.certificate_check->verified()) rep.result.complete = false, rep.result.stopped_by = "certificate refused";
  }
  return rep;
}


CertificateCheckReport check_certificate_file(const json& certificate, const ModelT<mpfr::mpreal>& file_model,
                                              const DecimalRounding* rounding, int threads, double budget_seconds) {
  if (threads < 1 || threads > 256) throw InputError("--threads", "expected 1 <= K <= 256");
  if (!(budget_seconds == 0 || (budget_seconds > 0 && budget_seconds <= 86400)))
    throw InputError("--budget", "expected 0 < S <= 86400 seconds");
  CertificateCheckReport rep;
  rep.claim = certificate_claim_from_json(certificate);  // first: a document that is not a certificate says so
  CertifyRequest q;
  try {
    const json& p = certificate.at("problem");
    q.target = p.at("target").get<std::string>();
    q.T = p.at("T").get<int>();
    q.d = p.at("d").get<int>();
    q.execution = p.at("execution").get<std::string>();
  } catch (const json::exception& e) {
    throw InputError("certificate", std::string("expected a \"problem\" with target, T, d and execution: ") + e.what());
  }
  validate(file_model, q);
  // The target comes from the certificate here, not from the command line: its errors say so.
  ParsedTarget target;
  try {
    target = parse_target(q.target);
    check_target_evaluable(target, q.T, q.d);
  } catch (const InputError& e) {
    if (e.argument() != "--target") throw;
    throw InputError("certificate", "problem.target: " + e.expectation());
  }
  const CertifiedFunction f = certified_function(file_model, q, rounding);
  if (certificate["problem"].value("weights_sha256", "") != f.problem["weights_sha256"])
    throw InputError("--weights", "the certificate is about another model (its weights_sha256 is not this file's " +
                                      f.problem["weights_sha256"].get<std::string>() + ")");
  rep.problem = f.problem;
  if (rep.claim.lo.size() != static_cast<std::size_t>(q.T * q.d))
    throw InputError("certificate", "its box has " + std::to_string(rep.claim.lo.size()) + " coordinates, not T*d = " +
                                        std::to_string(q.T * q.d));
  // The natural enclosure and the centred form from the dual balls, and the arb affine form's range beside them
  // (intersected in doubles; the search's double range was widened by `checkable`, so no leaf is bounded more loosely
  // here than either search bounded it).
  const ErrorEvaluation evaluation(f.model, target, q.T, q.d, f.radii, rep.claim.prec, /*affine=*/false);
  // The symmetry the search used is taken only when it holds here (this model, target and box); otherwise a tree of
  // contracted boxes (format 2) is refused, and a format-1 tree has every leaf enclosed, the ones the search left out
  // too.
  const std::size_t block = token_permutation_block(f.model.arch, target, q.T, q.d, rep.claim.lo, rep.claim.hi);
  rep.verdict = check_certificate(rep.claim, evaluation.on_box(), evaluation.at_point(), threads, budget_seconds, block,
                                  evaluation.range(/*in_arb=*/true));
  rep.covers = q.execution == "double"
                   ? "the real-number function of the weights rounded to double over the box, and its float64 execution "
                     "(ForwardPass<double>) through the rounding bound below"
                   : "the real-number function the weights define over the box (not its floating-point execution)";
  if (q.execution == "double") {
    // The claim about the float64 execution is U + rho: rho is derived again here, by the rounding analysis with the
    // certificate's settings, and must not exceed the rho it states. A certificate without rho proves nothing
    // about the execution its problem names.
    const json* r = certificate.contains("float64_rounding") ? &certificate["float64_rounding"] : nullptr;
    rep.rounding_problem = "";
    if (!r || !r->is_object() || !r->contains("bound") || !(*r)["bound"].is_number() ||
        !r->contains("max_sub_boxes") || !(*r)["max_sub_boxes"].is_number_integer() || !r->contains("stop_below") ||
        !(*r)["stop_below"].is_number())
      rep.rounding_problem = "execution double, but no float64_rounding {bound, max_sub_boxes, stop_below} to verify";
    else {
      const long boxes = (*r)["max_sub_boxes"].get<long>();
      if (boxes < 1 || boxes > 10'000'000) throw InputError("certificate", "float64_rounding.max_sub_boxes: expected 1 to 1e7");
      RoundingRefinement refine;
      refine.max_boxes = boxes;
      refine.stop_below = (*r)["stop_below"].get<double>();
      refine.threads = threads;
      rep.rounding_claimed = (*r)["bound"].get<double>();
      rep.rounding_derived = double_execution_error_bound(f.as_double, q.T, rep.claim.lo, rep.claim.hi, refine).output_error;
      if (!(rep.rounding_derived <= rep.rounding_claimed))
        rep.rounding_problem = "the rounding bound derived again, " + format_bound(rep.rounding_derived, 6, true) +
                               ", exceeds the certificate's " + format_bound(rep.rounding_claimed, 6, true);
    }
  }
  return rep;
}

std::vector<double> box_corner(const std::vector<double>& ends, int inputs) {
  return ends.size() == 1 ? std::vector<double>(static_cast<std::size_t>(inputs), ends[0]) : ends;
}

}  // namespace infoflow
