#include "numerics/scalar/dual_ball.hpp"

#include "numerics/util/mutation.hpp"

#include <algorithm>

namespace infoflow {

namespace {

// g ← g + s·h (either may be empty = zero).
void axpy(std::vector<ArbBall>& g, const ArbBall& s, const std::vector<ArbBall>& h) {
  if (h.empty()) return;
  if (g.empty()) {
    g.reserve(h.size());
    for (const auto& x : h) g.push_back(s * x);
    return;
  }
  for (std::size_t i = 0; i < g.size(); ++i) g[i] += s * h[i];
}

void scale(std::vector<ArbBall>& g, const ArbBall& s) {
  for (auto& x : g) x *= s;
}

// The hull of two gradients, component by component (empty = zero).
std::vector<ArbBall> hull(const std::vector<ArbBall>& a, const std::vector<ArbBall>& b, long prec) {
  if (a.empty() && b.empty()) return {};
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<ArbBall> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ArbBall x = a.empty() ? ArbBall(0.0, prec) : a[i];
    const ArbBall y = b.empty() ? ArbBall(0.0, prec) : b[i];
    out.push_back(ArbBall::interval(x, y));
  }
  return out;
}

ArbBall unit_interval(long prec) { return ArbBall::interval(0.0, 1.0, prec); }

}  // namespace

DualBall DualBall::variable(ArbBall v, std::size_t i, std::size_t n) {
  const long prec = v.prec();
  std::vector<ArbBall> g(n, ArbBall(0.0, prec));
  g[i] = ArbBall(1.0, prec);
  return DualBall(std::move(v), std::move(g));
}

DualBall& DualBall::operator+=(const DualBall& o) {
  value += o.value;
  axpy(grad, ArbBall(1.0, value.prec()), o.grad);
  return *this;
}
DualBall& DualBall::operator-=(const DualBall& o) {
  value -= o.value;
  axpy(grad, ArbBall(-1.0, value.prec()), o.grad);
  return *this;
}
DualBall& DualBall::operator*=(const DualBall& o) {
  // (uv)' = u'v + uv'
  scale(grad, o.value);
  axpy(grad, value, o.grad);
  value *= o.value;
  return *this;
}
DualBall& DualBall::operator/=(const DualBall& o) {
  // (u/v)' = (u' − (u/v) v')/v
  const ArbBall q = value / o.value;
  axpy(grad, -q, o.grad);
  const ArbBall inv = ArbBall(1.0, value.prec()) / o.value;
  scale(grad, inv);
  value = q;
  return *this;
}
void add_product(DualBall& acc, const DualBall& a, const DualBall& b) {
  // (ab)' = a'b + ab'; an exact constant zero (a weight of a sparse construction) adds nothing.
  if ((a.grad.empty() && arb_is_zero(a.value.raw())) || (b.grad.empty() && arb_is_zero(b.value.raw()))) return;
  const long prec = std::max({acc.value.prec(), a.value.prec(), b.value.prec()});
  const std::size_t n = std::max(a.grad.size(), b.grad.size());
  if (n > 0 && acc.grad.empty()) acc.grad.assign(n, ArbBall(0.0, prec));
  for (std::size_t i = 0; i < a.grad.size(); ++i) arb_addmul(acc.grad[i].raw(), a.grad[i].raw(), b.value.raw(), prec);
  for (std::size_t i = 0; i < b.grad.size(); ++i) arb_addmul(acc.grad[i].raw(), b.grad[i].raw(), a.value.raw(), prec);
  arb_addmul(acc.value.raw(), a.value.raw(), b.value.raw(), prec);
}

DualBall operator-(const DualBall& a) {
  DualBall r(-a.value, a.grad);
  for (auto& x : r.grad) x = -x;
  return r;
}

DualBall exp(const DualBall& a) {
  DualBall r(exp(a.value), a.grad);
  scale(r.grad, r.value);
  return r;
}

DualBall sqrt_nonneg(const DualBall& a) {
  const ArbBall v = sqrt_nonneg(a.value);
  DualBall r(v, a.grad);
  // (√a)' = a'/(2√a): indeterminate when the ball reaches 0, which makes the mean-value form useless there
  // (never wrong: the natural enclosure is intersected with it).
  if (!r.grad.empty()) scale(r.grad, ArbBall(0.5, v.prec()) / v);
  if (mutated(Mutant::DualSqrtAtZeroFlat) && !r.grad.empty() && v.lower() <= 0)
    for (auto& g : r.grad) g = ArbBall(0.0, v.prec());
  return r;
}

DualBall relu(const DualBall& a) {
  const long prec = a.value.prec();
  const ArbBall zero(0.0, prec);
  if (less_equal(zero, a.value) == Tribool::True) return a;
  if (less_equal(a.value, zero) == Tribool::True) return DualBall(zero);
  // Straddling 0: the Clarke gradient is t·a' for t ∈ [0, 1].
  DualBall r(max(a.value, zero), a.grad);
  if (!mutated(Mutant::DualReluFullSlope)) scale(r.grad, unit_interval(prec));
  return r;
}

DualBall gelu(const DualBall& a) {
  DualBall r(gelu(a.value), a.grad);
  if (!r.grad.empty()) scale(r.grad, gelu_slope(a.value));
  return r;
}

DualBall max(const DualBall& a, const DualBall& b) {
  if (less_equal(b.value, a.value) == Tribool::True) return a;
  if (less_equal(a.value, b.value) == Tribool::True) return b;
  if (mutated(Mutant::DualMaxOneSideGradient)) return DualBall(max(a.value, b.value), a.value.mid() >= b.value.mid() ? a.grad : b.grad);
  return DualBall(max(a.value, b.value), hull(a.grad, b.grad, std::max(a.value.prec(), b.value.prec())));
}

}  // namespace infoflow
