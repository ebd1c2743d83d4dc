#include "numerics/model/forward.hpp"
#include "numerics/model/softmax_enclosure.hpp"
#include "numerics/scalar/affine_form.hpp"
#include "numerics/scalar/double_affine_form.hpp"
#include "numerics/scalar/dual_ball.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <cmath>
#include <string>

namespace infoflow {

namespace {

// The largest T at which balls and boxes use the pairwise softmax (O(T²) per query).
constexpr std::size_t kPairwiseSoftmaxMaxT = 64;

// The two affine-form scalars (arb and double): the same linearisations, one code path here.
template <class S>
constexpr bool kIsAffineForm = std::is_same_v<S, AffineForm> || std::is_same_v<S, DoubleAffineForm>;
// A form's accumulated remainder (what the linearisations added beyond the noise symbols): which of the enclosures
// of one weight is tighter. The search (double form) and the checker (arb form) must take the same decision, so the
// arb form's measure is the double form's radius up to roundings: its centre's radius and its coefficients'
// radii (a product of two forms leaves the one's remainder times the other's coefficients there, where the double
// form adds it to its radius).
double remainder_radius(const AffineForm& f) {
  double r = f.centre.rad();
  for (const ArbBall& a : f.coef) r += a.rad();
  return r;
}
double remainder_radius(const DoubleAffineForm& f) { return f.radius; }
// a < b by more than 2^-20 of their size. The choices the two affine forms make from their own figures (which weight
// is the reference, which enclosure of a weight is kept) must come out alike, and the figures differ by their
// roundings, about 2^-30 of themselves: an exact tie (two tokens whose boxes are alike, a weight whose enclosures
// coincide) must not be decided by those roundings, differently in each form. Decided by this margin, the two
// forms part only where a and b differ by within 2^-30 of 2^-20 of their size. (Decided by `<`, the forms chose
// differently on 83 of the 48,386 leaves of a T = 3 search, mostly boxes where a token's two coordinates have the same
// side, and the checker refused 3 of them, by up to 1 %.)
bool clearly_less(double a, double b) { return a < b - 0x1p-20 * (std::fabs(a) + std::fabs(b)); }

template <class S>
class ForwardPass {
 public:
  ForwardPass(const ModelT<S>& m, const ParamLayout& layout)
      : m_(m), L_(layout), p_(m.params), zero_(ScalarTraits<S>::from_double(0.0, m.precision)) {}

  // u(t) = P(x, t): the encoder and, when the model has one, the positional row t (0-based).
  Vec<S> token_state(const Vec<S>& x, int t) const {
    Vec<S> u = apply_map(L_.encoder(), x);
    if (m_.arch.positions > 0)
      for (int e = 0; e < m_.arch.E; ++e) u[e] += p_[row_major_index(L_.positional(), m_.arch.E, t, e)];
    return u;
  }

  ForwardResult<S> run(const Sequence<S>& X) const {
    const Architecture& a = m_.arch;
    const int T = static_cast<int>(X.size());
    if (T < 1) throw InputError("inputs", "expected a sequence of at least one token");
    if (a.positions > 0 && T > a.positions)
      throw InputError("inputs", "sequence of length " + std::to_string(T) + " exceeds the positional table (" +
                                     std::to_string(a.positions) + " rows)");
    std::vector<Vec<S>> tokens(T);
    for (int t = 0; t < T; ++t) {
      if (static_cast<int>(X[t].size()) != a.d)
        throw InputError("inputs", "token " + std::to_string(t) + " has dimension " + std::to_string(X[t].size()) +
                                       ", the model expects d = " + std::to_string(a.d));
      tokens[t] = token_state(X[t], t);
    }
    Vec<S> cls(p_.begin() + L_.cls0(), p_.begin() + L_.cls0() + a.E);
    std::string nonfinite_at;
    note_nonfinite(nonfinite_at, "the encoder", tokens, cls);

    const auto& layers = L_.layers();
    for (std::size_t l = 0; l < layers.size(); ++l) {
      const bool last = l + 1 == layers.size();
      const LayerOffsets& lo = layers[l];
      // Keys and values are computed from the states before the layer; every query then sees them.
      std::vector<std::vector<Vec<S>>> keys(lo.heads.size()), values(lo.heads.size());
      for (std::size_t h = 0; h < lo.heads.size(); ++h) {
        const HeadOffsets& ho = lo.heads[h];
        for (int t = 0; t < T; ++t) {
          keys[h].push_back(matvec(ho.K, ho.key_dim, a.E, tokens[t]));
          values[h].push_back(matvec(ho.V, ho.value_dim, a.E, tokens[t]));
        }
      }
      auto attend = [&](const Vec<S>& q) {
        Vec<S> concat;
        concat.reserve(lo.concat_dim);
        for (std::size_t h = 0; h < lo.heads.size(); ++h) {
          const Vec<S> a_h = head(lo.heads[h], keys[h], values[h], q);
          concat.insert(concat.end(), a_h.begin(), a_h.end());
        }
        Vec<S> out = q;
        add_into(out, matvec(lo.W_O, a.E, lo.concat_dim, concat));
        return out;
      };
      Vec<S> new_cls = attend(cls);
      if (!last) {
        std::vector<Vec<S>> new_tokens(T);
        for (int t = 0; t < T; ++t) new_tokens[t] = attend(tokens[t]);
        tokens = std::move(new_tokens);
        if (lo.has_ffn) {
          for (auto& u : tokens) add_into(u, apply_map(lo.ffn, u));
          add_into(new_cls, apply_map(lo.ffn, new_cls));
        }
      }
      cls = std::move(new_cls);
      note_nonfinite(nonfinite_at, "layer " + std::to_string(l + 1), tokens, cls);
    }
    ForwardResult<S> r{apply_map(L_.readout(), cls)[0], cls};
    note_nonfinite(nonfinite_at, "the readout", {}, {r.y});
    r.nonfinite_at = nonfinite_at;
    return r;
  }

 private:
  // Point types: records `stage` as the first with a NaN or an infinity in the token states or the CLS state.
  // (Balls are not checked: an unbounded ball is an honest, if useless, enclosure.)
  static void note_nonfinite(std::string& first, const std::string& stage, const std::vector<Vec<S>>& tokens,
                             const Vec<S>& cls) {
    if constexpr (std::is_same_v<S, double> || std::is_same_v<S, mpfr::mpreal>) {
      if (!first.empty()) return;
      const auto finite = [](const Vec<S>& v) {
        for (const S& x : v)
          if (!ScalarTraits<S>::is_finite(x)) return false;
        return true;
      };
      bool ok = finite(cls);
      for (const auto& u : tokens) ok = ok && finite(u);
      if (!ok) first = stage;
    }
  }

  // y = A x with A stored row-major at offset `off` (rows × cols).
  Vec<S> matvec(std::size_t off, int rows, int cols, const Vec<S>& x) const {
    Vec<S> y(rows, zero_);
    for (int r = 0; r < rows; ++r) {
      S acc = zero_;
      const std::size_t row = row_major_index(off, cols, r, 0);
      for (int c = 0; c < cols; ++c) ScalarTraits<S>::add_product(acc, p_[row + c], x[c]);
      y[r] = acc;
    }
    return y;
  }
  void add_bias(Vec<S>& y, std::size_t off) const {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += p_[off + i];
  }
  static void add_into(Vec<S>& y, const Vec<S>& x) {
    for (std::size_t i = 0; i < y.size(); ++i) y[i] += x[i];
  }
  Vec<S> apply_map(const MapOffsets& m, const Vec<S>& x) const {
    if (m.kind == MapKind::Affine) {
      Vec<S> y = matvec(m.W, m.out, m.in, x);
      add_bias(y, m.b);
      return y;
    }
    Vec<S> hidden = matvec(m.W1, m.width, m.in, x);
    add_bias(hidden, m.b1);
    if (m.activation == Activation::Gelu)
      for (auto& v : hidden) v = ScalarTraits<S>::gelu(v);
    else
      for (auto& v : hidden) v = ScalarTraits<S>::relu(v);
    Vec<S> y = matvec(m.W2, m.out, m.width, hidden);
    add_bias(y, m.b2);
    return y;
  }
  // a(q) = Σ_t softmax_t(β (Q q)ᵀ(K u_t)) V u_t, evaluated stably: the max logit is subtracted.
  Vec<S> head(const HeadOffsets& ho, const std::vector<Vec<S>>& keys, const std::vector<Vec<S>>& values,
              const Vec<S>& q) const {
    const Vec<S> query = matvec(ho.Q, ho.key_dim, m_.arch.E, q);
    const S& beta = m_.temperatures[ho.temperature];
    const std::size_t T = keys.size();
    Vec<S> logits(T, zero_);
    for (std::size_t t = 0; t < T; ++t) {
      S s = zero_;
      for (int i = 0; i < ho.key_dim; ++i) s += query[i] * keys[t][i];
      logits[t] = beta * s;
    }
    if constexpr (std::is_same_v<S, ArbBall> || std::is_same_v<S, DualBall> || kIsAffineForm<S>)
      if (T <= kPairwiseSoftmaxMaxT && !mutated(Mutant::SoftmaxWithoutShift)) return pairwise_head(ho, keys, values, query);
    S top = logits[0];
    for (std::size_t t = 1; t < T; ++t) top = ScalarTraits<S>::max_of(top, logits[t]);
    if (mutated(Mutant::SoftmaxWithoutShift)) top = zero_;
    S denom = zero_;
    Vec<S> out(ho.value_dim, zero_);
    for (std::size_t t = 0; t < T; ++t) {
      const S w = ScalarTraits<S>::exp_of(logits[t] - top);
      denom += w;
      for (int i = 0; i < ho.value_dim; ++i) out[i] += w * values[t][i];
    }
    for (auto& v : out) v /= denom;
    return out;
  }

  // Balls and boxes: w_t = 1/(1 + Σ_{s≠t} exp(β q·(k_s − k_t))), so every weight is enclosed in (0, 1] and the
  // query enters each logit difference once; the output, a convex combination of the values, is intersected
  // with the range of such combinations under the weights' enclosures (convex_combination_range: within the values'
  // hull, and tighter where the weights are partly determined). The plain form's enclosure explodes on a box (exp of
  // a wide logit interval divided by a sum of such); this one stays finite (docs/certify.md). O(T²) per query, so
  // only for T ≤ kPairwiseSoftmaxMaxT.
  Vec<S> pairwise_head(const HeadOffsets& ho, const std::vector<Vec<S>>& keys, const std::vector<Vec<S>>& values,
                       const Vec<S>& query) const {
    const S& beta = m_.temperatures[ho.temperature];
    const std::size_t T = keys.size();
    const S one = ScalarTraits<S>::from_double(1.0, m_.precision);
    // z[t][s] = β q·(k_s − k_t), s ≠ t (z[t][t] unused), and each weight's enclosure from them.
    std::vector<std::vector<S>> z(T, std::vector<S>(T, zero_));
    std::vector<ArbBall> w(T);
    for (std::size_t t = 0; t < T; ++t) {
      std::vector<ArbBall> zt;
      for (std::size_t s = 0; s < T; ++s) {
        if (s == t) continue;
        S diff = zero_;
        for (int i = 0; i < ho.key_dim; ++i) diff += query[i] * (keys[s][i] - keys[t][i]);
        z[t][s] = beta * diff;
        zt.push_back(value_of(z[t][s]));
      }
      w[t] = softmax_weight_from_differences(zt, value_of(one));
    }
    Vec<S> out(ho.value_dim, zero_);
    if constexpr (kIsAffineForm<S>) {
      // Σ_t w_t v_t = v_r + Σ_{t≠r} w_t (v_t − v_r), exactly (the weights sum to 1), with r the token of the largest
      // weight: each weight's remainder then multiplies a difference of values, not a value.
      std::size_t r = 0;
      for (std::size_t t = 1; t < T; ++t)
        if (clearly_less(w[r].mid(), w[t].mid())) r = t;
      for (int i = 0; i < ho.value_dim; ++i) out[i] = values[r][i];
      for (std::size_t t = 0; t < T; ++t) {
        if (t == r) continue;
        const S wt = weight_with_gradient(t, z, w);
        for (int i = 0; i < ho.value_dim; ++i) out[i] += wt * (values[t][i] - values[r][i]);
      }
    } else {
      for (std::size_t t = 0; t < T; ++t) {
        const S wt = weight_with_gradient(t, z, w);
        for (int i = 0; i < ho.value_dim; ++i) out[i] += wt * values[t][i];
      }
    }
    std::vector<ArbBall> coordinate(T);
    for (int i = 0; i < ho.value_dim; ++i) {
      for (std::size_t t = 0; t < T; ++t) coordinate[t] = value_of(values[t][i]);
      narrow_to(out[i], simplex_range(w, coordinate));
      // The output's remainder gets a fresh noise symbol: every unit of the next FFN and every later head reads this
      // coordinate, and with the symbol their copies of the remainder cancel as the true one does (docs/certify.md §1,
      // item 1d: on the T = 2 construction near its maximiser this halved the overestimate of a box).
      if constexpr (kIsAffineForm<S>) remainder_to_fresh_symbol(out[i]);
    }
    return out;
  }
  // convex_combination_range (softmax_enclosure.hpp), or under its mutant the weights fixed at their lower ends.
  static ArbBall simplex_range(const std::vector<ArbBall>& w, const std::vector<ArbBall>& terms) {
    if (!mutated(Mutant::ConvexCombinationWeightsAtLowerEnds)) return convex_combination_range(w, terms);
    std::vector<ArbBall> at_lower;
    for (const ArbBall& wt : w) at_lower.push_back(wt.lower_end());
    return convex_combination_range(at_lower, terms);
  }
  // The weight w_t as the scalar type: for balls its enclosure; for dual balls also its gradient,
  //   ∂w_t = −w_t² Σ_{s≠t} e^{z_ts} ∂z_ts = −Σ_{s≠t} w_t w_s ∂z_ts     (w_t e^{z_ts} = w_s, exactly),
  // with each coefficient enclosed by w_t w_s from the weights' enclosures, by [0, 1/4] (w_t + w_s ≤ 1) and by
  // w_t² e^{z_ts}. Alone, the last reaches e^{sup z} on a wide box: on a sharp softmax that is astronomically wide
  // where the true coefficient is at most 1/4 (docs/certify.md §1).
  static ArbBall weight_with_gradient(std::size_t t, const std::vector<std::vector<ArbBall>>&, const std::vector<ArbBall>& w) {
    return w[t];
  }
  static DualBall weight_with_gradient(std::size_t t, const std::vector<std::vector<DualBall>>& z, const std::vector<ArbBall>& w) {
    DualBall r(w[t]);
    if (mutated(Mutant::DualBallDropsSoftmaxDerivative)) return r;
    const long prec = w[t].prec();
    const ArbBall quarter = ArbBall::interval(0.0, 0.25, prec);
    for (std::size_t s = 0; s < z.size(); ++s) {
      if (s == t || z[t][s].grad.empty()) continue;
      // Three enclosures of the same number; each is tighter somewhere (the product of two weights on wide boxes,
      // w_t² e^{z_ts} on narrow ones), so the coefficient is their intersection.
      ArbBall coef = w[t] * w[s], both(prec);
      if (arb_intersection(both.raw(), coef.raw(), quarter.raw(), prec)) coef = both;
      const ArbBall direct = w[t] * w[t] * exp(z[t][s].value);
      if (direct.is_finite() && arb_intersection(both.raw(), coef.raw(), direct.raw(), prec)) coef = both;
      coef = mutated(Mutant::SoftmaxCoefficientQuartered) ? coef * ArbBall(-0.25, prec) : -coef;
      if (r.grad.empty()) r.grad.assign(z[t][s].grad.size(), ArbBall(0.0, prec));
      for (std::size_t i = 0; i < z[t][s].grad.size(); ++i) r.grad[i] += coef * z[t][s].grad[i];
    }
    return r;
  }
  // Affine forms: w_t = 1/(1 + Σ_{s≠t} e^{z_ts}) linearised as one function of the differences z_ts (softmax_weight),
  // so that the weight keeps the noise symbols of the logits (and through them of the values it weights); its hull
  // is narrowed by the weight's interval enclosure.
  template <class F>
    requires kIsAffineForm<F>
  static F weight_with_gradient(std::size_t t, const std::vector<std::vector<F>>& z, const std::vector<ArbBall>& w) {
    std::vector<F> differences;
    for (std::size_t s = 0; s < z.size(); ++s)
      if (s != t) differences.push_back(z[t][s]);
    F weight = softmax_weight(differences);
    // The composition of exp and 1/x: looser where a logit range is wide near a balanced softmax, tighter where the
    // softmax is nearly saturated (e^z's shape there); both are enclosures, and the one with the smaller remainder is kept.
    const long prec = w[t].prec();
    const ArbBall one(1.0, prec);
    F normaliser(one);
    for (const F& d : differences) normaliser += exp(d);
    F composed = reciprocal(normaliser, ArbBall::interval(one / w[t].upper_end(), one / w[t].lower_end()));
    if (clearly_less(remainder_radius(composed), remainder_radius(weight))) weight = std::move(composed);
    // Where the logit differences span several units (a wide box before a sharp softmax) both linearisations can
    // leave a remainder wider than the weight's whole interval enclosure; that interval, as a constant form, is
    // then the better one (on the T = 3 construction a remainder of 0.78 against an enclosure [0.0025, 0.876]).
    F interval(w[t]);
    if (clearly_less(remainder_radius(interval), remainder_radius(weight))) weight = std::move(interval);
    return narrow_hull(weight, w[t]);
  }
  template <class U>
  static U weight_with_gradient(std::size_t, const std::vector<std::vector<U>>&, const std::vector<ArbBall>&) {
    throw ContractError("forward", "pairwise softmax on a point type");
  }
  static const ArbBall& value_of(const ArbBall& b) { return b; }
  static const ArbBall& value_of(const DualBall& b) { return b.value; }
  static ArbBall value_of(const AffineForm& b) { return b.range(); }
  static ArbBall value_of(const DoubleAffineForm& b) { return b.range(); }
  // v narrowed by a second enclosure `hull` of the same quantity: intersected (balls; for affine forms, their hull).
  static void narrow_to(ArbBall& v, const ArbBall& hull) { intersect_with(v, hull); }
  static void narrow_to(DualBall& v, const ArbBall& hull) { intersect_with(v.value, hull); }
  static void narrow_to(AffineForm& v, const ArbBall& hull) { narrow_hull(v, hull); }
  static void narrow_to(DoubleAffineForm& v, const ArbBall& hull) { narrow_hull(v, hull); }
  template <class U>
  static const ArbBall& value_of(const U&) { throw ContractError("forward", "pairwise softmax on a point type"); }
  template <class U>
  static void narrow_to(U&, const ArbBall&) { throw ContractError("forward", "pairwise softmax on a point type"); }

  const ModelT<S>& m_;
  const ParamLayout& L_;
  const std::vector<S>& p_;
  const S zero_;
};

}  // namespace

template <class S>
ForwardResult<S> forward(const ModelT<S>& model, const ParamLayout& layout, const Sequence<S>& X) {
  if (model.params.size() != layout.size() || model.temperatures.size() != layout.temperature_count())
    throw ContractError("forward", "model: parameter vector does not match its architecture");
  return ForwardPass<S>(model, layout).run(X);
}

template <class S>
Vec<S> token_state(const ModelT<S>& model, const ParamLayout& layout, const Vec<S>& x, int t) {
  if (static_cast<int>(x.size()) != model.arch.d || t < 0 || (model.arch.positions > 0 && t >= model.arch.positions))
    throw ContractError("token_state", "token dimension or position outside the model");
  return ForwardPass<S>(model, layout).token_state(x, t);
}

template Vec<double> token_state(const ModelT<double>&, const ParamLayout&, const Vec<double>&, int);
template Vec<mpfr::mpreal> token_state(const ModelT<mpfr::mpreal>&, const ParamLayout&, const Vec<mpfr::mpreal>&, int);
template Vec<DualBall> token_state(const ModelT<DualBall>&, const ParamLayout&, const Vec<DualBall>&, int);
template Vec<ArbBall> token_state(const ModelT<ArbBall>&, const ParamLayout&, const Vec<ArbBall>&, int);
template Vec<AffineForm> token_state(const ModelT<AffineForm>&, const ParamLayout&, const Vec<AffineForm>&, int);
template Vec<DoubleAffineForm> token_state(const ModelT<DoubleAffineForm>&, const ParamLayout&, const Vec<DoubleAffineForm>&, int);

template ForwardResult<double> forward(const ModelT<double>&, const ParamLayout&, const Sequence<double>&);
template ForwardResult<mpfr::mpreal> forward(const ModelT<mpfr::mpreal>&, const ParamLayout&,
                                             const Sequence<mpfr::mpreal>&);
template ForwardResult<ArbBall> forward(const ModelT<ArbBall>&, const ParamLayout&, const Sequence<ArbBall>&);
template ForwardResult<DualBall> forward(const ModelT<DualBall>&, const ParamLayout&, const Sequence<DualBall>&);
template ForwardResult<AffineForm> forward(const ModelT<AffineForm>&, const ParamLayout&, const Sequence<AffineForm>&);
template ForwardResult<DoubleAffineForm> forward(const ModelT<DoubleAffineForm>&, const ParamLayout&,
                                                 const Sequence<DoubleAffineForm>&);

}  // namespace infoflow
