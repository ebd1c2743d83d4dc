#include "theorems/aggregation_decoding/aggregation_maps.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <Eigen/Dense>

#include <algorithm>

namespace infoflow {

GridSpec make_grid(int T0, int d, double eps) {
  GridSpec g;
  g.T0 = T0;
  g.d = d;
  g.eps = eps;
  g.per_coordinate = static_cast<long>(std::floor(1.0 / (3.0 * eps)));
  if (g.per_coordinate < 2) throw InputError("--eps", "expected eps <= 1/6 (at least two grid values per coordinate)");
  if (g.count() > 5e7) throw InputError("--eps", "the grid would hold more than 5e7 configurations; take a larger eps or fewer tokens");
  return g;
}

namespace {
std::vector<double> grid_point(const GridSpec& g, long k) {
  std::vector<double> x;
  for (long dg : g.digits(k)) x.push_back(3.0 * g.eps * static_cast<double>(dg));
  return x;
}
std::vector<ArbBall> grid_point_arb(const GridSpec& g, long k, long prec) {
  std::vector<ArbBall> x;
  const ArbBall step = ArbBall(3.0, prec) * ArbBall(g.eps, prec);
  for (long dg : g.digits(k)) x.push_back(step * ArbBall(static_cast<double>(dg), prec));
  return x;
}
long nearest_index(const GridSpec& g, const std::vector<double>& x) {
  long k = 0, place = 1;
  for (double v : x) {
    const long dg = std::clamp(std::lround(v / (3.0 * g.eps)), 0L, g.per_coordinate - 1);
    k += dg * place;
    place *= g.per_coordinate;
  }
  return k;
}
}  // namespace

// ---- random linear ----
RandomLinearMap::RandomLinearMap(int coords, int E, std::uint64_t seed) : coords_(coords), E_(E), A_(static_cast<std::size_t>(coords) * E) {
  SplitMix64 rng(seed);
  double fro = 0;
  for (auto& a : A_) {
    a = rng.normal();
    fro += a * a;
  }
  // ‖A x‖ ≤ ‖A‖_F ‖x‖ ≤ ‖A‖_F √coords on the cube: scale into the unit ball.
  const double s = 1.0 / (std::sqrt(fro) * std::sqrt(static_cast<double>(coords)));
  for (auto& a : A_) a *= s;
}
std::vector<double> RandomLinearMap::apply_point(const GridSpec&, const std::vector<double>& x) const {
  std::vector<double> v(E_, 0.0);
  for (int e = 0; e < E_; ++e)
    for (int j = 0; j < coords_; ++j) v[e] += A_[e * coords_ + j] * x[j];
  return v;
}
std::vector<double> RandomLinearMap::apply(const GridSpec& g, long k) const { return apply_point(g, grid_point(g, k)); }
std::vector<ArbBall> RandomLinearMap::apply_arb(const GridSpec& g, long k, long prec) const {
  const auto x = grid_point_arb(g, k, prec);
  std::vector<ArbBall> v(E_, ArbBall(0.0, prec));
  for (int e = 0; e < E_; ++e)
    for (int j = 0; j < coords_; ++j) v[e] += ArbBall(A_[e * coords_ + j], prec) * x[j];
  return v;
}
std::vector<double> RandomLinearMap::kernel_direction() const {
  if (coords_ <= E_) return {};
  Eigen::MatrixXd A(E_, coords_);
  for (int e = 0; e < E_; ++e)
    for (int j = 0; j < coords_; ++j) A(e, j) = A_[e * coords_ + j];
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeFullV);
  const Eigen::VectorXd w = svd.matrixV().col(coords_ - 1);
  std::vector<double> out(w.data(), w.data() + coords_);
  if (mutated(Mutant::KernelDirectionPerturbed)) out[0] += 1e-3;
  return out;
}

// ---- positional average of a nonlinear encoder ----
PositionalAverageMap::PositionalAverageMap(int T0, int d, int E, std::uint64_t seed) : T0_(T0), d_(d), E_(E) {
  SplitMix64 rng(seed);
  // Frequencies in [0.5, 1.5] and phases keeping ω·x + b inside (0, π): each feature is monotone in each
  // coordinate (for d = 1 the single-token map is injective), so what a decoder cannot recover is due to
  // aggregation, not to a folding encoder.
  for (int i = 0; i < E * d; ++i) omega_.push_back(rng.uniform(0.5, 1.5));
  const double top = std::max(0.1, 3.141592653589793 - 0.1 - 1.5 * d);
  for (int e = 0; e < E; ++e) phase_.push_back(rng.uniform(0.1, top));
  for (int i = 0; i < T0 * E; ++i) pos_.push_back(rng.uniform(-1.0, 1.0));
}
template <class S>
std::vector<S> PositionalAverageMap::eval(const std::vector<S>& x, Precision p) const {
  using std::cos;
  std::vector<S> v(E_, ScalarTraits<S>::from_double(0.0, p));
  const S scale = ScalarTraits<S>::from_double(1.0, p) / ScalarTraits<S>::from_double(T0_ * std::sqrt(static_cast<double>(E_)), p);
  for (int t = 0; t < T0_; ++t)
    for (int e = 0; e < E_; ++e) {
      S arg = ScalarTraits<S>::from_double(phase_[e], p);
      for (int i = 0; i < d_; ++i) arg += ScalarTraits<S>::from_double(omega_[e * d_ + i], p) * x[t * d_ + i];
      v[e] += scale * ScalarTraits<S>::from_double(pos_[t * E_ + e], p) * cos(arg);
    }
  return v;
}
std::vector<double> PositionalAverageMap::apply_point(const GridSpec&, const std::vector<double>& x) const { return eval(x, Precision{53}); }
std::vector<double> PositionalAverageMap::apply(const GridSpec& g, long k) const { return eval(grid_point(g, k), Precision{53}); }
std::vector<ArbBall> PositionalAverageMap::apply_arb(const GridSpec& g, long k, long prec) const {
  return eval(grid_point_arb(g, k, prec), Precision{prec});
}

// ---- lattice packing ----
LatticePackingMap::LatticePackingMap(const GridSpec& g, int E) : E_(E), m_(2) {
  const double N = g.count();
  while (std::pow(static_cast<double>(m_), E) < N) ++m_;
}
std::vector<double> LatticePackingMap::apply(const GridSpec&, long k) const {
  std::vector<double> v(E_);
  for (int e = 0; e < E_; ++e) {
    v[e] = (2.0 * static_cast<double>(k % m_) / static_cast<double>(m_ - 1) - 1.0) / std::sqrt(static_cast<double>(E_));
    k /= m_;
  }
  return v;
}
std::vector<ArbBall> LatticePackingMap::apply_arb(const GridSpec&, long k, long prec) const {
  std::vector<ArbBall> v;
  const ArbBall root = sqrt(ArbBall(static_cast<double>(E_), prec)), one(1.0, prec);
  for (int e = 0; e < E_; ++e) {
    v.push_back((ArbBall(2.0 * static_cast<double>(k % m_), prec) / ArbBall(static_cast<double>(m_ - 1), prec) - one) / root);
    k /= m_;
  }
  return v;
}
std::vector<double> LatticePackingMap::apply_point(const GridSpec& g, const std::vector<double>& x) const {
  return apply(g, nearest_index(g, x));
}

}  // namespace infoflow
