#pragma once
// Concrete aggregation maps Φ: [0,1]^{T0·d} → unit ball of R^E (docs/theory.md §5 (b)), written once for double and arb.
//   RandomLinearMap        v = s·A·vec(X), A Gaussian, s = 1/(‖A‖_F √(T0 d)) so ‖v‖ ≤ 1. Loses information
//                          outright when T0·d > E (a kernel direction).
//   PositionalAverageMap   v = (1/(T0 √E)) Σ_t p_t ⊙ φ(x(t)), φ_j(x) = cos(ω_j·x + b_j), fixed positional
//                          vectors p_t ∈ [−1, 1]^E: the specific-position mode of docs/theory.md §6 on a nonlinear encoder.
//                          Continuous, so for T0·d > E it cannot be injective (invariance of domain): its
//                          decoders then plateau, which the suite reports as information loss.
//   LatticePackingMap      configuration k ↦ the k-th point of a cubic lattice of side m = ⌈N^{1/E}⌉ inscribed in
//                          the ball: spacing 2/((m − 1)√E), within a constant of the best packing.
#include "numerics/scalar/scalar_traits.hpp"
#include "numerics/util/rng.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace infoflow {

struct GridSpec {
  int T0 = 1, d = 1;
  double eps = 0.1;
  long per_coordinate = 0;  // g = ⌊1/(3ε)⌋
  int coords() const { return T0 * d; }
  double count() const { return std::pow(static_cast<double>(per_coordinate), coords()); }
  /// The configuration with index k: coordinate j = 3ε·(digit j of k in base g).
  std::vector<long> digits(long k) const {
    std::vector<long> dg(coords());
    for (int j = 0; j < coords(); ++j) {
      dg[j] = k % per_coordinate;
      k /= per_coordinate;
    }
    return dg;
  }
};

GridSpec make_grid(int T0, int d, double eps);

class AggregationMap {
 public:
  virtual ~AggregationMap() = default;
  virtual std::string name() const = 0;
  virtual int E() const = 0;
  /// Φ of grid configuration k, in double and as an arb enclosure.
  virtual std::vector<double> apply(const GridSpec& g, long k) const = 0;
  virtual std::vector<ArbBall> apply_arb(const GridSpec& g, long k, long prec) const = 0;
  /// Φ of an arbitrary point of the cube (used to fit decoders); lattice map: nearest grid configuration.
  virtual std::vector<double> apply_point(const GridSpec& g, const std::vector<double>& x) const = 0;
};

class RandomLinearMap : public AggregationMap {
 public:
  RandomLinearMap(int coords, int E, std::uint64_t seed);
  std::string name() const override { return "random-linear"; }
  int E() const override { return E_; }
  std::vector<double> apply(const GridSpec& g, long k) const override;
  std::vector<ArbBall> apply_arb(const GridSpec& g, long k, long prec) const override;
  std::vector<double> apply_point(const GridSpec& g, const std::vector<double>& x) const override;
  /// A unit vector w with A w = 0 (exists when coords > E), and the largest sup-norm gap between two cube
  /// points with the same image along it: half of it is an error no decoder can beat.
  std::vector<double> kernel_direction() const;
  const std::vector<double>& matrix() const { return A_; }

 private:
  int coords_, E_;
  std::vector<double> A_;  // E × coords, already scaled
};

class PositionalAverageMap : public AggregationMap {
 public:
  PositionalAverageMap(int T0, int d, int E, std::uint64_t seed);
  std::string name() const override { return "positional-average"; }
  int E() const override { return E_; }
  std::vector<double> apply(const GridSpec& g, long k) const override;
  std::vector<ArbBall> apply_arb(const GridSpec& g, long k, long prec) const override;
  std::vector<double> apply_point(const GridSpec& g, const std::vector<double>& x) const override;

 private:
  template <class S>
  std::vector<S> eval(const std::vector<S>& x, Precision p) const;
  int T0_, d_, E_;
  std::vector<double> omega_, phase_, pos_;  // omega: E × d, phase: E, pos: T0 × E
};

class LatticePackingMap : public AggregationMap {
 public:
  LatticePackingMap(const GridSpec& g, int E);
  std::string name() const override { return "lattice-packing"; }
  int E() const override { return E_; }
  std::vector<double> apply(const GridSpec& g, long k) const override;
  std::vector<ArbBall> apply_arb(const GridSpec& g, long k, long prec) const override;
  std::vector<double> apply_point(const GridSpec& g, const std::vector<double>& x) const override;
  long side() const { return m_; }

 private:
  int E_;
  long m_;
};

}  // namespace infoflow
