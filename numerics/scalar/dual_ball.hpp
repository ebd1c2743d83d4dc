#pragma once
// A ball with an enclosure of its gradient (forward-mode differentiation in arb), for mean-value forms in
// `certify` (docs/certify.md). Evaluated on a box of inputs, `value` encloses the function over the box (the
// natural interval extension) and `grad` encloses every generalised (Clarke) gradient of it over the box: at a
// kink (ReLU at an input straddling 0, max of two overlapping balls) the gradient is the hull of the one-sided
// gradients. Lebourg's mean-value theorem then gives f(X) ⊂ f(c) + Σ_i grad_i·(X_i − c_i).
//
// An empty gradient means "identically zero" (weights, constants): it keeps the cost of a forward pass
// proportional to the work that depends on the inputs.
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/scalar/scalar_traits.hpp"

#include <vector>

namespace infoflow {

struct DualBall {
  ArbBall value;
  std::vector<ArbBall> grad;  // empty: zero

  DualBall() = default;
  explicit DualBall(ArbBall v) : value(std::move(v)) {}
  DualBall(ArbBall v, std::vector<ArbBall> g) : value(std::move(v)), grad(std::move(g)) {}
  /// Input variable i of n: the box interval, gradient e_i.
  static DualBall variable(ArbBall v, std::size_t i, std::size_t n);

  DualBall& operator+=(const DualBall& o);
  DualBall& operator-=(const DualBall& o);
  DualBall& operator*=(const DualBall& o);
  DualBall& operator/=(const DualBall& o);
  friend DualBall operator+(DualBall a, const DualBall& b) { return a += b; }
  friend DualBall operator-(DualBall a, const DualBall& b) { return a -= b; }
  friend DualBall operator*(DualBall a, const DualBall& b) { return a *= b; }
  friend DualBall operator/(DualBall a, const DualBall& b) { return a /= b; }
  friend DualBall operator-(const DualBall& a);
};

DualBall exp(const DualBall& a);
DualBall sqrt_nonneg(const DualBall& a);  // √a for a ≥ 0 (the negative part of the ball is discarded)
DualBall relu(const DualBall& a);
DualBall gelu(const DualBall& a);  // σ(a) and σ'(a)·a' (σ is C¹: no kink)
DualBall max(const DualBall& a, const DualBall& b);
/// acc += a·b, value and gradient, without temporaries.
void add_product(DualBall& acc, const DualBall& a, const DualBall& b);

template <>
struct ScalarTraits<DualBall> {
  static constexpr const char* name = "arb+gradient";
  static DualBall from_double(double v, Precision p) { return DualBall(ArbBall(v, p.bits)); }
  static DualBall from_mpreal(const mpfr::mpreal& v, Precision p) { return DualBall(ArbBall(v, p.bits)); }
  static double to_double(const DualBall& v) { return v.value.mid(); }
  static DualBall relu(const DualBall& v) { return infoflow::relu(v); }
  static DualBall gelu(const DualBall& v) { return infoflow::gelu(v); }
  static DualBall max_of(const DualBall& a, const DualBall& b) { return infoflow::max(a, b); }
  static DualBall exp_of(const DualBall& a) { return infoflow::exp(a); }
  static DualBall zero_like(const DualBall& v) { return DualBall(ArbBall(0.0, v.value.prec())); }
  static void add_product(DualBall& acc, const DualBall& a, const DualBall& b) { infoflow::add_product(acc, a, b); }
};

}  // namespace infoflow
