// Affine forms (numerics/scalar/affine_form.hpp): the containment rule tested point by point against plain arb at
// 256 bits, an independent route (ball arithmetic on the point, no linearisation).
#include "numerics/scalar/affine_form.hpp"
#include "numerics/scalar/double_affine_form.hpp"
#include "numerics/scalar/noise_symbols.hpp"
#include "numerics/util/mutation.hpp"
#include "test_support.hpp"
#include "numerics/target/target_eval.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

using namespace infoflow;

namespace {

constexpr int kFunctions = 12;

// The same function in any scalar: products, exp, √, ReLU, max, min, quotients and softmax weights (the operations
// the forward pass and the target evaluator use). Case 9 is the affine softmax weight (softmax_weight, one
// linearisation of all the logit differences), held against the weight computed on the point by exp and division.
template <class S>
S composite(const std::vector<S>& x, int which, const S& one) {
  using Tr = ScalarTraits<S>;
  switch (which) {
    case 0: return x[0] * x[1] - x[2] * x[2];
    case 1: return Tr::exp_of(x[0] * x[1] - x[2]);
    case 2: return sqrt_nonneg(x[0] * x[0] + x[1] * x[1]);
    case 3: return Tr::relu(x[0] - x[1]) + Tr::max_of(x[1], x[2]);
    case 4: return x[0] / (one + Tr::exp_of(x[1] - x[2]));
    case 5: return -Tr::max_of(-(x[0] * x[1]), -(x[2] * x[2]));
    case 6: {
      const S e0 = Tr::exp_of(x[0]), e1 = Tr::exp_of(x[1]), e2 = Tr::exp_of(x[2]);
      return e0 / (e0 + e1 + e2);
    }
    case 7: {  // √ of a quantity ≥ 0 (its precondition) that can reach 0: norm's kink
      const S p = x[0] * x[1] - x[2];
      return sqrt_nonneg(p * p) * Tr::max_of(x[0], x[2] - x[1]);
    }
    case 8: return Tr::exp_of(-(x[0] - x[1]) * (x[0] - x[1])) - x[2] / (x[2] * x[2] + one);
    case 9: {  // a token's softmax weight against two others, logit differences 3·x0·x1 − x2 and 2·x2 + x1
      const S three = Tr::from_double(3.0, Precision{one.prec()}), two = Tr::from_double(2.0, Precision{one.prec()});
      const S z1 = three * x[0] * x[1] - x[2], z2 = two * x[2] + x[1];
      if constexpr (std::is_same_v<S, AffineForm> || std::is_same_v<S, DoubleAffineForm>) return softmax_weight({z1, z2});
      else return one / (one + Tr::exp_of(z1) + Tr::exp_of(z2));
    }
    case 11: {  // GeLU units (a token FFN's): of a product, where the minimum x* = -0.75 can lie inside, and of a sum
      const S half = Tr::from_double(0.5, Precision{one.prec()});
      return Tr::gelu(x[0] * x[1] - x[2]) - half * Tr::gelu(x[2] + x[0] + x[0]);
    }
    default: {  // two remainders named by fresh symbols (inside a FreshNoiseSymbols scope), used several times: 3p − 2p − q
      const S three = Tr::from_double(3.0, Precision{one.prec()}), two = Tr::from_double(2.0, Precision{one.prec()});
      S p = Tr::exp_of(x[0]) * x[1], q = x[2] * x[1];  // exp's remainder in p's centre becomes its coefficients' radii
      if constexpr (std::is_same_v<S, AffineForm> || std::is_same_v<S, DoubleAffineForm>)
        remainder_to_fresh_symbol(p), remainder_to_fresh_symbol(q);
      return three * p - two * p - q;
    }
  }
}

// The form at the point whose input symbols are eps: C + Σ_i A_i eps_i (a ball), a fresh symbol's term (i beyond the
// inputs: a remainder, whose value at the point no input fixes) as ±|A_i|.
ArbBall at_symbols(const AffineForm& f, const std::vector<ArbBall>& eps) {
  ArbBall r = f.centre;
  for (std::size_t i = 0; i < f.coef.size(); ++i)
    if (i < eps.size()) r += f.coef[i] * eps[i];
    else arb_add_error(r.raw(), f.coef[i].raw());
  return r;
}
// The double form there: c + Σ_i a_i eps_i ± radius, in arb.
ArbBall at_symbols(const DoubleAffineForm& f, const std::vector<ArbBall>& eps) {
  const long prec = eps.front().prec();
  ArbBall r(f.centre, prec);
  for (std::size_t i = 0; i < f.coef.size(); ++i)
    if (i < eps.size()) r += ArbBall(f.coef[i], prec) * eps[i];
    else arb_add_error(r.raw(), ArbBall(f.coef[i], prec).raw());
  arb_add_error(r.raw(), ArbBall(f.radius, prec).raw());
  return r;
}
// An input's noise symbol at the point x: both forms put x = m + r·ε (the double one with m and r doubles), r the
// input form's one nonzero coefficient, whichever symbol it is on (a mutant may put it on another's).
ArbBall symbol_at(const AffineForm& input, const ArbBall& x) {
  ArbBall r(0.0, x.prec());
  for (const ArbBall& a : input.coef) r += a;
  return (x - input.centre) / r;
}
ArbBall symbol_at(const DoubleAffineForm& input, const ArbBall& x) {
  double r = 0.0;
  for (double a : input.coef) r += a;  // one nonzero term: exact
  return (x - ArbBall(input.centre, x.prec())) / ArbBall(r, x.prec());
}

bool meet(const ArbBall& a, const ArbBall& b) { return !(a.upper() < b.lower() || b.upper() < a.lower()); }

struct Violations {
  long points = 0, pointwise = 0, range = 0;
};

// Random boxes of R^3 (sides 2^0 to 2^-8, not cubes), corners and random points inside, for either form type.
template <class Form>
Violations audit(SplitMix64& rng, int boxes, int points) {
  constexpr long prec = 128, fine = 256;
  Violations v;
  for (int b = 0; b < boxes; ++b) {
    const int which = b % kFunctions;
    std::vector<double> lo(3), hi(3);
    const FreshNoiseSymbols symbols(3);
    std::vector<Form> x;
    for (int i = 0; i < 3; ++i) {
      const double w = std::ldexp(1.0, -static_cast<int>(rng.uniform_index(9)));
      lo[i] = rng.uniform(-1.5, 1.5);
      hi[i] = lo[i] + w;
      x.push_back(Form::variable(ArbBall::interval(lo[i], hi[i], prec), i, 3));
    }
    const Form f = composite(x, which, Form(ArbBall(1.0, prec)));
    const ArbBall range = f.range();
    for (int p = 0; p < points; ++p) {
      std::vector<ArbBall> point, eps;
      for (int i = 0; i < 3; ++i) {
        const double xi = p == 0 ? lo[i] : p == 1 ? hi[i] : rng.uniform(lo[i], hi[i]);
        point.emplace_back(xi, fine);
        eps.push_back(symbol_at(x[i], point.back()));
      }
      const ArbBall value = composite(point, which, ArbBall(1.0, fine));
      if (!value.is_finite()) continue;
      ++v.points;
      if (!meet(value, range)) ++v.range;
      if (!meet(value, at_symbols(f, eps))) {
        ++v.pointwise;
        if (std::getenv("INFOFLOW_AFFINE_DEBUG")) std::fprintf(stderr, "%s\n", (std::ostringstream() << "function " << which << " at (" << point[0].mid() << ", " << point[1].mid() << ", " << point[2].mid()
                                  << "): value " << value.to_string(12) << ", form there " << at_symbols(f, eps).to_string(12) << " range " << range.to_string(12)).str().c_str());
      }
    }
  }
  return v;
}

}  // namespace

TEST_CASE("affine forms hold every point's value, at the point's own noise symbols", "[certify][affine]") {
  SplitMix64 rng = test::rng_for("affine-pointwise");
  for (int form = 0; form < 2; ++form) {
    const Violations v = form == 0 ? audit<AffineForm>(rng, 900 * test::multiplier(), 12)
                                   : audit<DoubleAffineForm>(rng, 900 * test::multiplier(), 12);
    INFO((form == 0 ? "AffineForm" : "DoubleAffineForm"));
    CHECK(v.points > 9000);
    CHECK(v.pointwise == 0);
    CHECK(v.range == 0);
  }
}

TEST_CASE("affine forms in arb and in doubles: the same linearisations, ranges that agree", "[certify][affine]") {
  // Two routes to one enclosure: the arb form's radii carry 30-bit mantissas rounded up at every operation, the double
  // form's rounding errors are bounded in doubles; their ranges agree to far better than 1e-6 of their magnitude.
  SplitMix64 rng = test::rng_for("affine-two-routes");
  constexpr long prec = 128;
  long boxes = 0, disagree = 0;
  double worst = 0;
  for (int b = 0; b < 900 * test::multiplier(); ++b) {
    const int which = b % kFunctions;
    std::vector<AffineForm> x;
    std::vector<DoubleAffineForm> y;
    for (int i = 0; i < 3; ++i) {
      const double w = std::ldexp(1.0, -static_cast<int>(rng.uniform_index(9)));
      const double lo = rng.uniform(-1.5, 1.5);
      const ArbBall side = ArbBall::interval(lo, lo + w, prec);
      x.push_back(AffineForm::variable(side, i, 3));
      y.push_back(DoubleAffineForm::variable(side, i, 3));
    }
    ArbBall a, d;
    {
      const FreshNoiseSymbols symbols(3);
      a = composite(x, which, AffineForm(ArbBall(1.0, prec))).range();
    }
    {
      const FreshNoiseSymbols symbols(3);
      d = composite(y, which, DoubleAffineForm(ArbBall(1.0, prec))).range();
    }
    if (!a.is_finite() || !d.is_finite()) continue;
    ++boxes;
    const double scale = 1 + std::max(std::fabs(a.lower()), std::fabs(a.upper()));
    const double gap = std::max(std::fabs(d.lower() - a.lower()), std::fabs(d.upper() - a.upper())) / scale;
    worst = std::max(worst, gap);
    if (gap > 1e-6) ++disagree;
  }
  INFO("largest difference of the ends, relative: " << worst);
  CHECK(boxes > 800);
  CHECK(disagree == 0);
}

TEST_CASE("affine forms: the defects of their linearisations are caught point by point", "[certify][affine]") {
  // Each mutant of the affine forms (numerics/scalar/affine_form.cpp, double_affine_form.cpp and their shared
  // affine_linearisation.hpp) must make the audit above fail, in each form it is placed in.
  struct Placed {
    Mutant mutant;
    bool in_arb, in_double;
  };
  for (const Placed& m : {Placed{Mutant::AffineProductDropsRemainder, true, true}, Placed{Mutant::AffineNoiseSymbolReused, true, true},
                          Placed{Mutant::AffineExpMinRangeSlope, true, true}, Placed{Mutant::AffineReciprocalRemainderHalved, true, true},
                          Placed{Mutant::AffineSoftmaxRemainderHalved, true, true},
                          Placed{Mutant::DoubleAffineReluRemainderHalved, false, true},
                          Placed{Mutant::FreshNoiseSymbolShared, true, true},
                          Placed{Mutant::AffineGeluCurvatureDropped, true, true}}) {
    for (int form = 0; form < 2; ++form) {
      if (!(form == 0 ? m.in_arb : m.in_double)) continue;
      SplitMix64 rng = test::rng_for("affine-mutants");
      set_active_mutant(m.mutant);
      const Violations v = form == 0 ? audit<AffineForm>(rng, 900, 12) : audit<DoubleAffineForm>(rng, 900, 12);
      set_active_mutant(Mutant::None);
      INFO("mutant " << static_cast<int>(m.mutant) << (form == 0 ? " in AffineForm" : " in DoubleAffineForm"));
      CHECK(v.pointwise > 0);
    }
  }
}

TEST_CASE("affine forms: the remainder shrinks quadratically with the box, and a wide box falls back to intervals",
          "[certify][affine]") {
  constexpr long prec = 128;
  const auto remainder = [&](double w) {
    const std::vector<double> c{0.3, 0.6, 0.2};
    std::vector<AffineForm> x;
    for (int i = 0; i < 3; ++i) x.push_back(AffineForm::variable(ArbBall::interval(c[i] - w, c[i] + w, prec), i, 3));
    const AffineForm f = composite(x, 6, AffineForm(ArbBall(1.0, prec)));
    REQUIRE(f.coef.size() == 3);
    return f.centre.rad();
  };
  const double r1 = remainder(0x1p-6), r2 = remainder(0x1p-7), r3 = remainder(0x1p-8);
  INFO("remainders " << r1 << ", " << r2 << ", " << r3);
  CHECK(r1 / r2 > 3.5);
  CHECK(r2 / r3 > 3.5);
  // exp over [-30, 30]: the Chebyshev line's range is ~1.9 e^30 wide; the hull e^[-30, 30] bounds the range instead.
  const AffineForm wide = exp(AffineForm::variable(ArbBall::interval(-30.0, 30.0, prec), 0, 1));
  // (arb's exp of the wide ball [0 ± 30] reaches ~1e-7·e^30 beyond the ends: its radius bound is not tight.)
  CHECK(wide.range().upper() <= std::exp(30.0) * (1 + 1e-6));
  CHECK(wide.range().lower() >= -1e-6 * std::exp(30.0));
}

TEST_CASE("affine forms: a max whose order is known up to a sliver holds the other's values", "[certify][affine]") {
  // a = x0 + x1 and b = x0 + 1e-9·x2 on [0, 1]³: a − b = x1 − 1e-9·x2 ranges over [−1e-9, 1], a sliver below 0 (under
  // 2^-20 of the range), so max(a, b) is taken as a plus [0, 1e-9]. At x1 = 0, x2 = 1 the max is b = a + 1e-9, which
  // the form must hold (the mutant affine-max-sliver-dropped returns a alone and misses it).
  constexpr long prec = 128, fine = 256;
  const auto check = [&]<class Form>() {
    const FreshNoiseSymbols symbols(3);
    std::vector<Form> x;
    for (int i = 0; i < 3; ++i) x.push_back(Form::variable(ArbBall::interval(0.0, 1.0, prec), i, 3));
    const Form tiny(ArbBall(1e-9, prec));
    const Form m = ScalarTraits<Form>::max_of(x[0] + x[1], x[0] + tiny * x[2]);
    long missed = 0;
    for (double x0 : {0.0, 0.5, 1.0}) {
      const std::vector<ArbBall> point{ArbBall(x0, fine), ArbBall(0.0, fine), ArbBall(1.0, fine)};
      std::vector<ArbBall> eps;
      for (int i = 0; i < 3; ++i) eps.push_back(symbol_at(x[i], point[i]));
      const ArbBall value = max(point[0] + point[1], point[0] + ArbBall(1e-9, fine) * point[2]);
      if (!meet(value, at_symbols(m, eps)) || !meet(value, m.range())) ++missed;
    }
    return missed;
  };
  CHECK(check.template operator()<AffineForm>() == 0);
  CHECK(check.template operator()<DoubleAffineForm>() == 0);
  set_active_mutant(Mutant::AffineMaxSliverDropped);
  const long arb_missed = check.template operator()<AffineForm>(), double_missed = check.template operator()<DoubleAffineForm>();
  set_active_mutant(Mutant::None);
  CHECK(arb_missed > 0);
  CHECK(double_missed > 0);
}
