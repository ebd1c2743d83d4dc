#pragma once
// A small RAII value type over arb_t (a midpoint-radius ball), so that the numeric core can be
// written once as a template and instantiated for double, mpfr::mpreal and ArbBall.
//
// The containment rule (arb's): the ball an operation returns contains the exact result for every
// choice of points in its input balls. Everything below promises that and only adds what differs.
// A ball may be indeterminate (NaN midpoint or infinite radius): it contains every real number, so
// it is always a valid, useless, enclosure; is_finite() tells.
//
// Every ball carries its working precision; a binary operation works at the larger of the two.
// Comparisons that cannot be decided from the balls return Tribool::Unknown instead of guessing.
#include <mpreal.h>  // must precede arb.h (arb.h switches on MPFR macros that break mpreal)

#include <arb.h>

#include <string>

namespace infoflow {

enum class Tribool { False, True, Unknown };

class ArbBall {
 public:
  static constexpr long kDefaultPrec = 128;

  ArbBall();
  explicit ArbBall(long prec);
  ArbBall(double v, long prec);
  ArbBall(const mpfr::mpreal& v, long prec);     // exact: the mpfr value becomes the midpoint
  /// An enclosure of the decimal number. Text that does not parse gives an indeterminate ball (it
  /// contains everything), not an error: check is_finite() when the text comes from outside.
  ArbBall(const std::string& decimal, long prec);
  ArbBall(const ArbBall& o);
  ArbBall(ArbBall&& o) noexcept;
  ArbBall& operator=(const ArbBall& o);
  ArbBall& operator=(ArbBall&& o) noexcept;
  ~ArbBall();

  /// The smallest ball containing [lo, hi].
  static ArbBall interval(double lo, double hi, long prec);
  static ArbBall interval(const ArbBall& lo, const ArbBall& hi);

  arb_t& raw() { return v_; }
  const arb_t& raw() const { return v_; }
  long prec() const { return prec_; }

  double mid() const;  // the midpoint rounded to double: a representative, not a bound
  double rad() const;  // the radius rounded up to double
  /// An upper bound of every point of the ball, rounded up to double: +inf for a ball with infinite
  /// radius, NaN for a ball with a NaN midpoint (callers compare with `<=`, which NaN fails).
  double upper() const;
  /// A lower bound, rounded down: -inf for an infinite radius, NaN for a NaN midpoint.
  double lower() const;
  bool is_finite() const;
  /// The ball's exact lower and upper ends as zero-radius balls (−inf/+inf for an infinite radius).
  ArbBall lower_end() const;
  ArbBall upper_end() const;
  bool contains(const mpfr::mpreal& x) const;
  bool contains(const ArbBall& x) const;
  std::string to_string(long digits = 20) const;

  ArbBall& operator+=(const ArbBall& o);
  ArbBall& operator-=(const ArbBall& o);
  ArbBall& operator*=(const ArbBall& o);
  ArbBall& operator/=(const ArbBall& o);

  friend ArbBall operator+(ArbBall a, const ArbBall& b) { return a += b; }
  friend ArbBall operator-(ArbBall a, const ArbBall& b) { return a -= b; }
  friend ArbBall operator*(ArbBall a, const ArbBall& b) { return a *= b; }
  friend ArbBall operator/(ArbBall a, const ArbBall& b) { return a /= b; }
  friend ArbBall operator-(const ArbBall& a);

  friend ArbBall exp(const ArbBall& a);
  friend ArbBall log(const ArbBall& a);
  friend ArbBall sqrt(const ArbBall& a);
  /// √a for a quantity known to be ≥ 0 (a sum of squares): the negative part of the ball, which interval
  /// arithmetic can produce around 0, is discarded (plain sqrt would return an indeterminate ball).
  friend ArbBall sqrt_nonneg(const ArbBall& a);
  friend ArbBall cos(const ArbBall& a);
  friend ArbBall abs(const ArbBall& a);
  friend ArbBall max(const ArbBall& a, const ArbBall& b);
  friend ArbBall min(const ArbBall& a, const ArbBall& b);

  friend Tribool less(const ArbBall& a, const ArbBall& b);
  friend Tribool less_equal(const ArbBall& a, const ArbBall& b);

 private:
  arb_t v_;
  long prec_;
};

/// Principal branch of Lambert W, W(x) e^{W(x)} = x, for x >= -1/e.
ArbBall lambert_w(const ArbBall& x);

/// Frees FLINT's per-thread caches; call at the end of every worker thread that used arb or MPFR.
void release_thread_caches();

}  // namespace infoflow
