#include "numerics/scalar/affine_form.hpp"

#include "numerics/scalar/affine_linearisation.hpp"
#include "numerics/scalar/noise_symbols.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <optional>

namespace infoflow {

namespace {

using affine_detail::intersection;
using affine_detail::magnitude;

// Coefficients for at least n symbols: fresh symbols (noise_symbols.hpp) make forms of one box differ in length, and
// a symbol a form lacks has coefficient 0 in it.
void widen(std::vector<ArbBall>& coef, std::size_t n, long prec) {
  if (coef.size() < n) coef.resize(n, ArbBall(0.0, prec));
}

// Adds [−|e|, |e|] (e's upper magnitude) to the ball: a remainder absorbed into the centre.
void add_remainder(ArbBall& b, const ArbBall& e) { arb_add_error(b.raw(), e.raw()); }

// The product of two intervals held as balls, from their ends: a ball product (|m₁m₂| ± (|m₁|r₂ + |m₂|r₁ + r₁r₂))
// is wider where the balls are wide relative to their midpoints, e.g. [−1.27, 0.03]·[0.5, 1.5].
ArbBall interval_product(const ArbBall& a, const ArbBall& b) {
  if (!a.is_finite() || !b.is_finite()) return a * b;
  const ArbBall a_lo = a.lower_end(), a_hi = a.upper_end(), b_lo = b.lower_end(), b_hi = b.upper_end();
  const ArbBall p[4] = {a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi};
  ArbBall lo = p[0], hi = p[0];
  for (const ArbBall& x : p) lo = min(lo, x), hi = max(hi, x);
  return ArbBall::interval(lo, hi);
}

// The hull of a product: a ball product where one factor is a point (exact then, up to rounding: |m|·r), the
// product from the ends otherwise. A wide constant (a softmax weight taken as its interval enclosure) times a hull
// must come out as the double form's, an interval product, or the checker's range is the wider of the two.
ArbBall hull_product(const ArbBall& a, const ArbBall& b) {
  if (mag_is_zero(arb_radref(a.raw())) || mag_is_zero(arb_radref(b.raw()))) return a * b;
  return interval_product(a, b);
}

}  // namespace

AffineForm AffineForm::variable(const ArbBall& side, std::size_t i, std::size_t n) {
  const long prec = side.prec();
  ArbBall m(prec), r(prec);
  arf_set(arb_midref(m.raw()), arb_midref(side.raw()));
  arb_get_rad_arb(r.raw(), side.raw());
  std::vector<ArbBall> a(n, ArbBall(0.0, prec));
  // Mutant: the last input shares the first one's noise symbol (two independent inputs made equal in the form).
  const std::size_t symbol = mutated(Mutant::AffineNoiseSymbolReused) && n > 1 && i + 1 == n ? 0 : i;
  a[symbol] = r;
  AffineForm x(std::move(m));
  x.coef = std::move(a);
  x.hull = side;
  return x;
}

ArbBall AffineForm::range() const {
  ArbBall r = centre;
  for (const ArbBall& a : coef) add_remainder(r, a);
  return intersection(r, hull);
}

AffineForm& narrow_hull(AffineForm& form, const ArbBall& interval) {
  form.hull = intersection(form.hull, interval);
  return form;
}

AffineForm& AffineForm::operator+=(const AffineForm& o) {
  centre += o.centre;
  hull += o.hull;
  if (coef.empty()) coef = o.coef;
  else {
    widen(coef, o.coef.size(), prec());
    for (std::size_t i = 0; i < o.coef.size(); ++i) coef[i] += o.coef[i];
  }
  return *this;
}

AffineForm& AffineForm::operator-=(const AffineForm& o) {
  centre -= o.centre;
  hull -= o.hull;
  if (coef.empty())
    for (const ArbBall& b : o.coef) coef.push_back(-b);
  else {
    widen(coef, o.coef.size(), prec());
    for (std::size_t i = 0; i < o.coef.size(); ++i) coef[i] -= o.coef[i];
  }
  return *this;
}

AffineForm& AffineForm::operator*=(const AffineForm& o) {
  // (c₁ + Σ a_i ε_i)(c₂ + Σ b_i ε_i) = c₁c₂ + Σ (c₁ b_i + c₂ a_i) ε_i + Σ_i a_i b_i ε_i² + Σ_{i≠j} a_i b_j ε_i ε_j.
  // ε_i² ∈ [0, 1] puts the diagonal in a_i b_i·[0, 1]; the rest is at most Σ_{i≠j} |a_i||b_j|.
  const long p = std::max(prec(), o.prec());
  hull = hull_product(hull, o.hull);
  if (o.coef.empty()) {
    for (ArbBall& a : coef) a *= o.centre;
    centre *= o.centre;
    return *this;
  }
  if (coef.empty()) {
    std::vector<ArbBall> scaled;
    scaled.reserve(o.coef.size());
    for (const ArbBall& b : o.coef) scaled.push_back(centre * b);
    coef = std::move(scaled);
    centre *= o.centre;
    return *this;
  }
  const ArbBall unit = ArbBall::interval(0.0, 1.0, p), zero(0.0, p);
  widen(coef, o.coef.size(), p);  // a symbol one form lacks has coefficient 0 there
  const auto b = [&](std::size_t i) -> const ArbBall& { return i < o.coef.size() ? o.coef[i] : zero; };
  ArbBall diagonal(0.0, p), sum_a(0.0, p), sum_b(0.0, p), sum_ab(0.0, p);
  for (std::size_t i = 0; i < coef.size(); ++i) {
    diagonal += coef[i] * b(i) * unit;
    const ArbBall ua = magnitude(coef[i]), ub = magnitude(b(i));
    sum_a += ua;
    sum_b += ub;
    sum_ab += ua * ub;
  }
  for (std::size_t i = 0; i < coef.size(); ++i) coef[i] = centre * b(i) + o.centre * coef[i];
  centre *= o.centre;
  centre += diagonal;
  if (!mutated(Mutant::AffineProductDropsRemainder)) add_remainder(centre, sum_a * sum_b - sum_ab);
  return *this;
}

AffineForm& AffineForm::operator/=(const AffineForm& o) {
  ArbBall unknown(o.prec());
  arb_indeterminate(unknown.raw());
  return *this *= reciprocal(o, unknown);
}

void add_product(AffineForm& acc, const AffineForm& a, const AffineForm& b) {
  if (!a.coef.empty() && !b.coef.empty()) {
    acc += a * b;
    return;
  }
  // One factor is a constant k (its centre, an exact or ball weight): acc += k·(c + Σ a_i ε_i), term by term.
  const AffineForm& k = a.coef.empty() ? a : b;
  const AffineForm& v = a.coef.empty() ? b : a;
  if (arb_is_zero(k.centre.raw()) && arb_is_zero(k.hull.raw())) return;  // an exact zero weight adds nothing
  const long prec = std::max({acc.prec(), a.prec(), b.prec()});
  widen(acc.coef, v.coef.size(), prec);
  for (std::size_t i = 0; i < v.coef.size(); ++i) arb_addmul(acc.coef[i].raw(), k.centre.raw(), v.coef[i].raw(), prec);
  arb_addmul(acc.centre.raw(), k.centre.raw(), v.centre.raw(), prec);
  // hull_product's point case, without its temporary (a weight is a point: this is every matrix-vector product).
  if (mag_is_zero(arb_radref(k.hull.raw()))) arb_addmul(acc.hull.raw(), k.hull.raw(), v.hull.raw(), prec);
  else acc.hull += hull_product(k.hull, v.hull);
}

AffineForm operator-(const AffineForm& a) {
  AffineForm r(-a.centre);
  r.hull = -a.hull;
  r.coef.reserve(a.coef.size());
  for (const ArbBall& c : a.coef) r.coef.push_back(-c);
  return r;
}

AffineForm affine_combination(const ArbBall& constant, const std::vector<ArbBall>& g,
                              const std::vector<const AffineForm*>& args, const ArbBall& image) {
  AffineForm r(constant);
  r.hull = image;
  const long prec = r.prec();
  for (std::size_t s = 0; s < g.size(); ++s) {
    const AffineForm& z = *args[s];
    arb_addmul(r.centre.raw(), g[s].raw(), z.centre.raw(), prec);
    if (z.coef.empty()) continue;
    widen(r.coef, z.coef.size(), prec);
    for (std::size_t i = 0; i < z.coef.size(); ++i) arb_addmul(r.coef[i].raw(), g[s].raw(), z.coef[i].raw(), prec);
  }
  return r;
}

void remainder_to_fresh_symbol(AffineForm& form) {
  if (form.coef.empty()) return;  // a constant: nothing to share, and no symbol taken (the double form does the same)
  const std::optional<std::size_t> symbol = take_fresh_noise_symbol();
  if (!symbol || !form.centre.is_finite()) return;
  // With c, a_i the balls' midpoints, v(x) = c + Σ_i a_i ε_i + e(x), where e gathers what the balls' radii allow:
  // |e(x)| ≤ rad C + Σ_i rad A_i (each |ε_i| ≤ 1). The balls become their midpoints and e becomes R·η_k, R that sum
  // rounded up: the coefficient radii are remainders too (a ball centre times a coefficient leaves its radius
  // there), and left behind they would stay one copy per use, as the double form's radius did before it was named.
  const long prec = form.prec();
  ArbBall remainder(prec);
  arb_get_rad_arb(remainder.raw(), form.centre.raw());
  mag_zero(arb_radref(form.centre.raw()));
  for (ArbBall& a : form.coef) {
    ArbBall r(prec);
    arb_get_rad_arb(r.raw(), a.raw());
    remainder += r;
    mag_zero(arb_radref(a.raw()));
  }
  widen(form.coef, *symbol + 1, prec);
  form.coef[*symbol] += magnitude(remainder);  // onto 0 (a fresh symbol is in no form yet): an exact bound of |e|
}

AffineForm exp(const AffineForm& a) { return affine_detail::exp_form(a); }
AffineForm sqrt_nonneg(const AffineForm& a) { return affine_detail::sqrt_nonneg_form(a); }
AffineForm reciprocal(const AffineForm& a, const ArbBall& known) { return affine_detail::reciprocal_form(a, known); }
AffineForm softmax_weight(const std::vector<AffineForm>& z) { return affine_detail::softmax_weight_form(z); }
AffineForm relu(const AffineForm& a) { return affine_detail::relu_form(a); }
AffineForm gelu(const AffineForm& a) { return affine_detail::gelu_form(a); }
AffineForm max(const AffineForm& a, const AffineForm& b) { return affine_detail::max_form(a, b); }

}  // namespace infoflow
