#pragma once
// GeLU, σ(x) = x·Φ(x) = (x/2)·erfc(−x/√2), with Φ the standard normal distribution function, and its derivatives
//     σ'(x) = Φ(x) + x·φ(x),   σ''(x) = φ(x)·(2 − x²),   φ(x) = e^{−x²/2}/√(2π),
// in the scalars of the numeric core (docs/theory.md §1; the enclosures' proofs in docs/certify.md §1 item 1e). Facts the
// enclosures use: σ decreases on (−∞, x*] and increases on [x*, ∞), x* = −0.75179…, with σ(x*) = −0.16997…;
// σ' ∈ [−0.12890…, 1.12890…] (its ends at x = ∓√2); σ'' ∈ [−2φ(2), 2φ(0)] = [−0.10798…, 0.79788…].
// The erfc form keeps σ's relative accuracy for x ≪ 0, where 1 + erf(x/√2) cancels (PyTorch's "exact" GELU is the
// same function).
#include "numerics/scalar/arb_ball.hpp"  // includes mpreal.h first

namespace infoflow {

// The constants the enclosures rest on, each rounded outward (proofs: docs/certify.md §1 item 1e; checked over the
// line in arb by tests/test_scalars.cpp, "GeLU: the constants its enclosures use hold over the whole line").
/// σ' ∈ [kGeluSlopeLower, kGeluSlopeBound] on the reals; kGeluSlopeBound is a GeLU unit's Lipschitz constant.
inline constexpr double kGeluSlopeLower = -0.1290, kGeluSlopeBound = 1.1290;
/// σ'' ∈ [kGeluCurvatureLower, kGeluCurvatureUpper] on the reals.
inline constexpr double kGeluCurvatureLower = -0.108, kGeluCurvatureUpper = 0.798;
/// σ increases on [kGeluIncreasingFrom, ∞) and decreases on (−∞, kGeluDecreasingTo]; between them it turns at x*, where
/// σ(x*) ≥ kGeluMinimumBound.
inline constexpr double kGeluIncreasingFrom = -0.75, kGeluDecreasingTo = -0.76, kGeluMinimumBound = -0.17;

double gelu(double x);
/// σ'(x): the trainers' reverse sweep.
double gelu_slope(double x);
/// σ(x) and σ'(x) from one erfc and one exp (the same values as gelu and gelu_slope).
double gelu_and_slope(double x, double& slope);
mpfr::mpreal gelu(const mpfr::mpreal& x);
/// Encloses σ over the ball: monotone on each side of x*, so its range on [lo, hi] is spanned by σ(lo), σ(hi) and,
/// where the ball reaches x*, the minimum (taken as −0.17 ≤ σ(x*)). An indeterminate ball for a non-finite one.
ArbBall gelu(const ArbBall& x);
/// Encloses σ' over the ball (the natural interval extension of Φ(x) + x·φ(x)).
ArbBall gelu_slope(const ArbBall& x);
/// Encloses σ'' over the ball (the natural interval extension of φ(x)·(2 − x²), intersected with σ'''s global range).
ArbBall gelu_curvature(const ArbBall& x);

}  // namespace infoflow
