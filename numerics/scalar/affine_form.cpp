#include "numerics/scalar/affine_form.hpp"

#include "numerics/util/mutation.hpp"

#include <algorithm>

namespace infoflow {

namespace {

// |b|'s upper bound as an exact ball (zero radius).
ArbBall magnitude(const ArbBall& b) {
  ArbBall m(b.prec());
  arb_get_abs_ubound_arf(arb_midref(m.raw()), b.raw(), b.prec());
  return m;
}

// Adds [−|e|, |e|] (e's upper magnitude) to the ball: a remainder absorbed into the centre.
void add_remainder(ArbBall& b, const ArbBall& e) { arb_add_error(b.raw(), e.raw()); }

// a ∩ b, or an indeterminate ball when they do not meet (two enclosures of one quantity that are disjoint: one is
// wrong, and nothing may be concluded from either).
ArbBall intersection(const ArbBall& a, const ArbBall& b) {
  const long prec = std::max(a.prec(), b.prec());
  if (!a.is_finite()) return b;
  if (!b.is_finite()) return a;
  ArbBall r(prec);
  if (!arb_intersection(r.raw(), a.raw(), b.raw(), prec)) arb_indeterminate(r.raw());
  return r;
}

// f(v) given f(x) = α·x + ζ + e with |e| ≤ |δ| for every x in v's range, and `image` ⊇ f(v's range): the form
// α·v + ζ ± |δ| with hull `image`.
AffineForm linear_image(const AffineForm& v, const ArbBall& alpha, const ArbBall& zeta, const ArbBall& delta,
                        const ArbBall& image) {
  AffineForm r(alpha * v.centre + zeta);
  r.hull = image;
  add_remainder(r.centre, delta);
  r.coef.reserve(v.coef.size());
  for (const ArbBall& a : v.coef) r.coef.push_back(alpha * a);
  return r;
}

// The linearisation on [lo, hi] from the range [g_lo, g_hi] of f(x) − α·x there: ζ its midpoint, δ its half width.
AffineForm chebyshev_image(const AffineForm& v, const ArbBall& alpha, const ArbBall& g_lo, const ArbBall& g_hi,
                           const ArbBall& image) {
  const ArbBall half(0.5, v.prec());
  return linear_image(v, alpha, (g_hi + g_lo) * half, (g_hi - g_lo) * half, image);
}

// The exact ends of a ball (zero radius), or false when it is not finite or has no width.
bool ends(const ArbBall& range, ArbBall& lo, ArbBall& hi) {
  if (!range.is_finite()) return false;
  lo = range.lower_end();
  hi = range.upper_end();
  return less(lo, hi) == Tribool::True;
}

// An enclosure of w p (2p − 1) over the box, for a softmax weight w and another's p (w + p ≤ 1) with p ∈ P: it is
// at most p(1 − p)|1 − 2p| in magnitude, whose largest value on P is at P's ends or at p = ½ ± 1/(2√3), and its sign
// is 2p − 1's where that is known.
ArbBall curvature_bound(const ArbBall& P) {
  const long prec = P.prec();
  const ArbBall one(1.0, prec), two(2.0, prec);
  const auto g = [&](const ArbBall& p) { return magnitude(p * (one - p) * (one - two * p)); };
  const ArbBall lo = max(P.lower_end(), ArbBall(0.0, prec)), hi = min(P.upper_end(), one);
  ArbBall top = max(g(lo), g(hi));
  const ArbBall offset = one / (two * sqrt(ArbBall(3.0, prec)));
  for (const ArbBall& critical : {ArbBall(0.5, prec) - offset, ArbBall(0.5, prec) + offset})
    if (!(critical.upper() < lo.lower() || critical.lower() > hi.upper())) top = max(top, g(critical));
  const ArbBall zero(0.0, prec);
  if (P.upper() <= 0.5) return ArbBall::interval(-top, zero);
  if (P.lower() >= 0.5) return ArbBall::interval(zero, top);
  return ArbBall::interval(-top, top);
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
  else
    for (std::size_t i = 0; i < o.coef.size(); ++i) coef[i] += o.coef[i];
  return *this;
}

AffineForm& AffineForm::operator-=(const AffineForm& o) {
  centre -= o.centre;
  hull -= o.hull;
  if (coef.empty())
    for (const ArbBall& b : o.coef) coef.push_back(-b);
  else
    for (std::size_t i = 0; i < o.coef.size(); ++i) coef[i] -= o.coef[i];
  return *this;
}

AffineForm& AffineForm::operator*=(const AffineForm& o) {
  // (c₁ + Σ a_i ε_i)(c₂ + Σ b_i ε_i) = c₁c₂ + Σ (c₁ b_i + c₂ a_i) ε_i + Σ_i a_i b_i ε_i² + Σ_{i≠j} a_i b_j ε_i ε_j.
  // ε_i² ∈ [0, 1] puts the diagonal in a_i b_i·[0, 1]; the rest is at most Σ_{i≠j} |a_i||b_j|.
  const long p = std::max(prec(), o.prec());
  hull *= o.hull;
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
  const ArbBall unit = ArbBall::interval(0.0, 1.0, p);
  ArbBall diagonal(0.0, p), sum_a(0.0, p), sum_b(0.0, p), sum_ab(0.0, p);
  for (std::size_t i = 0; i < coef.size(); ++i) {
    diagonal += coef[i] * o.coef[i] * unit;
    const ArbBall ua = magnitude(coef[i]), ub = magnitude(o.coef[i]);
    sum_a += ua;
    sum_b += ub;
    sum_ab += ua * ub;
  }
  for (std::size_t i = 0; i < coef.size(); ++i) coef[i] = centre * o.coef[i] + o.centre * coef[i];
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
  if (!v.coef.empty() && acc.coef.empty()) acc.coef.assign(v.coef.size(), ArbBall(0.0, prec));
  for (std::size_t i = 0; i < v.coef.size(); ++i) arb_addmul(acc.coef[i].raw(), k.centre.raw(), v.coef[i].raw(), prec);
  arb_addmul(acc.centre.raw(), k.centre.raw(), v.centre.raw(), prec);
  arb_addmul(acc.hull.raw(), k.hull.raw(), v.hull.raw(), prec);
}

AffineForm operator-(const AffineForm& a) {
  AffineForm r(-a.centre);
  r.hull = -a.hull;
  r.coef.reserve(a.coef.size());
  for (const ArbBall& c : a.coef) r.coef.push_back(-c);
  return r;
}

AffineForm exp(const AffineForm& a) {
  const ArbBall range = a.range();
  const ArbBall image = exp(range);
  ArbBall lo, hi;
  if (a.coef.empty() || !ends(range, lo, hi)) return AffineForm(image);
  // Convex: the secant slope α = (e^hi − e^lo)/(hi − lo); e^x − α·x is largest at both ends and smallest at x = log α.
  const ArbBall e_lo = exp(lo), e_hi = exp(hi);
  // Mutant: the min-range slope e^lo with the secant's remainder formulas, which then give a remainder of 0.
  const ArbBall alpha = mutated(Mutant::AffineExpMinRangeSlope) ? e_lo : (e_hi - e_lo) / (hi - lo);
  const ArbBall one(1.0, a.prec());
  const ArbBall g_max = e_lo - alpha * lo;
  const ArbBall g_min = alpha * (one - log(alpha));
  return chebyshev_image(a, alpha, g_min, g_max, image);
}

AffineForm sqrt_nonneg(const AffineForm& a) {
  const long prec = a.prec();
  const ArbBall range = a.range();
  const ArbBall image = sqrt_nonneg(range);
  if (!range.is_finite() || a.coef.empty()) return AffineForm(image);
  const ArbBall zero(0.0, prec);
  if (range.upper() <= 0) return AffineForm(zero);
  const ArbBall lo = max(range.lower_end(), zero), hi = range.upper_end();
  if (less(lo, hi) != Tribool::True) return AffineForm(image);
  // Concave: secant slope α = 1/(√lo + √hi); √x − α·x equals √lo·√hi·α at both ends and peaks at 1/(4α).
  const ArbBall s_lo = sqrt(lo), s_hi = sqrt(hi);
  const ArbBall alpha = ArbBall(1.0, prec) / (s_lo + s_hi);
  const ArbBall g_end = s_lo * s_hi * alpha;
  const ArbBall g_top = ArbBall(0.25, prec) / alpha;
  return chebyshev_image(a, alpha, g_end, g_top, image);
}

AffineForm reciprocal(const AffineForm& a, const ArbBall& known) {
  const long prec = a.prec();
  const ArbBall range = intersection(a.range(), known);
  const ArbBall one(1.0, prec);
  ArbBall lo, hi;
  if (a.coef.empty() || !ends(range, lo, hi)) return AffineForm(one / range);
  if (range.lower() <= 0 && range.upper() >= 0) return AffineForm(one / range);  // indeterminate: 0 is in the range
  if (range.upper() < 0) return -reciprocal(-a, -known);
  // Convex and decreasing on lo > 0: secant slope −1/(lo·hi); 1/x + x/(lo·hi) is 1/lo + 1/hi at both ends and
  // 2/√(lo·hi) at x = √(lo·hi).
  const ArbBall product = lo * hi;
  const ArbBall alpha = -(one / product);
  const ArbBall g_max = one / lo + one / hi;
  const ArbBall g_min = ArbBall(2.0, prec) / sqrt(product);
  const ArbBall image = one / range;
  if (mutated(Mutant::AffineReciprocalRemainderHalved))
    return linear_image(a, alpha, (g_max + g_min) * ArbBall(0.5, prec), (g_max - g_min) * ArbBall(0.25, prec), image);
  return chebyshev_image(a, alpha, g_min, g_max, image);
}

AffineForm softmax_weight(const std::vector<AffineForm>& z) {
  const long prec = z.empty() ? ArbBall::kDefaultPrec : z.front().prec();
  const ArbBall one(1.0, prec);
  if (z.empty()) return AffineForm(one);
  // The ranges Z_s = [m_s − r_s, m_s + r_s] of the differences; every value the z take on the box is in their product.
  const std::size_t k = z.size();
  std::vector<ArbBall> m, r, lo, hi;
  for (const AffineForm& zs : z) {
    const ArbBall range = zs.range();
    if (!range.is_finite()) {  // no linearisation: the weight's interval enclosure (0, 1]
      ArbBall sum = one;
      for (const AffineForm& zu : z) sum += exp(zu.range());
      ArbBall w = one / sum;
      if (!w.is_finite()) w = ArbBall::interval(0.0, 1.0, prec);
      return AffineForm(w);
    }
    ArbBall mid(prec), rad(prec);
    arf_set(arb_midref(mid.raw()), arb_midref(range.raw()));
    arb_get_rad_arb(rad.raw(), range.raw());
    m.push_back(mid), r.push_back(rad), lo.push_back(range.lower_end()), hi.push_back(range.upper_end());
  }
  // w and the other tokens' weights p_s = w·e^{z_s} over the z box, each monotone in every z_u (w decreasing;
  // p_s increasing in z_s, decreasing in the others), so their ranges come from the box's corners.
  std::vector<ArbBall> e_lo, e_hi;
  ArbBall sum_lo = one, sum_hi = one;
  for (std::size_t s = 0; s < k; ++s) {
    e_lo.push_back(exp(lo[s])), e_hi.push_back(exp(hi[s]));
    sum_lo += e_lo[s], sum_hi += e_hi[s];
  }
  const ArbBall w_box = ArbBall::interval(one / sum_hi, one / sum_lo);
  std::vector<ArbBall> p_box;
  for (std::size_t s = 0; s < k; ++s) {
    // p_s's least value: z_s at its lower end, the others at their upper ends; its greatest, the reverse.
    const ArbBall least = e_lo[s] / (sum_hi - e_hi[s] + e_lo[s]);
    const ArbBall most = e_hi[s] / (sum_lo - e_lo[s] + e_hi[s]);
    p_box.push_back(ArbBall::interval(least, most));
  }
  // Lagrange remainder of the tangent plane at m: ½ Σ_{s,u} ∂²w/∂z_s∂z_u(ξ) δ_s δ_u with |δ_s| ≤ r_s, where
  // ∂w/∂z_s = −w p_s and ∂²w/∂z_s∂z_u = 2 w p_s p_u − [s = u] w p_s. Interval evaluation of these is loose (w and p
  // move together), so each is also bounded through w + Σ_s p_s = 1: |w p_s (2p_s − 1)| ≤ p_s (1 − p_s)|1 − 2p_s|
  // (at most 1/(6√3)) and 2 w p_s p_u ≤ 2/27; a diagonal term whose sign is known (p_s on one side of ½) lies in
  // ½ H_ss·[0, r_s²] (δ_s² ≥ 0), whose midpoint moves into the centre, like a product's diagonal.
  const ArbBall half(0.5, prec), unit = ArbBall::interval(0.0, 1.0, prec);
  ArbBall remainder(0.0, prec);
  AffineForm result(ArbBall(0.0, prec));
  for (std::size_t s = 0; s < k; ++s)
    for (std::size_t u = 0; u < k; ++u) {
      if (s != u) {
        const ArbBall h = ArbBall(2.0, prec) * w_box * p_box[s] * p_box[u];
        remainder += min(magnitude(h), ArbBall(2.0, prec) / ArbBall(27.0, prec)) * r[s] * r[u];
        continue;
      }
      const ArbBall& p = p_box[s];
      ArbBall h = w_box * p * (ArbBall(2.0, prec) * p - one), bound = curvature_bound(p), both(prec);
      if (!arb_intersection(both.raw(), h.raw(), bound.raw(), prec)) both = bound;
      result.centre += half * both * r[s] * r[s] * unit;
    }
  remainder *= half;
  if (mutated(Mutant::AffineSoftmaxRemainderHalved)) remainder *= half, result.centre *= half;
  // The tangent plane: w(m) + Σ_s g_s (z_s − m_s) with g_s = −w(m) p_s(m), on the forms z_s = C_s + Σ_i A_si ε_i.
  ArbBall sum_m = one;
  std::vector<ArbBall> e_m;
  for (std::size_t s = 0; s < k; ++s) e_m.push_back(exp(m[s])), sum_m += e_m.back();
  const ArbBall w_m = one / sum_m;
  result.centre += w_m;
  result.hull = w_box;
  for (std::size_t s = 0; s < k; ++s) {
    const ArbBall g = -(w_m * w_m * e_m[s]);
    result.centre += g * (z[s].centre - m[s]);
    if (z[s].coef.empty()) continue;
    if (result.coef.empty()) result.coef.assign(z[s].coef.size(), ArbBall(0.0, prec));
    for (std::size_t i = 0; i < z[s].coef.size(); ++i) arb_addmul(result.coef[i].raw(), g.raw(), z[s].coef[i].raw(), prec);
  }
  add_remainder(result.centre, remainder);
  return result;
}

AffineForm relu(const AffineForm& a) {
  const long prec = a.prec();
  const ArbBall range = a.range();
  const ArbBall zero(0.0, prec);
  if (!range.is_finite() || a.coef.empty()) return AffineForm(max(range, zero));
  if (range.lower() >= 0) return a;
  if (range.upper() <= 0) return AffineForm(zero);
  // Straddling 0: the chord α = hi/(hi − lo); ReLU(x) − α·x runs from 0 (at 0) to −α·lo (at both ends).
  const ArbBall lo = range.lower_end(), hi = range.upper_end();
  const ArbBall alpha = hi / (hi - lo);
  return chebyshev_image(a, alpha, zero, -(alpha * lo), max(range, zero));
}

AffineForm max(const AffineForm& a, const AffineForm& b) {
  // max(a, b) = b + ReLU(a − b), exactly: the relation to the inputs survives a max (and min(a, b) = −max(−a, −b)).
  AffineForm r = b + relu(a - b);
  return narrow_hull(r, max(a.range(), b.range()));
}

}  // namespace infoflow
