#include "numerics/scalar/arb_ball.hpp"

#include "numerics/util/mutation.hpp"

#include <flint/flint.h>
#include <mpfr.h>

#include <algorithm>

namespace infoflow {

ArbBall::ArbBall() : ArbBall(kDefaultPrec) {}
ArbBall::ArbBall(long prec) : prec_(prec) { arb_init(v_); }
ArbBall::ArbBall(double v, long prec) : ArbBall(prec) { arb_set_d(v_, v); }
ArbBall::ArbBall(const mpfr::mpreal& v, long prec) : ArbBall(prec) {
  arf_set_mpfr(arb_midref(v_), v.mpfr_srcptr());
  mag_zero(arb_radref(v_));
}
ArbBall::ArbBall(const std::string& decimal, long prec) : ArbBall(prec) {
  if (arb_set_str(v_, decimal.c_str(), prec) != 0) arb_indeterminate(v_);
}
ArbBall::ArbBall(const ArbBall& o) : ArbBall(o.prec_) { arb_set(v_, o.v_); }
ArbBall::ArbBall(ArbBall&& o) noexcept : ArbBall(o.prec_) { arb_swap(v_, o.v_); }
ArbBall& ArbBall::operator=(const ArbBall& o) {
  if (this != &o) {
    arb_set(v_, o.v_);
    prec_ = o.prec_;
  }
  return *this;
}
ArbBall& ArbBall::operator=(ArbBall&& o) noexcept {
  arb_swap(v_, o.v_);
  std::swap(prec_, o.prec_);
  return *this;
}
ArbBall::~ArbBall() { arb_clear(v_); }

ArbBall ArbBall::interval(double lo, double hi, long prec) {
  return interval(ArbBall(lo, prec), ArbBall(hi, prec));
}
ArbBall ArbBall::interval(const ArbBall& lo, const ArbBall& hi) {
  ArbBall r(std::max(lo.prec_, hi.prec_));
  arb_union(r.v_, lo.v_, hi.v_, r.prec_);
  return r;
}

double ArbBall::mid() const { return arf_get_d(arb_midref(v_), ARF_RND_NEAR); }
double ArbBall::rad() const { return mag_get_d(arb_radref(v_)); }
double ArbBall::upper() const {
  arf_t u;
  arf_init(u);
  arb_get_ubound_arf(u, v_, prec_);
  double r = arf_get_d(u, ARF_RND_CEIL);
  arf_clear(u);
  return r;
}
double ArbBall::lower() const {
  arf_t l;
  arf_init(l);
  arb_get_lbound_arf(l, v_, prec_);
  double r = arf_get_d(l, ARF_RND_FLOOR);
  arf_clear(l);
  return r;
}
bool ArbBall::is_finite() const { return arb_is_finite(v_) != 0; }
bool ArbBall::contains(const mpfr::mpreal& x) const { return arb_contains_mpfr(v_, x.mpfr_srcptr()) != 0; }
bool ArbBall::contains(const ArbBall& x) const { return arb_contains(v_, x.v_) != 0; }
std::string ArbBall::to_string(long digits) const {
  char* s = arb_get_str(v_, digits, 0);
  std::string r(s);
  flint_free(s);
  return r;
}

ArbBall& ArbBall::operator+=(const ArbBall& o) {
  prec_ = std::max(prec_, o.prec_);
  arb_add(v_, v_, o.v_, prec_);
  return *this;
}
ArbBall& ArbBall::operator-=(const ArbBall& o) {
  prec_ = std::max(prec_, o.prec_);
  arb_sub(v_, v_, o.v_, prec_);
  return *this;
}
ArbBall& ArbBall::operator*=(const ArbBall& o) {
  prec_ = std::max(prec_, o.prec_);
  arb_mul(v_, v_, o.v_, prec_);
  return *this;
}
ArbBall& ArbBall::operator/=(const ArbBall& o) {
  prec_ = std::max(prec_, o.prec_);
  arb_div(v_, v_, o.v_, prec_);
  return *this;
}
ArbBall operator-(const ArbBall& a) {
  ArbBall r(a.prec_);
  arb_neg(r.v_, a.v_);
  return r;
}

namespace {
template <class F>
ArbBall unary(const ArbBall& a, F f) {
  ArbBall r(a.prec());
  f(r.raw(), a.raw(), a.prec());
  return r;
}
template <class F>
ArbBall binary(const ArbBall& a, const ArbBall& b, F f) {
  ArbBall r(std::max(a.prec(), b.prec()));
  f(r.raw(), a.raw(), b.raw(), r.prec());
  return r;
}
}  // namespace

namespace {
// One end of a ball, exactly, as a zero-radius ball.
ArbBall end_of(const arb_t v, long prec, bool upper) {
  ArbBall r(prec);
  arf_t e;
  arf_init(e);
  if (upper) arb_get_ubound_arf(e, v, prec);
  else arb_get_lbound_arf(e, v, prec);
  arb_set_arf(r.raw(), e);
  arf_clear(e);
  return r;
}
}  // namespace
ArbBall ArbBall::lower_end() const { return end_of(v_, prec_, false); }
ArbBall ArbBall::upper_end() const { return end_of(v_, prec_, true); }

ArbBall exp(const ArbBall& a) {
  ArbBall r = unary(a, arb_exp);
  // A wide ball: arb's exp(mid)·(1 ± (e^rad − 1)) reaches below 0 once rad > ln 2, although e^x > 0. exp is
  // increasing, so the hull of its values at the two ends is an enclosure, and a tight one.
  if (r.is_finite() && mag_cmp_2exp_si(arb_radref(a.v_), -4) > 0) {
    arf_t lo, hi;
    arf_init(lo);
    arf_init(hi);
    arb_get_lbound_arf(lo, a.v_, a.prec_);
    arb_get_ubound_arf(hi, a.v_, a.prec_);
    ArbBall elo(a.prec_), ehi(a.prec_);
    arb_set_arf(elo.v_, lo);
    arb_set_arf(ehi.v_, hi);
    arb_exp(elo.v_, elo.v_, a.prec_);
    arb_exp(ehi.v_, ehi.v_, a.prec_);
    arb_union(r.v_, elo.v_, ehi.v_, a.prec_);
    arf_clear(lo);
    arf_clear(hi);
  }
  if (mutated(Mutant::ArbExpDropsRadius)) {  // evaluated at 53 bits, and the radius then dropped
    arb_exp(r.raw(), a.raw(), 53);
    mag_zero(arb_radref(r.raw()));
  }
  return r;
}
ArbBall log(const ArbBall& a) { return unary(a, arb_log); }
ArbBall sqrt(const ArbBall& a) { return unary(a, arb_sqrt); }
ArbBall sqrt_nonneg(const ArbBall& a) { return unary(a, arb_sqrtpos); }
ArbBall cos(const ArbBall& a) { return unary(a, arb_cos); }
ArbBall abs(const ArbBall& a) {
  ArbBall r(a.prec_);
  arb_abs(r.v_, a.v_);
  return r;
}
ArbBall max(const ArbBall& a, const ArbBall& b) { return binary(a, b, arb_max); }
ArbBall min(const ArbBall& a, const ArbBall& b) { return binary(a, b, arb_min); }

Tribool less(const ArbBall& a, const ArbBall& b) {
  if (arb_lt(a.v_, b.v_)) return Tribool::True;
  if (arb_ge(a.v_, b.v_)) return Tribool::False;
  return Tribool::Unknown;
}
Tribool less_equal(const ArbBall& a, const ArbBall& b) {
  if (arb_le(a.v_, b.v_)) return Tribool::True;
  if (arb_gt(a.v_, b.v_)) return Tribool::False;
  return Tribool::Unknown;
}

ArbBall lambert_w(const ArbBall& x) {
  ArbBall r(x.prec());
  arb_lambertw(r.raw(), x.raw(), 0, x.prec());
  return r;
}

void release_thread_caches() {
  mpfr_free_cache();
  flint_cleanup();
}

}  // namespace infoflow
