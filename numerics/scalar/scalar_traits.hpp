#pragma once
// What the generic numeric core needs to know about a scalar type: how to make one from a double
// at a given precision, how to read it back, and the non-arithmetic functions it uses (exp, max).
// Arithmetic itself comes from the type's operators; exp/max are found by argument-dependent lookup.
// zero_like(v) is an exact zero of v's precision, for accumulators; add_product(acc, a, b) is acc += a·b (the
// types that carry vectors do it without temporaries: it is the inner loop of every matrix-vector product).
#include "numerics/scalar/arb_ball.hpp"  // includes mpreal.h first
#include "numerics/scalar/gelu.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

/// Run-time precision in bits. Ignored by double; MPFR and arb use it for every value they create,
/// because MPFR's default precision is per thread and would silently be 53 bits in a worker.
struct Precision {
  long bits = 53;
};

template <class S>
struct ScalarTraits;

template <>
struct ScalarTraits<double> {
  static constexpr const char* name = "double";
  static double from_double(double v, Precision) { return v; }
  static double from_mpreal(const mpfr::mpreal& v, Precision) { return v.toDouble(); }
  static double to_double(double v) { return v; }
  // NaN in, NaN out: `v > 0 ? v : 0` would turn a NaN (an overflow upstream, inf − inf) into a finite 0.
  static double relu(double v) { return v > 0.0 || std::isnan(v) ? v : 0.0; }
  static double gelu(double v) { return infoflow::gelu(v); }
  static double max_of(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
  static bool is_finite(double v) { return std::isfinite(v); }
  static double exp_of(double a) { return std::exp(a); }
  static double zero_like(double) { return 0.0; }
  static void add_product(double& acc, double a, double b) { acc += a * b; }
};

template <>
struct ScalarTraits<mpfr::mpreal> {
  static constexpr const char* name = "mpfr";
  static mpfr::mpreal from_double(double v, Precision p) { return mpfr::mpreal(v, p.bits); }
  static mpfr::mpreal from_mpreal(const mpfr::mpreal& v, Precision p) {
    mpfr::mpreal r(0, p.bits);
    mpfr_set(r.mpfr_ptr(), v.mpfr_srcptr(), MPFR_RNDN);  // rounds to p.bits
    return r;
  }
  static double to_double(const mpfr::mpreal& v) { return v.toDouble(); }
  static mpfr::mpreal relu(const mpfr::mpreal& v) { return v > 0 || mpfr::isnan(v) ? v : mpfr::mpreal(0, v.get_prec()); }
  static mpfr::mpreal gelu(const mpfr::mpreal& v) { return infoflow::gelu(v); }
  static mpfr::mpreal max_of(const mpfr::mpreal& a, const mpfr::mpreal& b) {
    if (mpfr::isnan(a)) return a;
    if (mpfr::isnan(b)) return b;
    return a >= b ? a : b;
  }
  static bool is_finite(const mpfr::mpreal& v) { return mpfr::isfinite(v); }
  static mpfr::mpreal exp_of(const mpfr::mpreal& a) { return mpfr::exp(a); }
  static mpfr::mpreal zero_like(const mpfr::mpreal& v) { return mpfr::mpreal(0, v.get_prec()); }
  static void add_product(mpfr::mpreal& acc, const mpfr::mpreal& a, const mpfr::mpreal& b) { acc += a * b; }
};

template <>
struct ScalarTraits<ArbBall> {
  static constexpr const char* name = "arb";
  static ArbBall from_double(double v, Precision p) { return ArbBall(v, p.bits); }
  static ArbBall from_mpreal(const mpfr::mpreal& v, Precision p) { return ArbBall(v, p.bits); }
  /// The midpoint: a representative value, NOT an enclosure (use upper()/lower() for bounds).
  static double to_double(const ArbBall& v) { return v.mid(); }
  /// arb_max of a ball with a NaN midpoint is indeterminate: NaN propagates, as for the point types.
  static ArbBall relu(const ArbBall& v) { return max(v, ArbBall(0.0, v.prec())); }
  static ArbBall gelu(const ArbBall& v) { return infoflow::gelu(v); }
  static bool is_finite(const ArbBall& v) { return v.is_finite(); }
  static ArbBall max_of(const ArbBall& a, const ArbBall& b) { return max(a, b); }
  static ArbBall exp_of(const ArbBall& a) { return exp(a); }
  /// An exact zero (radius 0) at v's precision. (v − v is not zero in ball arithmetic: it is [0 ± 2r].)
  static ArbBall zero_like(const ArbBall& v) { return ArbBall(0.0, v.prec()); }
  /// An exact zero factor adds nothing (0·v = 0 for every real v a ball can hold): constructions are mostly zeros.
  static void add_product(ArbBall& acc, const ArbBall& a, const ArbBall& b) {
    if (arb_is_zero(a.raw()) || arb_is_zero(b.raw())) return;
    arb_addmul(acc.raw(), a.raw(), b.raw(), std::max({acc.prec(), a.prec(), b.prec()}));
  }
};

}  // namespace infoflow
