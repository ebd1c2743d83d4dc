#include "numerics/scalar/double_affine_form.hpp"

#include "numerics/scalar/affine_linearisation.hpp"
#include "numerics/scalar/noise_symbols.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace infoflow {

namespace {

constexpr double kUnit = 0x1p-53;   // u: round-to-nearest's relative error bound
constexpr double kEta = 0x1p-1074;  // η: an underflowing product's absolute error is at most η/2

// An upper bound of the exact sum of n nonnegative terms, each given as its double with at most one rounding of its
// own (so the exact term is at most t(1 + u) + η/2), accumulated here in round-to-nearest: the exact sum is at most
// the computed one over (1 − u)^(n+1), i.e. times at most 1 + 2(n + 1)u (for (n + 1)u ≤ ½), plus the terms' η's, and
// the final scaling's own two roundings are inside the further 4u. NaN and +inf pass through (an indeterminate radius).
class RadiusSum {
 public:
  void add(double term) { s_ += term, ++n_; }
  double bound() const { return s_ + s_ * ((2.0 * n_ + 6.0) * kUnit) + (2.0 * n_ + 2.0) * kEta; }

 private:
  double s_ = 0.0;
  int n_ = 0;
};

double down(double x) { return std::isnan(x) ? -INFINITY : std::nextafter(x, -INFINITY); }
double up(double x) { return std::isnan(x) ? INFINITY : std::nextafter(x, INFINITY); }

// An upper bound of max |v| over the box: |c| + Σ|a_i| + radius.
double magnitude_bound(const DoubleAffineForm& v) {
  RadiusSum m;
  m.add(std::fabs(v.centre));
  for (double a : v.coef) m.add(std::fabs(a));
  m.add(v.radius);
  return m.bound();
}

// acc += k·v for a double k, the rounding errors of its products and sums (the standard model: at most
// u·|fl(k·a)| + η/2 and u·|fl(sum)| each) and |k|·(v's radius) into `rs`; acc's radius and hull are the caller's.
void accumulate(DoubleAffineForm& acc, double k, const DoubleAffineForm& v, RadiusSum& rs) {
  const double product = k * v.centre;
  acc.centre += product;
  rs.add(kUnit * (std::fabs(product) + std::fabs(acc.centre)) + kEta);
  if (!v.coef.empty() && acc.coef.size() < v.coef.size()) acc.coef.resize(v.coef.size(), 0.0);
  for (std::size_t i = 0; i < v.coef.size(); ++i) {
    const double p = k * v.coef[i];
    acc.coef[i] += p;
    rs.add(kUnit * (std::fabs(p) + std::fabs(acc.coef[i])) + kEta);
  }
  if (v.radius != 0.0) rs.add(std::fabs(k) * v.radius);
}

// The product of two intervals, rounded outward (an inf·0 end makes the whole line).
void multiply_hulls(double a_lo, double a_hi, double b_lo, double b_hi, double& lo, double& hi) {
  const double p[4] = {a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi};
  lo = INFINITY, hi = -INFINITY;
  for (double x : p) {
    if (std::isnan(x)) {
      lo = -INFINITY, hi = INFINITY;
      return;
    }
    lo = std::min(lo, x), hi = std::max(hi, x);
  }
  lo = down(lo), hi = up(hi);
}

// The exact sum of two hull ends, rounded outward.
double add_lower(double a, double b) { return down(a + b); }
double add_upper(double a, double b) { return up(a + b); }

// |b − x| rounded up, for a ball b and the double x chosen to stand for it (the part of b that x leaves out).
double deviation(const ArbBall& b, double x) { return abs(b - ArbBall(x, 53)).upper(); }

}  // namespace

DoubleAffineForm::DoubleAffineForm(const ArbBall& b) {
  if (!b.is_finite()) {
    radius = INFINITY, hull_lo = -INFINITY, hull_hi = INFINITY;
    return;
  }
  centre = b.mid();
  radius = deviation(b, centre);
  hull_lo = b.lower(), hull_hi = b.upper();
}

DoubleAffineForm DoubleAffineForm::variable(const ArbBall& side, std::size_t i, std::size_t n) {
  DoubleAffineForm x(side);
  if (!side.is_finite()) return x;
  // x = m + r·ε_i with r ≥ both half-widths from m: every point of the side has its ε_i in [−1, 1].
  const double r = std::max(up(side.upper() - x.centre), up(x.centre - side.lower()));
  x.radius = 0.0;
  x.coef.assign(n, 0.0);
  // Mutant: the last input shares the first one's noise symbol (two independent inputs made equal in the form).
  const std::size_t symbol = mutated(Mutant::AffineNoiseSymbolReused) && n > 1 && i + 1 == n ? 0 : i;
  x.coef[symbol] = r;
  return x;
}

bool DoubleAffineForm::bounds(double& lo, double& hi) const {
  RadiusSum spread;
  for (double a : coef) spread.add(std::fabs(a));
  spread.add(radius);
  const double s = spread.bound();
  lo = std::max(down(centre - s), hull_lo), hi = std::min(up(centre + s), hull_hi);
  return std::isfinite(lo) && std::isfinite(hi) && lo <= hi;  // not NaN, no overflow, and the two enclosures meet
}

ArbBall DoubleAffineForm::range() const {
  double lo, hi;
  if (bounds(lo, hi)) return ArbBall::interval(lo, hi, kLinearisationPrec);
  ArbBall r(kLinearisationPrec);
  arb_indeterminate(r.raw());
  return r;
}

DoubleAffineForm& narrow_hull(DoubleAffineForm& form, const ArbBall& interval) {
  if (!interval.is_finite()) return form;
  form.hull_lo = std::max(form.hull_lo, interval.lower());
  form.hull_hi = std::min(form.hull_hi, interval.upper());
  return form;
}

void add_error(DoubleAffineForm& form, const ArbBall& radius) {
  RadiusSum r;
  r.add(form.radius);
  r.add(abs(radius).upper());
  form.radius = r.bound();
  form.hull_lo = down(form.hull_lo - abs(radius).upper());
  form.hull_hi = up(form.hull_hi + abs(radius).upper());
}

DoubleAffineForm& DoubleAffineForm::operator+=(const DoubleAffineForm& o) {
  RadiusSum rs;
  rs.add(radius);
  accumulate(*this, 1.0, o, rs);
  radius = rs.bound();
  hull_lo = add_lower(hull_lo, o.hull_lo), hull_hi = add_upper(hull_hi, o.hull_hi);
  return *this;
}

DoubleAffineForm& DoubleAffineForm::operator-=(const DoubleAffineForm& o) {
  RadiusSum rs;
  rs.add(radius);
  accumulate(*this, -1.0, o, rs);
  radius = rs.bound();
  hull_lo = add_lower(hull_lo, -o.hull_hi), hull_hi = add_upper(hull_hi, -o.hull_lo);
  return *this;
}

DoubleAffineForm operator-(DoubleAffineForm a) {
  a.centre = -a.centre;
  for (double& c : a.coef) c = -c;
  const double lo = a.hull_lo;
  a.hull_lo = -a.hull_hi, a.hull_hi = -lo;
  return a;
}

void add_product(DoubleAffineForm& acc, const DoubleAffineForm& a, const DoubleAffineForm& b) {
  if (!a.coef.empty() && !b.coef.empty()) {
    acc += a * b;
    return;
  }
  // One factor is a constant k = kc ± kr: acc += kc·v exactly as far as rounding goes, and kr·|v| into the radius.
  const DoubleAffineForm& k = a.coef.empty() ? a : b;
  const DoubleAffineForm& v = a.coef.empty() ? b : a;
  if (k.centre == 0.0 && k.radius == 0.0 && k.hull_lo == 0.0 && k.hull_hi == 0.0) return;  // an exact zero weight
  RadiusSum rs;
  rs.add(acc.radius);
  accumulate(acc, k.centre, v, rs);
  if (k.radius != 0.0) rs.add(k.radius * magnitude_bound(v));
  acc.radius = rs.bound();
  double lo, hi;
  multiply_hulls(k.hull_lo, k.hull_hi, v.hull_lo, v.hull_hi, lo, hi);
  acc.hull_lo = add_lower(acc.hull_lo, lo), acc.hull_hi = add_upper(acc.hull_hi, hi);
}

DoubleAffineForm& DoubleAffineForm::operator*=(const DoubleAffineForm& o) {
  if (coef.empty() || o.coef.empty()) {
    DoubleAffineForm product;
    add_product(product, *this, o);
    return *this = std::move(product);
  }
  // (c₁ + Σ a_i ε_i + e₁)(c₂ + Σ b_i ε_i + e₂) = c₁c₂ + Σ (c₁ b_i + c₂ a_i) ε_i + Σ_i a_i b_i ε_i² + Σ_{i≠j} a_i b_j ε_i ε_j
  // + e₁·(c₂ + Σ b_i ε_i + e₂) + e₂·(c₁ + Σ a_i ε_i). ε_i² ∈ [0, 1] puts the diagonal in Σ_i a_i b_i·[0, 1], i.e. its
  // half D/2 ± Σ_i |a_i b_i|/2; the off-diagonal part is at most Σ|a_i|·Σ|b_j| − Σ_i |a_i||b_i|.
  const std::size_t n = std::max(coef.size(), o.coef.size());
  RadiusSum abs_a, abs_b, abs_ab, rs;
  double diagonal = 0.0, diagonal_abs = 0.0;
  std::vector<double> c(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = i < coef.size() ? coef[i] : 0.0, b = i < o.coef.size() ? o.coef[i] : 0.0;
    const double ab = a * b;
    diagonal += ab;
    diagonal_abs += std::fabs(ab);
    abs_a.add(std::fabs(a)), abs_b.add(std::fabs(b)), abs_ab.add(std::fabs(ab));
    const double p = centre * b, q = o.centre * a;
    c[i] = p + q;
    rs.add(2.0 * kUnit * (std::fabs(p) + std::fabs(q)) + kUnit * std::fabs(c[i]) + 2.0 * kEta);
  }
  const double sum_a = abs_a.bound(), sum_b = abs_b.bound(), sum_ab = abs_ab.bound();
  // The diagonal: its computed sum D is within 2(n + 1)u·Σ|a_i b_i| + 2nη of the exact one.
  rs.add(0.5 * sum_ab);
  rs.add((2.0 * n + 2.0) * kUnit * sum_ab + (2.0 * n + 2.0) * kEta);
  // The off-diagonal part: Σ|a_i| Σ|b_j| − Σ_i |a_i b_i|, with the subtracted sum taken low (its RN sum less a bound of
  // its error and of this subtraction's own roundings).
  if (!mutated(Mutant::AffineProductDropsRemainder)) {
    const double full = sum_a * sum_b;
    const double diagonal_low = diagonal_abs - (2.0 * n + 6.0) * kUnit * sum_ab - (2.0 * n + 2.0) * kEta;
    const double off = full - std::max(diagonal_low, 0.0);
    rs.add(std::max(off, 0.0) + 4.0 * kUnit * full + 2.0 * kEta);
  }
  const double cc = centre * o.centre, new_centre = cc + 0.5 * diagonal;
  rs.add(2.0 * kUnit * (std::fabs(cc) + std::fabs(diagonal)) + 2.0 * kEta);
  // The radii: e₁ times at most |c₂| + Σ|b| + r₂, e₂ times at most |c₁| + Σ|a|.
  if (radius != 0.0) rs.add(radius * magnitude_bound(o));
  if (o.radius != 0.0) {
    RadiusSum m;
    m.add(std::fabs(centre)), m.add(sum_a);
    rs.add(o.radius * m.bound());
  }
  double lo, hi;
  multiply_hulls(hull_lo, hull_hi, o.hull_lo, o.hull_hi, lo, hi);
  centre = new_centre;
  coef = std::move(c);
  radius = rs.bound();
  hull_lo = lo, hull_hi = hi;
  return *this;
}

DoubleAffineForm& DoubleAffineForm::operator/=(const DoubleAffineForm& o) {
  ArbBall unknown(kLinearisationPrec);
  arb_indeterminate(unknown.raw());
  return *this *= reciprocal(o, unknown);
}

DoubleAffineForm affine_combination(const ArbBall& constant, const std::vector<ArbBall>& g,
                                    const std::vector<const DoubleAffineForm*>& args, const ArbBall& image) {
  DoubleAffineForm r(constant);
  RadiusSum rs;
  rs.add(r.radius);
  for (std::size_t s = 0; s < g.size(); ++s) {
    // g_s as the nearest double; the rest, |g_s − that| ≤ dev, times |z_s| ≤ its magnitude bound, in the radius.
    const double k = g[s].is_finite() ? g[s].mid() : 0.0;
    const double dev = g[s].is_finite() ? deviation(g[s], k) : INFINITY;
    accumulate(r, k, *args[s], rs);
    if (dev != 0.0) rs.add(dev * magnitude_bound(*args[s]));
  }
  r.radius = rs.bound();
  r.hull_lo = -INFINITY, r.hull_hi = INFINITY;
  return narrow_hull(r, image);
}

void remainder_to_fresh_symbol(DoubleAffineForm& form) {
  if (form.coef.empty()) return;
  const std::optional<std::size_t> symbol = take_fresh_noise_symbol();
  // An infinite or NaN radius stays where it is: the form is indeterminate, and a symbol would not make it less so.
  if (!symbol || !std::isfinite(form.radius) || form.radius == 0.0) return;
  if (form.coef.size() <= *symbol) form.coef.resize(*symbol + 1, 0.0);
  form.coef[*symbol] += form.radius;  // onto 0, exactly (a fresh symbol is in no form yet)
  form.radius = 0.0;
}

DoubleAffineForm exp(const DoubleAffineForm& a) { return affine_detail::exp_form(a); }
DoubleAffineForm sqrt_nonneg(const DoubleAffineForm& a) { return affine_detail::sqrt_nonneg_form(a); }
DoubleAffineForm reciprocal(const DoubleAffineForm& a, const ArbBall& known) { return affine_detail::reciprocal_form(a, known); }
DoubleAffineForm softmax_weight(const std::vector<DoubleAffineForm>& z) { return affine_detail::softmax_weight_form(z); }
DoubleAffineForm gelu(const DoubleAffineForm& a) { return affine_detail::gelu_form(a); }

DoubleAffineForm relu(const DoubleAffineForm& a) {
  // AffineForm's chord (affine_linearisation.hpp's relu_form) done in doubles, where it needs no arb: for any slope
  // α in [0, 1], ReLU(x) − α·x on [lo, hi] ∋ 0 lies in [0, G] with G = max((1 − α)·hi, −α·lo), so rounding α changes
  // only how tight the bound is, and G is computed rounded up.
  double lo, hi;
  if (a.coef.empty() || !a.bounds(lo, hi)) return affine_detail::relu_form(a);
  if (lo >= 0) return a;
  if (hi <= 0) return DoubleAffineForm();
  const double alpha = std::clamp(hi / (hi - lo), 0.0, 1.0);
  const double g = std::max(up(up(1.0 - alpha) * hi), up(alpha * -lo));
  DoubleAffineForm r;
  RadiusSum rs;
  accumulate(r, alpha, a, rs);
  // G/2 ± G/2: the centre moves by the double nearest G/2, and the radius holds G/2 and that rounding.
  // Mutant: half of the remainder, G/4 ± G/4 (the values near the chord's far ends fall outside).
  const double half = mutated(Mutant::DoubleAffineReluRemainderHalved) ? 0.25 * g : 0.5 * g;
  r.centre += half;
  rs.add(half);
  rs.add(kUnit * std::fabs(r.centre) + kEta);
  r.radius = rs.bound();
  r.hull_lo = 0.0, r.hull_hi = hi;
  return r;
}
DoubleAffineForm max(const DoubleAffineForm& a, const DoubleAffineForm& b) { return affine_detail::max_form(a, b); }

}  // namespace infoflow
