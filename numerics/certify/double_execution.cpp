#include "numerics/certify/double_execution.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace infoflow {

namespace {

constexpr long kPrec = 128;

// A non-negative upper bound. Every operation is done in arb and rounded up, so a bound built from bounds by +, ·
// and exp (all increasing on [0, ∞)) stays a bound.
// A NaN (0·∞ in arb) becomes +∞: no bound, never a silent one.
class Up {
 public:
  Up() = default;
  explicit Up(double v) : v_(std::isnan(v) ? INFINITY : v) {}
  double value() const { return v_; }
  friend Up operator+(Up a, Up b) { return Up((ArbBall(a.v_, kPrec) + ArbBall(b.v_, kPrec)).upper()); }
  friend Up operator*(Up a, Up b) {
    // An exact zero times a bounded factor is zero. Against an unbounded one it is not: in binary64 0·∞ is NaN, so
    // a zero weight over an overflowing value does not hide the overflow.
    if (a.v_ == 0 || b.v_ == 0) return std::isinf(a.v_) || std::isinf(b.v_) ? Up(INFINITY) : Up(0.0);
    return Up((ArbBall(a.v_, kPrec) * ArbBall(b.v_, kPrec)).upper());
  }
  Up& operator+=(Up b) { return *this = *this + b; }
  friend Up max(Up a, Up b) { return Up(std::max(a.v_, b.v_)); }
  friend Up exp(Up a) { return Up(exp(ArbBall(a.v_, kPrec)).upper()); }

 private:
  double v_ = 0;
};

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
  const ArbBall nu = ArbBall(static_cast<double>(n), kPrec) * ArbBall(kUnit.value(), kPrec);
  return Up((nu / (ArbBall(1.0, kPrec) - nu)).upper());
}

// An intermediate quantity: |exact| ≤ mag over the box, |computed − exact| ≤ err.
struct Carried {
  Up mag, err;
  Up computed_mag() const { return mag + err; }
};
using CVec = std::vector<Carried>;

class DoubleExecution {
 public:
  DoubleExecution(const Model& m, const ParamLayout& layout) : m_(m), L_(layout) {}

  Carried run(int T, double lo, double hi) const {
    const Architecture& a = m_.arch;
    const Carried input{Up(std::max(std::fabs(lo), std::fabs(hi))), Up(0.0)};  // the inputs are the doubles given
    std::vector<CVec> tokens(T);
    for (int t = 0; t < T; ++t) {
      tokens[t] = apply_map(L_.encoder(), CVec(a.d, input));
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
          for (auto& u : tokens) residual(u, apply_map(lo_.ffn, u));
          residual(new_cls, apply_map(lo_.ffn, new_cls));
        }
      }
      cls = std::move(new_cls);
    }
    return apply_map(L_.readout(), cls)[0];
  }

 private:
  double p(std::size_t i) const { return m_.params[i]; }
  static Carried exact(double v) { return {Up(std::fabs(v)), Up(0.0)}; }

  // fl(x + y): the inputs' errors, plus one rounding of the computed sum.
  static Carried add(const Carried& x, const Carried& y) {
    return {x.mag + y.mag, x.err + y.err + kUnit * (x.computed_mag() + y.computed_mag())};
  }
  static void residual(CVec& y, const CVec& x) {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = add(y[i], x[i]);
  }

  // y = A x (+ b), A exact (the model's doubles): Σ|A|e for the inputs, γ_{n} Σ|A||x̂| (+|b|) for the roundings,
  // n the number of terms (the bias is added after the sum, one more term).
  CVec matvec(std::size_t off, int rows, int cols, const CVec& x, std::optional<std::size_t> bias) const {
    CVec y(rows);
    const Up g = gamma(static_cast<std::size_t>(cols) + (bias ? 1 : 0));
    for (int r = 0; r < rows; ++r) {
      Up mag, propagated, rounded;
      for (int c = 0; c < cols; ++c) {
        const Up w(std::fabs(p(row_major_index(off, cols, r, c))));
        mag += w * x[c].mag;
        propagated += w * x[c].err;
        rounded += w * x[c].computed_mag();
      }
      if (bias) {
        const Up b(std::fabs(p(*bias + r)));
        mag += b;
        rounded += b;
      }
      y[r] = {mag, propagated + g * rounded + count(static_cast<std::size_t>(cols)) * kUnderflow};
    }
    return y;
  }

  CVec apply_map(const MapOffsets& m, const CVec& x) const {
    if (m.kind == MapKind::Affine) return matvec(m.W, m.out, m.in, x, m.b);
    // ReLU is 1-Lipschitz and exact in floating point: magnitude and error pass through unchanged.
    const CVec hidden = matvec(m.W1, m.width, m.in, x, m.b1);
    return matvec(m.W2, m.out, m.width, hidden, m.b2);
  }

  // The shifted softmax of ForwardPass<double>::head: z_t = β (q·k_t), a_t = z_t − max_s z_s ≤ 0, w_t = exp(a_t),
  // d = Σ w_t ≥ 1, out = (Σ_t w_t v_t) / d.
  CVec head(const HeadOffsets& ho, const std::vector<CVec>& keys, const std::vector<CVec>& values, const CVec& q) const {
    const CVec query = matvec(ho.Q, ho.key_dim, m_.arch.E, q, std::nullopt);
    const Up beta(std::fabs(m_.temperatures[ho.temperature]));
    const std::size_t T = keys.size();
    const Up g_key = gamma(static_cast<std::size_t>(ho.key_dim)), g_T = gamma(T);
    std::vector<Carried> z(T);
    Carried top{Up(0.0), Up(0.0)};
    for (std::size_t t = 0; t < T; ++t) {
      Up mag, propagated, rounded;
      for (int i = 0; i < ho.key_dim; ++i) {
        const Carried& a = query[i];
        const Carried& b = keys[t][i];
        mag += a.mag * b.mag;
        propagated += a.mag * b.err + b.mag * a.err + a.err * b.err;
        rounded += a.computed_mag() * b.computed_mag();
      }
      const Carried s{mag, propagated + g_key * rounded + count(static_cast<std::size_t>(ho.key_dim)) * kUnderflow};
      z[t] = {beta * s.mag, beta * s.err + kUnit * beta * s.computed_mag() + kUnderflow};  // fl(β·ŝ)
      top = {max(top.mag, z[t].mag), max(top.err, z[t].err)};              // max is 1-Lipschitz in the sup norm
    }
    Up denominator_err, denominator_rounded;
    std::vector<Up> w_err(T);
    for (std::size_t t = 0; t < T; ++t) {
      // a_t = fl(ẑ_t − top): exact a_t ≤ 0, so â_t ≤ err_a and |exp(â) − exp(a)| ≤ e^{err_a}·err_a; the library's
      // exp adds at most 1 ulp ≤ 2u·exp(â) ≤ 2u·e^{err_a}.
      const Up err_a = z[t].err + top.err + kUnit * (z[t].computed_mag() + top.computed_mag());
      w_err[t] = exp(err_a) * (err_a + Up(2.0) * kUnit) + kExpUnderflow;
      denominator_err += w_err[t];
      denominator_rounded += Up(1.0) + w_err[t];
    }
    const Up err_d = denominator_err + g_T * denominator_rounded;
    CVec out(ho.value_dim);
    for (int i = 0; i < ho.value_dim; ++i) {
      Up value_mag, propagated, rounded;
      for (std::size_t t = 0; t < T; ++t) {
        const Carried& v = values[t][i];
        value_mag = max(value_mag, v.mag);
        propagated += v.err + v.mag * w_err[t] + w_err[t] * v.err;  // |w| ≤ 1
        rounded += (Up(1.0) + w_err[t]) * v.computed_mag();
      }
      const Up err_N = propagated + g_T * rounded + count(T) * kUnderflow;
      // |N̂/d̂ − N/d| ≤ err_N/d̂ + (|N|/d)·err_d/d̂ ≤ err_N + max_t|v_t|·err_d, since d, d̂ ≥ 1 and N/d is a convex
      // combination of the values; then one rounding of the quotient.
      const Up err_q = err_N + value_mag * err_d;
      out[i] = {value_mag, err_q + kUnit * (value_mag + err_q) + kUnderflow};
    }
    return out;
  }

  const Model& m_;
  const ParamLayout& L_;
};

}  // namespace

DoubleExecutionBound double_execution_error_bound(const Model& model, int T, double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi)) throw InputError("--box", "expected finite LO <= HI");
  if (T < 1) throw InputError("--T", "expected T >= 1");
  if (model.arch.positions > 0 && T > model.arch.positions)
    throw InputError("--T", "T = " + std::to_string(T) + " exceeds the model's positional table (" +
                                std::to_string(model.arch.positions) + " rows)");
  const ParamLayout layout(model.arch);
  if (model.params.size() != layout.size() || model.temperatures.size() != layout.temperature_count())
    throw ContractError("double_execution_error_bound", "model: parameter vector does not match its architecture");
  const Carried y = DoubleExecution(model, layout).run(T, lo, hi);
  return {y.err.value(), y.mag.value()};
}

}  // namespace infoflow
