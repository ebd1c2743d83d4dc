#include "numerics/certify/double_execution.hpp"

#include "numerics/model/forward.hpp"
#include "numerics/model/softmax_enclosure.hpp"
#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/rng.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <queue>
#include <string>
#include <vector>

namespace infoflow {

namespace {

constexpr long kPrec = 128;

ArbBall ball(double v) { return ArbBall(v, kPrec); }

// A non-negative upper bound. Every operation is done in arb and rounded up, so a bound built from bounds by +, ·
// and exp (all increasing on [0, ∞)) stays a bound.
// A NaN (0·∞ in arb) becomes +∞: no bound, never a silent one.
class Up {
 public:
  Up() = default;
  explicit Up(double v) : v_(std::isnan(v) ? INFINITY : v) {}
  double value() const { return v_; }
  friend Up operator+(Up a, Up b) { return Up((ball(a.v_) + ball(b.v_)).upper()); }
  friend Up operator*(Up a, Up b) {
    // An exact zero times a bounded factor is zero. Against an unbounded one it is not: in binary64 0·∞ is NaN, so
    // a zero weight over an overflowing value does not hide the overflow.
    if (a.v_ == 0 || b.v_ == 0) return std::isinf(a.v_) || std::isinf(b.v_) ? Up(INFINITY) : Up(0.0);
    return Up((ball(a.v_) * ball(b.v_)).upper());
  }
  Up& operator+=(Up b) { return *this = *this + b; }
  friend Up max(Up a, Up b) { return Up(std::max(a.v_, b.v_)); }

 private:
  double v_ = 0;
};

// |x| ≤ this for every x in the ball (+∞ for an indeterminate ball).
Up magnitude(const ArbBall& b) { return Up(abs(b).upper()); }
// max(0, x) ≤ this for every x in the ball (+∞ for an indeterminate ball).
Up positive_part(const ArbBall& b) {
  const double u = b.upper();
  return Up(std::isnan(u) ? INFINITY : std::max(0.0, u));
}

const Up kUnit(std::ldexp(1.0, -53));  // u, the unit roundoff of binary64
// Underflow: a product, quotient or exp that lands among the subnormals has an absolute error up to half the smallest
// subnormal, 2^-1075, which no relative bound covers. Sums of doubles are exact when they underflow. 2^-1075 is not a
// double, so the bound used is the smallest subnormal, 2^-1074.
const Up kUnderflow(std::ldexp(1.0, -1074));
// The library's exp can also underflow to a subnormal or to 0: an absolute error up to one subnormal step.
const Up kExpUnderflow(std::ldexp(1.0, -1074));
Up count(std::size_t n) { return Up(static_cast<double>(n)); }

// γ_n = n u / (1 − n u), rounded up.
Up gamma(std::size_t n) {
  const ArbBall nu = ball(static_cast<double>(n)) * ball(kUnit.value());
  return Up((nu / (ball(1.0) - nu)).upper());
}

// Overflow: the rounding model (|fl(x op y) − x op y| ≤ u|x op y|) holds only while no computed result exceeds the
// largest double. `computed` bounds the magnitude of every computed partial result of one operation; unless it is
// ≤ DBL_MAX the operation may overflow (to ±∞, or to NaN after ∞ − ∞ or 0·∞), and no finite bound holds.
Up unless_overflow(Up computed, Up err) { return computed.value() <= DBL_MAX ? err : Up(INFINITY); }
// (1 + γ) times a bound, rounded up: what the computed partial sums of a sum with rounding factor γ may reach.
Up inflated(Up bound, Up g) { return bound + g * bound; }

// An intermediate quantity: its exact value lies in `range` at every input of the box, and |computed − exact| ≤ err.
struct Carried {
  ArbBall range;
  Up err;
  Up mag() const { return magnitude(range); }
  Up computed_mag() const { return mag() + err; }
};
using CVec = std::vector<Carried>;

std::vector<Up> computed_magnitudes(const CVec& x) {
  std::vector<Up> m;
  m.reserve(x.size());
  for (const Carried& c : x) m.push_back(c.computed_mag());
  return m;
}

// The quantity is exactly 0 in exact and in floating-point arithmetic.
bool exact_zero(const Carried& c) { return c.err.value() == 0 && arb_is_zero(c.range.raw()); }

// s = Σ_c w_c x_c (+ b), the weights exact (the model's doubles): the exact range, the inputs' errors Σ|w|e, and the
// sum's own roundings γ_n (Σ|w||x̂| + |b|) + n·2^-1074 (products that underflow), whatever the summation order and with
// or without FMA. n counts the terms that are not exactly zero: a zero weight times a finite input, or an exactly
// zero input, gives an exact 0, and adding it is exact. (A zero weight times an unbounded input stays: in binary64
// 0·∞ is NaN, and Up's 0·∞ is ∞.)
struct WeightedSum {
  ArbBall range;
  Up propagated, own;
};
WeightedSum weighted_sum(const double* w, const CVec& x, const std::vector<Up>& computed, double bias) {
  WeightedSum s{ball(bias), Up(0.0), Up(0.0)};
  Up rounded(std::fabs(bias));
  std::size_t terms = bias != 0;
  for (std::size_t c = 0; c < x.size(); ++c) {
    if (exact_zero(x[c]) || (w[c] == 0 && std::isfinite(computed[c].value()))) continue;
    ++terms;
    s.range += ball(w[c]) * x[c].range;
    s.propagated += Up(std::fabs(w[c])) * x[c].err;
    rounded += Up(std::fabs(w[c])) * computed[c];
  }
  const Up g = gamma(terms);
  s.own = unless_overflow(inflated(rounded, g), g * rounded + count(terms) * kUnderflow);
  return s;
}

// What a ReLU neuron does on the box: its exact and its computed pre-activation are both ≤ 0 (the output is exactly 0
// in both), both ≥ 0 (the ReLU is the identity on both), or neither is known.
enum class ReluState { Inactive, Active, Unknown };

class DoubleExecution {
 public:
  DoubleExecution(const Model& m, const ParamLayout& layout) : m_(m), L_(layout) {}

  // The output over the box whose input coordinate i (token i / d, coordinate i % d) lies in [lo[i], hi[i]].
  Carried run(int T, const std::vector<double>& lo, const std::vector<double>& hi) const {
    const Architecture& a = m_.arch;
    std::vector<CVec> tokens(T);
    for (int t = 0; t < T; ++t) {
      CVec x;
      for (int i = 0; i < a.d; ++i) {
        const std::size_t k = static_cast<std::size_t>(t) * a.d + i;
        x.push_back({ArbBall::interval(lo[k], hi[k], kPrec), Up(0.0)});  // the inputs are the doubles given
      }
      tokens[t] = apply_map(L_.encoder(), x, false);
      if (a.positions > 0)
        for (int e = 0; e < a.E; ++e)
          tokens[t][e] = add(tokens[t][e], exact(p(row_major_index(L_.positional(), a.E, t, e))));
    }
    CVec cls;
    for (int e = 0; e < a.E; ++e) cls.push_back(exact(p(L_.cls0() + e)));
    const auto& layers = L_.layers();
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const bool last = l + 1 == layers.size();
      const LayerOffsets& lo_ = layers[l];
      std::vector<std::vector<CVec>> keys(lo_.heads.size()), values(lo_.heads.size());
      for (std::size_t h = 0; h < lo_.heads.size(); ++h)
        for (int t = 0; t < T; ++t) {
          keys[h].push_back(matvec(lo_.heads[h].K, lo_.heads[h].key_dim, a.E, tokens[t], std::nullopt));
          values[h].push_back(matvec(lo_.heads[h].V, lo_.heads[h].value_dim, a.E, tokens[t], std::nullopt));
        }
      auto attend = [&](const CVec& q) {
        CVec concat;
        for (std::size_t h = 0; h < lo_.heads.size(); ++h) {
          const CVec a_h = head(lo_.heads[h], keys[h], values[h], q);
          concat.insert(concat.end(), a_h.begin(), a_h.end());
        }
        const CVec mixed = matvec(lo_.W_O, a.E, lo_.concat_dim, concat, std::nullopt);
        CVec out = q;
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = add(out[i], mixed[i]);
        return out;
      };
      CVec new_cls = attend(cls);
      if (!last) {
        std::vector<CVec> new_tokens;
        for (int t = 0; t < T; ++t) new_tokens.push_back(attend(tokens[t]));
        tokens = std::move(new_tokens);
        if (lo_.has_ffn) {
          for (auto& u : tokens) u = apply_map(lo_.ffn, u, true);
          new_cls = apply_map(lo_.ffn, new_cls, true);
        }
      }
      cls = std::move(new_cls);
    }
    return apply_map(L_.readout(), cls, false)[0];
  }

 private:
  double p(std::size_t i) const { return m_.params[i]; }
  static Carried exact(double v) { return {ball(v), Up(0.0)}; }

  // fl(x + y): the inputs' errors, plus one rounding of the computed sum.
  static Carried add(const Carried& x, const Carried& y) {
    const Up operands = x.computed_mag() + y.computed_mag();
    return {x.range + y.range, unless_overflow(inflated(operands, kUnit), x.err + y.err + kUnit * operands)};
  }

  // y = A x (+ b), A stored row-major at `off` (rows × cols).
  CVec matvec(std::size_t off, int rows, int cols, const CVec& x, std::optional<std::size_t> bias) const {
    CVec y;
    y.reserve(rows);
    const std::vector<Up> xm = computed_magnitudes(x);
    for (int r = 0; r < rows; ++r) {
      const WeightedSum s = weighted_sum(row(off, cols, r), x, xm, bias ? p(*bias + r) : 0.0);
      y.push_back({s.range, s.propagated + s.own});
    }
    return y;
  }
  const double* row(std::size_t off, int cols, int r) const { return &m_.params[row_major_index(off, cols, r, 0)]; }

  // An affine map, or a ReLU layer y = W2 relu(W1 x + b1) + b2 (with `residual`, x + y, computed as fl(x̂ + ŷ)).
  CVec apply_map(const MapOffsets& m, const CVec& x, bool residual) const {
    if (m.kind == MapKind::Affine) {
      CVec y = matvec(m.W, m.out, m.in, x, m.b);
      if (residual)
        for (std::size_t i = 0; i < y.size(); ++i) y[i] = add(x[i], y[i]);
      return y;
    }
    return relu_layer(m, x, residual);
  }

  // The hidden layer's neuron j: ĥ_j − h_j = Σ_c W1_jc (x̂_c − x_c) + ρ_j, |ρ_j| ≤ R_j (its own roundings). Where the
  // neuron's state is known on the box, the layer is affine in the input error, so that error propagates through
  // C = Σ_{j active} W2_·j W1_j· (+ I for a residual): |C|·E, where |W2|·|W1|·E would lose every cancellation between
  // neurons. An unknown neuron is 1-Lipschitz: |relu(ĥ_j) − relu(h_j)| ≤ |W1_j|·E + R_j.
  CVec relu_layer(const MapOffsets& m, const CVec& x, bool residual) const {
    const std::vector<Up> xm = computed_magnitudes(x);
    bool input_error = false;
    for (const Carried& c : x) input_error = input_error || c.err.value() != 0;
    std::vector<ReluState> state(m.width);
    CVec hidden;  // the ReLU's output: exact range over the box, error (an inactive neuron: exactly 0)
    std::vector<Up> own(m.width), passed(m.width);
    for (int j = 0; j < m.width; ++j) {
      const WeightedSum pre = weighted_sum(row(m.W1, m.in, j), x, xm, p(m.b1 + j));
      own[j] = pre.own;
      passed[j] = pre.propagated + pre.own;
      const double computed_hi = (ball(pre.range.upper()) + ball(passed[j].value())).upper();
      const double computed_lo = (ball(pre.range.lower()) - ball(passed[j].value())).lower();
      if (computed_hi <= 0) {
        state[j] = ReluState::Inactive;
        hidden.push_back({ball(0.0), Up(0.0)});
      } else if (computed_lo >= 0) {
        state[j] = ReluState::Active;
        hidden.push_back({pre.range, passed[j]});
      } else {
        // (std::max(0.0, NaN) is 0: an indeterminate pre-activation must stay indeterminate.)
        state[j] = ReluState::Unknown;
        hidden.push_back({pre.range.is_finite() ? ArbBall::interval(std::max(0.0, pre.range.lower()),
                                                                    std::max(0.0, pre.range.upper()), kPrec)
                                                : pre.range,
                          passed[j]});
      }
    }
    const std::vector<Up> hm = computed_magnitudes(hidden);
    CVec y;
    y.reserve(m.out);
    for (int r = 0; r < m.out; ++r) {
      const WeightedSum out = weighted_sum(row(m.W2, m.width, r), hidden, hm, p(m.b2 + r));
      Up others;  // the hidden layer's errors that do not go through the composite
      for (int j = 0; j < m.width; ++j)
        if (state[j] != ReluState::Inactive)
          others += Up(std::fabs(p(row_major_index(m.W2, m.width, r, j)))) *
                    (state[j] == ReluState::Active ? own[j] : passed[j]);
      Up through_layer, through_residual;  // |C|·E without and with the identity
      if (input_error)
        for (int c = 0; c < m.in; ++c) {
          if (x[c].err.value() == 0) continue;
          ArbBall composite = ball(0.0);
          for (int j = 0; j < m.width; ++j)
            if (state[j] == ReluState::Active)
              composite += ball(p(row_major_index(m.W2, m.width, r, j))) * ball(p(row_major_index(m.W1, m.in, j, c)));
          through_layer += magnitude(composite) * x[c].err;
          if (residual) through_residual += magnitude(r == c ? composite + ball(1.0) : composite) * x[c].err;
        }
      const Up err = through_layer + others + out.own;
      if (!residual) {
        y.push_back({out.range, err});
        continue;
      }
      // fl(x̂_r + ŷ_r): x's own error is inside through_residual, so only the layer's other errors and one rounding.
      const Up operands = xm[r] + magnitude(out.range) + err;
      y.push_back({x[r].range + out.range, unless_overflow(inflated(operands, kUnit), through_residual + others +
                                                                                           out.own + kUnit * operands)});
    }
    return y;
  }

  // The shifted softmax of ForwardPass<double>::head: z_t = β (q·k_t), a_t = z_t − max_s z_s ≤ 0, w_t = exp(a_t),
  // d = Σ w_t ≥ 1, N = Σ_t w_t v_t, out = N / d. The computed ŵ_t, d̂ ≥ 1 (the largest logit gives exp(0) = 1 exactly),
  // N̂ with |N̂ − Σ ŵ_t v̂_t| ≤ γ_T Σ ŵ_t |v̂_t|, and |d̂ − Σ ŵ_t| ≤ γ_T Σ ŵ_t. Then
  //   N̂/d̂ − N/d = (N̂ − Σŵv̂)/d̂ + Σ ŵ_t (v̂_t − v_t)/d̂ + [Σ (ŵ_t − w_t)(v_t − out) − out (d̂ − Σŵ)]/d̂,
  // and the same holds with w replaced by w' = e^c w for any constant c (N/d does not change). With c the error of the
  // computed max, |ŵ_t − w'_t| ≤ η w'_t + ν (ν one subnormal step); f = 1/(1 − γ_T) ≥ Σŵ/d̂; W the values' hull width:
  //   |N̂/d̂ − N/d| ≤ f (γ_T max|v̂| + max_t e_{v_t} + γ_T max|v|) + (d'/d̂) η W/2 + T ν W,
  // since Σ_t w'_t |v_t − out| ≤ d' W/2. The weight errors thus enter relatively (a token far below the largest logit
  // has a tiny weight and a tiny error), without the max's error (a common shift of the logits cancels), and times
  // the values' spread, not their size; value errors enter once.
  CVec head(const HeadOffsets& ho, const std::vector<CVec>& keys, const std::vector<CVec>& values, const CVec& q) const {
    const CVec query = matvec(ho.Q, ho.key_dim, m_.arch.E, q, std::nullopt);
    const double beta = m_.temperatures[ho.temperature];
    const Up beta_abs(std::fabs(beta));
    const std::size_t T = keys.size();
    const Up g_T = gamma(T);
    const Up f(((ball(1.0) / (ball(1.0) - ball(g_T.value()))).upper()));
    const std::vector<Up> qm = computed_magnitudes(query);
    std::vector<Up> z_err(T);
    for (std::size_t t = 0; t < T; ++t) {
      ArbBall s = ball(0.0);
      Up propagated, rounded;
      std::size_t terms = 0;  // products that are not exactly zero (an exact 0 adds no rounding)
      for (int i = 0; i < ho.key_dim; ++i) {
        const Carried& a = query[i];
        const Carried& b = keys[t][i];
        // An exact 0 times a finite factor is an exact 0; times an overflowed one it is NaN, and the term stays.
        if ((exact_zero(a) && std::isfinite(b.computed_mag().value())) ||
            (exact_zero(b) && std::isfinite(a.computed_mag().value())))
          continue;
        ++terms;
        s += a.range * b.range;
        propagated += a.mag() * b.err + b.mag() * a.err + a.err * b.err;
        rounded += qm[i] * b.computed_mag();
      }
      const Up g = gamma(terms);
      const Up s_err = unless_overflow(inflated(rounded, g), propagated + g * rounded + count(terms) * kUnderflow);
      const Up product = beta_abs * (magnitude(s) + s_err);  // fl(β·ŝ)
      z_err[t] = unless_overflow(inflated(product, kUnit), beta_abs * s_err + kUnit * product + kUnderflow);
    }
    const ArbBall beta_ball = ball(beta), one = ball(1.0);
    Up top_err = z_err[0];  // max is 1-Lipschitz in the sup norm
    for (std::size_t t = 1; t < T; ++t) top_err = max(top_err, z_err[t]);
    Up eta;  // |ŵ_t − w_t| ≤ η w_t + (one subnormal step), for every t
    std::vector<ArbBall> weight(T);
    for (std::size_t t = 0; t < T; ++t) {
      // The logit differences z_ts = β q·(k_s − k_t), the query entering once (tighter on a box than z_s − z_t):
      // they enclose the weight, and |a_t| = max(0, max_s z_ts).
      std::vector<ArbBall> differences;
      Up a_mag;
      for (std::size_t s = 0; s < T; ++s) {
        if (s == t) continue;
        ArbBall dot = ball(0.0);
        for (int i = 0; i < ho.key_dim; ++i) dot += query[i].range * (keys[s][i].range - keys[t][i].range);
        differences.push_back(beta_ball * dot);
        a_mag = max(a_mag, positive_part(differences.back()));
      }
      weight[t] = softmax_weight_from_differences(differences, one);
      // â_t = fl(ẑ_t − top̂) = a_t + c + Δ_t with c = top − top̂ the same for every t and |Δ_t| ≤ err_a: ẑ_t's error
      // and one rounding of |ẑ_t − top̂| ≤ |a_t| + both errors. ŵ_t = e^{â_t}(1 + ε), |ε| ≤ 2u (the library's exp within
      // 1 ulp), so ŵ_t = w'_t e^{Δ_t}(1 + ε) with w'_t = e^c w_t: a relative error η = e^{err_a}(1 + 2u) − 1 against
      // weights w' that define the same softmax (the common factor e^c cancels). (A subnormal result adds one step.)
      const Up difference = a_mag + z_err[t] + top_err;
      const Up err_a = unless_overflow(inflated(difference, kUnit), z_err[t] + kUnit * difference);
      eta = max(eta, Up((exp(ball(err_a.value())) * (one + ball(2.0 * kUnit.value())) - one).upper()));
    }
    // d'/d̂ ≤ 1/((1 − γ_T)(1 − η − T·2^-1074/d')), d' = Σ w'_t = e^c d ≥ e^{−top_err} (d ≥ 1): d̂ ≥ (1 − γ_T) Σŵ and
    // Σŵ ≥ d'(1 − η) − T·2^-1074.
    const ArbBall shrink =
        (one - ball(g_T.value())) * (one - ball(eta.value()) - ball(static_cast<double>(T)) *
                                                                    ball(kExpUnderflow.value()) *
                                                                    exp(ball(top_err.value())));
    const Up ratio = shrink.lower() > 0 ? Up((one / shrink).upper()) : Up(INFINITY);
    CVec out;
    out.reserve(ho.value_dim);
    for (int i = 0; i < ho.value_dim; ++i) {
      ArbBall hull = values[0][i].range;
      std::vector<ArbBall> coordinate(T);
      Up value_err, value_computed;
      for (std::size_t t = 0; t < T; ++t) {
        hull = ArbBall::interval(hull, values[t][i].range);
        coordinate[t] = values[t][i].range;
        value_err = max(value_err, values[t][i].err);
        value_computed = max(value_computed, values[t][i].computed_mag());
      }
      // The width from the ends (arb's rad() as a double is +inf from 2^1000 on: a false "no finite bound").
      const Up hull_mag = magnitude(hull), hull_width((hull.upper_end() - hull.lower_end()).upper());
      // Σ_t w_t |v_t − out| ≤ d·W/2: the mean absolute deviation is at most the standard deviation (Jensen), which
      // is at most half the range (Popoviciu).
      const Up weight_term = (mutated(Mutant::RoundingWeightTermTenth) ? Up(0.05) : Up(0.5)) * ratio * eta * hull_width +
                             count(T) * kExpUnderflow * hull_width;
      // N̂ is summed before the division: its partial sums reach (1 + γ_T) Σ_t ŵ_t |v̂_t| with ŵ_t ≤ 1 + 2u (exp of a
      // computed â_t ≤ 0, within 1 ulp), T times the largest value: that, not the output, must not overflow.
      const Up numerator = inflated((Up(1.0) + Up(2.0) * kUnit) * count(T) * value_computed, g_T);
      const Up err_q = unless_overflow(numerator, f * (g_T * value_computed + value_err + g_T * hull_mag) +
                                                      count(T) * kUnderflow + weight_term);
      // Then one rounding of the quotient (and the underflow of a subnormal one).
      // The output's exact range: Σ_t w_t v_t with the weights on the simplex (docs/certify.md §1 item 3).
      out.push_back({convex_combination_range(weight, coordinate), err_q + kUnit * (hull_mag + err_q) + kUnderflow});
    }
    return out;
  }

  const Model& m_;
  const ParamLayout& L_;
};

// Sub-boxes split at once (twice as many evaluated), in parallel.
constexpr std::size_t kRefineBatch = 8;

// A sub-box of the input box and its bound.
struct SubBox {
  std::vector<double> lo, hi;
  double error = 0, magnitude = 0;
  long order = 0;  // evaluation order: ties are split in it, so the refinement is deterministic
};

struct LargerError {
  bool operator()(const SubBox& a, const SubBox& b) const {
    // NaN never occurs (Up maps it to +∞); +∞ first.
    return a.error != b.error ? a.error < b.error : a.order > b.order;
  }
};

}  // namespace

void require_float64_analysable(const Architecture& a) {
  if (a.uses_gelu())
    throw InputError("--execution", "the float64 rounding bound covers ReLU FFNs only; this model has GeLU units "
                                    "(certify the real-number function instead: --execution real)");
}

DoubleExecutionBound double_execution_error_bound(const Model& model, int T, double lo, double hi,
                                                  const RoundingRefinement& refine) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi)) throw InputError("--box", "expected finite LO <= HI");
  if (T < 1) throw InputError("--T", "expected T >= 1");
  const std::size_t n = static_cast<std::size_t>(T) * model.arch.d;
  return double_execution_error_bound(model, T, std::vector<double>(n, lo), std::vector<double>(n, hi), refine);
}

DoubleExecutionBound double_execution_error_bound(const Model& model, int T, const std::vector<double>& lo,
                                                  const std::vector<double>& hi, const RoundingRefinement& refine) {
  if (T < 1) throw InputError("--T", "expected T >= 1");
  require_float64_analysable(model.arch);
  const std::size_t n = static_cast<std::size_t>(T) * model.arch.d;
  if (lo.size() != n || hi.size() != n)
    throw InputError("--box", "expected " + std::to_string(n) + " = T·d coordinate intervals");
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::isfinite(lo[i]) && std::isfinite(hi[i]) && lo[i] <= hi[i]))
      throw InputError("--box", "expected finite LO <= HI in coordinate " + std::to_string(i));
  if (refine.max_boxes < 1) throw InputError("--rounding-boxes", "expected at least 1 sub-box");
  if (refine.threads < 1 || refine.threads > 256) throw InputError("--threads", "expected 1 <= K <= 256");
  if (model.arch.positions > 0 && T > model.arch.positions)
    throw InputError("--T", "T = " + std::to_string(T) + " exceeds the model's positional table (" +
                                std::to_string(model.arch.positions) + " rows)");
  const ParamLayout layout(model.arch);
  if (model.params.size() != layout.size() || model.temperatures.size() != layout.temperature_count())
    throw ContractError("double_execution_error_bound", "model: parameter vector does not match its architecture");
  const DoubleExecution pass(model, layout);
  long evaluated = 0;
  auto evaluate = [&](std::vector<SubBox>& boxes) {
#pragma omp parallel for num_threads(refine.threads) schedule(dynamic)
    for (std::size_t k = 0; k < boxes.size(); ++k) {
      const Carried y = pass.run(T, boxes[k].lo, boxes[k].hi);
      boxes[k].error = y.err.value();
      boxes[k].magnitude = y.mag().value();
    }
    for (SubBox& b : boxes) b.order = evaluated++;  // in the batch's order: the same for any thread count
  };
  // The bound is a maximum over a partition of the box, so splitting the worst sub-boxes never loses soundness.
  // They are split in batches (the same batches for any thread count), each along its widest coordinate.
  std::priority_queue<SubBox, std::vector<SubBox>, LargerError> open;
  std::vector<SubBox> settled;  // sub-boxes that cannot be split further (a coordinate interval of adjacent doubles)
  double settled_error = 0;
  std::vector<SubBox> batch{SubBox{lo, hi}};
  evaluate(batch);
  open.push(std::move(batch[0]));
  auto current = [&] { return std::max(settled_error, open.empty() ? 0.0 : open.top().error); };
  while (evaluated + 2 <= refine.max_boxes && !open.empty() && open.top().error > 0 &&
         !(current() <= refine.stop_below)) {
    batch.clear();
    while (batch.size() < 2 * kRefineBatch && evaluated + static_cast<long>(batch.size()) + 2 <= refine.max_boxes &&
           !open.empty()) {
      SubBox worst = open.top();
      open.pop();
      std::size_t k = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (worst.hi[i] - worst.lo[i] > worst.hi[k] - worst.lo[k]) k = i;
      const double mid = worst.lo[k] + (worst.hi[k] - worst.lo[k]) / 2;
      if (!(worst.lo[k] < mid && mid < worst.hi[k])) {
        settled_error = std::max(settled_error, worst.error);
        settled.push_back(std::move(worst));
        continue;
      }
      SubBox left = worst, right = worst;
      left.hi[k] = mid;
      right.lo[k] = mid;
      batch.push_back(std::move(left));
      batch.push_back(std::move(right));
    }
    evaluate(batch);
    for (SubBox& b : batch) open.push(std::move(b));
  }
  DoubleExecutionBound r;
  r.boxes = evaluated;
  for (; !open.empty(); open.pop()) settled.push_back(open.top());
  for (const SubBox& b : settled) {
    r.output_error = std::max(r.output_error, b.error);
    r.output_magnitude = std::max(r.output_magnitude, b.magnitude);
  }
  return r;
}

ObservedRounding observed_double_rounding(const Model& model, int T, double lo, double hi, long evaluations,
                                          std::uint64_t seed) {
  if (T < 1) throw InputError("--T", "expected T >= 1");
  const std::size_t n = static_cast<std::size_t>(T) * model.arch.d;
  return observed_double_rounding(model, T, std::vector<double>(n, lo), std::vector<double>(n, hi), evaluations, seed);
}

ObservedRounding observed_double_rounding(const Model& model, int T, const std::vector<double>& lo,
                                          const std::vector<double>& hi, long evaluations, std::uint64_t seed) {
  if (T < 1) throw InputError("--T", "expected T >= 1");
  if (evaluations < 1) throw InputError("evaluations", "expected at least 1");
  const std::size_t n = static_cast<std::size_t>(T) * model.arch.d;
  if (lo.size() != n || hi.size() != n) throw InputError("--box", "expected T*d lower and upper ends");
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::isfinite(lo[i]) && std::isfinite(hi[i]) && lo[i] <= hi[i])) throw InputError("--box", "expected finite LO <= HI");
  const ParamLayout layout(model.arch);
  const auto exact_model = convert_model<mpfr::mpreal>(model, Precision{256});
  ObservedRounding r;
  auto rounding_at = [&](const std::vector<double>& x) {
    ++r.evaluations;
    const Sequence<double> X = as_sequence(x, T, model.arch.d);
    const double y = forward(model, layout, X).y;
    const mpfr::mpreal exact = forward(exact_model, layout, convert_sequence<mpfr::mpreal>(X, Precision{256})).y;
    const double e = std::isfinite(y) ? std::fabs((mpfr::mpreal(y, 256) - exact).toDouble()) : INFINITY;
    const double err = std::isnan(e) ? INFINITY : e;
    if (err > r.largest || r.at.empty()) r.largest = err, r.at = x;
    return err;
  };
  SplitMix64 rng(seed);
  std::vector<std::pair<double, std::vector<double>>> starts;
  const std::size_t corners = n <= 6 ? std::size_t{1} << n : 0;
  for (std::size_t c = 0; c < corners && r.evaluations < evaluations; ++c) {
    std::vector<double> x(n);
    for (std::size_t k = 0; k < n; ++k) x[k] = (c >> k) & 1 ? hi[k] : lo[k];
    starts.emplace_back(rounding_at(x), x);
  }
  const long sampled = std::max(1L, evaluations / 4);
  while (r.evaluations < sampled) {
    std::vector<double> x(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double u = rng.uniform();
      // not lo + (hi − lo)·u: hi − lo overflows on [−1e308, 1e308]
      x[k] = std::clamp(lo[k] * (1 - u) + hi[k] * u, lo[k], hi[k]);
    }
    starts.emplace_back(rounding_at(x), x);
  }
  std::stable_sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  starts.resize(std::min<std::size_t>(starts.size(), 4));
  const int d = model.arch.d;
  for (std::size_t step = 0; r.evaluations < evaluations; ++step) {
    auto& [err, x] = starts[step % starts.size()];
    std::vector<double> y = x;
    const std::size_t k = rng.uniform_index(n);
    const std::size_t move = rng.uniform_index(3);
    if (move == 0) {
      // A step of (hi − lo)·2^-j, j uniform in 1..52: coarse moves find the region, fine ones the tie.
      const int j = 1 + static_cast<int>(rng.uniform_index(52));
      const double size = std::ldexp(hi[k], -j) - std::ldexp(lo[k], -j);  // (hi − lo)·2^-j, finite for any finite box
      y[k] += rng.uniform() < 0.5 ? -size : size;
    } else {
      // Ties: copy the coordinate from another token (equal tokens have equal logits), then move it by a few ulps,
      // so the exact logits differ by about as much as their roundings.
      if (move == 1 && T > 1) {
        const std::size_t other = (k / d + 1 + rng.uniform_index(static_cast<std::size_t>(T - 1))) % T;
        y[k] = x[other * d + k % d];
      }
      const int ulps = 1 + static_cast<int>(rng.uniform_index(16));
      const double toward = rng.uniform() < 0.5 ? -INFINITY : INFINITY;
      for (int u = 0; u < ulps; ++u) y[k] = std::nextafter(y[k], toward);
    }
    y[k] = std::clamp(y[k], lo[k], hi[k]);
    const double e = rounding_at(y);
    if (e >= err) err = e, x = std::move(y);
  }
  return r;
}

}  // namespace infoflow
