#include "theorems/depth_separation/certify_construction.hpp"

#include "numerics/lemmas/gibbs.hpp"
#include "numerics/lemmas/relu_square.hpp"
#include "theorems/depth_separation/two_layer_construction.hpp"

#include <cmath>
#include <map>
#include <sstream>

namespace infoflow {

namespace {

class WeightChecker {
 public:
  WeightChecker(const Model& m, std::vector<std::string>& violations) : m_(m), v_(violations) {}
  // Checks a whole matrix against expected(r, c).
  template <class F>
  void matrix(const std::string& name, std::size_t off, int rows, int cols, F expected) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const double w = m_.params[row_major_index(off, cols, r, c)], e = expected(r, c);
        if (w != e) {
          std::ostringstream o;
          o.precision(17);
          o << name << "[" << r << "][" << c << "] = " << w << ", the construction's hypothesis needs " << e;
          v_.push_back(o.str());
          return;  // one message per tensor is enough
        }
      }
  }

 private:
  const Model& m_;
  std::vector<std::string>& v_;
};

// The architecture must be exactly the construction's (E = 2d+2, one head per layer, affine ends).
bool has_construction_shape(const Architecture& a) {
  const int d = a.d, E = MinDotSlots{d}.E();
  return a.E == E && a.positions == 0 && a.layers.size() == 2 && a.encoder.kind == MapKind::Affine &&
         a.readout.kind == MapKind::Affine && a.layers[0].heads.size() == 1 && a.layers[1].heads.size() == 1 &&
         a.layers[0].heads[0].key_dim == d && a.layers[0].heads[0].value_dim == d &&
         a.layers[1].heads[0].key_dim == 1 && a.layers[1].heads[0].value_dim == 1 && a.layers[0].ffn_width >= 1;
}

// Every weight outside FFN_1 must be exactly the construction's: the lemmas' hypotheses.
void check_fixed_weights(const Model& model, const ParamLayout& L, std::vector<std::string>& bad) {
  const int d = model.arch.d;
  const MinDotSlots s{d};
  const int E = s.E();
  WeightChecker w(model, bad);
  auto delta = [](int i, int j) { return i == j ? 1.0 : 0.0; };
  // Encoder u = [x; 0; 0; 1] and ĉ0 = e_ONE: tokens in [0,1]^d sit in X, and ONE reads 1 everywhere.
  w.matrix("encoder.W", L.encoder().W, E, d, [&](int r, int col) { return r < d ? delta(r, col) : 0.0; });
  w.matrix("encoder.b", L.encoder().b, E, 1, [&](int r, int) { return delta(r, s.one()); });
  w.matrix("cls0", L.cls0(), E, 1, [&](int r, int) { return delta(r, s.one()); });
  // Layer 1: score −β1 x(q)ᵀx(t), value x(t) into R  ⇒ x(q)ᵀr(q) is the Gibbs mean of the scores (L1).
  const LayerOffsets& l1 = L.layers()[0];
  w.matrix("layers[0].heads[0].Q", l1.heads[0].Q, d, E, [&](int r, int col) { return -delta(col, s.x(r)); });
  w.matrix("layers[0].heads[0].K", l1.heads[0].K, d, E, [&](int r, int col) { return delta(col, s.x(r)); });
  w.matrix("layers[0].heads[0].V", l1.heads[0].V, d, E, [&](int r, int col) { return delta(col, s.x(r)); });
  w.matrix("layers[0].W_O", l1.W_O, E, d, [&](int r, int col) { return delta(r, s.r(col)); });
  // Layer 2: CLS query reads ONE (= 1), key −g(t), value g(t), output into the CLS's X[0] (= 0 before).
  const LayerOffsets& l2 = L.layers()[1];
  w.matrix("layers[1].heads[0].Q", l2.heads[0].Q, 1, E, [&](int, int col) { return delta(col, s.one()); });
  w.matrix("layers[1].heads[0].K", l2.heads[0].K, 1, E, [&](int, int col) { return -delta(col, s.g()); });
  w.matrix("layers[1].heads[0].V", l2.heads[0].V, 1, E, [&](int, int col) { return delta(col, s.g()); });
  w.matrix("layers[1].W_O", l2.W_O, E, 1, [&](int r, int) { return delta(r, s.x(0)); });
  w.matrix("readout.W", L.readout().W, 1, E, [&](int, int col) { return delta(col, s.x(0)); });
  w.matrix("readout.b", L.readout().b, 1, 1, [](int, int) { return 0.0; });
  const double beta1 = model.temperatures[l1.heads[0].temperature], beta2 = model.temperatures[l2.heads[0].temperature];
  if (!(beta1 > 0) || !(beta2 > 0)) bad.push_back("temperatures: must be > 0");
}

// FFN_1: every unit reads x_i ± r_i (exactly) and only slot G is written. Groups the units by (i, sign)
// into the one-variable ReLU expansions φ(z) = Σ c_j ReLU(z − t_j) they compute.
std::map<std::pair<int, int>, ReluExpansion> group_ffn_units(const Model& model, const ParamLayout& L,
                                                             std::vector<std::string>& bad) {
  const MinDotSlots s{model.arch.d};
  const int E = s.E(), d = model.arch.d;
  const MapOffsets& f = L.layers()[0].ffn;
  const int p1 = f.width;
  WeightChecker w(model, bad);
  w.matrix("layers[0].ffn.W2 (rows other than G)", f.W2, E, p1, [&](int r, int col) {
    return r == s.g() ? model.params[row_major_index(f.W2, p1, r, col)] : 0.0;
  });
  w.matrix("layers[0].ffn.b2 (entries other than G)", f.b2, E, 1, [&](int r, int) {
    return r == s.g() ? model.params[f.b2 + r] : 0.0;
  });
  std::map<std::pair<int, int>, ReluExpansion> groups;
  int exponent_unused = 0;
  for (int j = 0; j < p1 && bad.empty(); ++j) {
    const double* row = &model.params[row_major_index(f.W1, E, j, 0)];
    // A unit computes ReLU(a(x_i ± r_i) + b) = a·ReLU(x_i ± r_i − t) with a > 0 and knot t = −b/a (the construction
    // uses a = 1/2 so that every weight is in [−1, 1]).
    int which = -1, sign = 0;
    double scale = 0.0;
    for (int i = 0; i < d && which < 0; ++i)
      if (row[s.x(i)] > 0.0 && (row[s.r(i)] == row[s.x(i)] || row[s.r(i)] == -row[s.x(i)]))
        which = i, sign = row[s.r(i)] > 0 ? 1 : -1, scale = row[s.x(i)];
    int nonzero = 0;
    for (int e = 0; e < E; ++e) nonzero += row[e] != 0.0;
    if (which < 0 || nonzero != 2) {
      bad.push_back("layers[0].ffn.W1[" + std::to_string(j) + "]: a unit must read exactly a(x_i + r_i) or a(x_i - r_i), a > 0");
      break;
    }
    auto& g = groups[{which, sign}];
    // Exact in the construction (a = 1/2); for another a the knot and coefficient round once each, which the
    // certificate does not cover: refuse anything but a power of two.
    if (std::frexp(scale, &exponent_unused) != 0.5) {
      bad.push_back("layers[0].ffn.W1[" + std::to_string(j) + "]: the input scale a must be a power of two");
      break;
    }
    g.knots.push_back(-model.params[f.b1 + j] / scale);
    g.coeffs.push_back(model.params[row_major_index(f.W2, p1, s.g(), j)] * scale);
  }
  return groups;
}

// The range of g(q) − x(q)ᵀr(q) over the domain, in arb. With x ∈ [0,1]^d and r an average of tokens,
// x_i + r_i ∈ [0, 2] and x_i − r_i ∈ [−1, 1]; g − xᵀr = b2[G] + Σ_i [φ_i+(x_i + r_i) − (x_i + r_i)²/4] +
// [φ_i−(x_i − r_i) + (x_i − r_i)²/4]. Each group gets the constant that makes it exact at its left end; what is
// left of b2[G] is added. The signed ranges are summed (L5's product rule: the + groups overshoot and the −
// groups undershoot, so the sum is within max(Σ highest, −Σ lowest), not Σ of both).
struct InterpolationRange {
  ArbBall lowest, highest;
  ArbBall sup_abs() const { return max(abs(lowest), abs(highest)); }
};

InterpolationRange bound_interpolation(const Model& model, const ParamLayout& L,
                                       std::map<std::pair<int, int>, ReluExpansion>& groups, long prec) {
  const MinDotSlots s{model.arch.d};
  ArbBall constant(model.params[L.layers()[0].ffn.b2 + s.g()], prec);
  ArbBall lowest(0.0, prec), highest(0.0, prec);
  for (auto& [key, phi] : groups) {
    const double lo = key.second > 0 ? 0.0 : -1.0, hi = key.second > 0 ? 2.0 : 1.0, coef = key.second * 0.25;
    phi.bias = coef * lo * lo - phi(lo);
    const ErrorRange e = certified_error_range_vs_square(phi, coef, lo, hi, prec);
    lowest += e.lowest.lower_end();
    highest += e.highest.upper_end();
    constant -= ArbBall(phi.bias, prec);
  }
  for (int i = 0; i < model.arch.d; ++i)
    for (int sign : {1, -1})
      if (!groups.count({i, sign})) {  // a missing square: its error is ∓(x ± r)²/4 ∈ [−1, 1]
        lowest -= ArbBall(1.0, prec);
        highest += ArbBall(1.0, prec);
      }
  return {lowest + constant, highest + constant};
}

}  // namespace

MinDotCertificate certify_two_layer_min_dot(const Model& model, int T, long prec) {
  MinDotCertificate c;
  if (!has_construction_shape(model.arch)) {
    c.violations.push_back("architecture: not the two-layer min-dot shape (E = 2d+2, one head per layer, affine encoder/readout)");
    return c;
  }
  const ParamLayout L(model.arch);
  check_fixed_weights(model, L, c.violations);
  auto groups = group_ffn_units(model, L, c.violations);
  if (!c.violations.empty()) return c;
  const InterpolationRange range = bound_interpolation(model, L, groups, prec);
  const ArbBall interp = range.sup_abs();

  const LayerOffsets &l1 = L.layers()[0], &l2 = L.layers()[1];
  const ArbBall beta1(model.temperatures[l1.heads[0].temperature], prec), beta2(model.temperatures[l2.heads[0].temperature], prec);
  const ArbBall S1 = gibbs_excess_sup(T, beta1), S2 = gibbs_excess_sup(T, beta2);
  const ArbBall total = interp + S1 + S2;
  const ArbBall simple = interp + gibbs_excess_simple_bound(T, beta1) + gibbs_excess_simple_bound(T, beta2);
  c.interpolation = interp.upper();
  c.layer1 = S1.upper();
  c.layer2 = S2.upper();
  c.total = total.upper();
  c.total_simple = simple.upper();
  c.lower_deviation = interp.upper();  // |g − xᵀr| ≤ interp in both directions
  c.hypotheses_ok = true;
  return c;
}

}  // namespace infoflow
