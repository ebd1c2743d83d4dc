#include "theorems/aggregation_decoding/snake_decoder.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "theorems/aggregation_decoding/packing_bound.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace infoflow {

namespace {

constexpr long kMaxBlockValues = 1000000;
constexpr long kMaxWidth = 1000000;

long checked_power(long g, int r) {
  long m = 1;
  for (int i = 0; i < r; ++i) {
    if (m > kMaxBlockValues / g)
      throw InputError("construction", "g^r would exceed " + std::to_string(kMaxBlockValues) +
                                           " lattice values per state coordinate; take fewer digits or a larger eps");
    m *= g;
  }
  return m;
}

// S_e = (1/g)/Δu = (m_e − 1)/(2g·s) with s = snake_scale(E), as an arb ball.
ArbBall block_slope(const SnakeCode& code, int e, long prec) {
  return ArbBall(static_cast<double>(code.block_points[e] - 1), prec) /
         (ArbBall(2.0 * static_cast<double>(code.g), prec) * ArbBall(code.scale, prec));
}

}  // namespace

int SnakeCode::block_start(int e) const {
  int s = 0;
  for (int i = 0; i < e; ++i) s += block_digits[i];
  return s;
}

SnakeCode make_snake_code(const DecodingShape& shape, long g) {
  validate_decoding_arguments(shape.T0, shape.d, shape.E, 0.1);
  const int C = shape.T0 * shape.d;
  if (C < shape.E)
    throw InputError("construction", "expected T0*d >= E (a state at least as wide as the tokens needs no packing), got T0*d = " +
                                         std::to_string(C) + ", E = " + std::to_string(shape.E));
  if (g < 2) throw InputError("construction", "expected at least 2 grid values per coordinate, got " + std::to_string(g));
  SnakeCode code;
  code.shape = shape;
  code.g = g;
  code.scale = snake_scale(shape.E);
  for (int e = 0; e < shape.E; ++e) {
    code.block_digits.push_back(C / shape.E + (e < C % shape.E ? 1 : 0));
    code.block_points.push_back(checked_power(g, code.block_digits.back()));
  }
  return code;
}

std::vector<long> snake_digits(long rank, int r, long g) {
  std::vector<long> digits(r);
  long below = 1;  // g^j
  for (int j = 0; j < r; ++j) {
    const long a = (rank / below) % g;
    // How many times a higher digit has moved before this rank: each move reverses digit j's direction.
    const long sweeps = mutated(Mutant::SnakeGrayParity) ? rank / below : rank / (below * g);
    digits[j] = sweeps % 2 == 0 ? a : g - 1 - a;
    below *= g;
  }
  return digits;
}

std::vector<std::vector<long>> snake_sequence(int r, long g) {
  const long m = checked_power(g, r);
  std::vector<long> digits(r, 0), direction(r, 1);
  std::vector<std::vector<long>> out;
  out.reserve(static_cast<std::size_t>(m));
  out.push_back(digits);
  for (long step = 1; step < m; ++step) {
    int j = 0;
    while (j < r && (digits[j] + direction[j] < 0 || digits[j] + direction[j] >= g)) ++j;
    if (j == r) throw ContractError("snake_sequence", "no digit can move before the last rank");
    digits[j] += direction[j];
    for (int i = 0; i < j; ++i) direction[i] = -direction[i];
    out.push_back(digits);
  }
  return out;
}

double snake_scale(int E) {
  // 1/√E rounded in double can exceed 1/√E (E·s² > 1 for E = 3, 6, 10, …): step towards 0 until E·s² <= 1 in arb.
  double s = 1.0 / std::sqrt(static_cast<double>(E));
  while ((ArbBall(E, 128) * ArbBall(s, 128) * ArbBall(s, 128)).upper() > 1.0) s = std::nextafter(s, 0.0);
  return s;
}

double snake_coordinate(const SnakeCode& code, int e, long rank) {
  const double m1 = static_cast<double>(code.block_points[e] - 1);
  return (2.0 * static_cast<double>(rank) / m1 - 1.0) * code.scale;
}

double snake_grid_value(const SnakeCode& code, long digit) {
  return (2.0 * static_cast<double>(digit) + 1.0) / (2.0 * static_cast<double>(code.g));
}

long snake_width_formula(const SnakeCode& code) {
  long width = 0;
  for (int e = 0; e < code.shape.E; ++e) {
    const ArbBall S = block_slope(code, e, 128);
    const double up = std::ceil(S.lower());
    if (!(up >= S.upper())) throw ContractError("snake_width_formula", "S_e is too close to an integer to take its ceiling");
    const long breakpoints = 2 * (code.block_points[e] / code.g) - 1;
    if (up > static_cast<double>(kMaxWidth) * 4 || breakpoints > kMaxWidth * 4) return kMaxWidth + 1;  // too wide to build
    width += breakpoints * static_cast<long>(up);
    if (width > kMaxWidth) return kMaxWidth + 1;
  }
  return width;
}

FfnDecoder build_snake_decoder(const SnakeCode& code) {
  const int E = code.shape.E, C = code.coords();
  if (snake_width_formula(code) > kMaxWidth)
    throw InputError("construction", "the decoder would have more than " + std::to_string(kMaxWidth) + " units; take a larger eps");
  struct Unit {
    int e;
    double bias;
    std::vector<std::pair<int, double>> out;  // (output coordinate, weight)
  };
  std::vector<Unit> units;
  std::vector<double> b2(C, 0.0);
  for (int e = 0; e < E; ++e) {
    const int r = code.block_digits[e], start = code.block_start(e);
    const long m = code.block_points[e];
    const double S = static_cast<double>(m - 1) / (2.0 * static_cast<double>(code.g) * code.scale);
    const long copies = static_cast<long>(std::ceil(S));
    const std::vector<long> first = snake_digits(0, r, code.g);
    for (int j = 0; j < r; ++j) b2[start + j] = snake_grid_value(code, first[j]);
    // slope[j] on the step before breakpoint k, then the step after it: a change is a breakpoint.
    std::vector<double> before(r, 0.0), after(r, 0.0);
    std::vector<long> here = first;
    for (long k = 0; k + 1 < m; ++k) {
      const std::vector<long> next = snake_digits(k + 1, r, code.g);
      std::vector<std::pair<int, double>> change;
      for (int j = 0; j < r; ++j) {
        after[j] = static_cast<double>(next[j] - here[j]) * S;
        if (after[j] != before[j]) change.push_back({start + j, after[j] - before[j]});
      }
      if (!change.empty()) {
        const long n = mutated(Mutant::SnakeCopiesMerged) ? 1 : copies;
        for (auto& [j, c] : change) c /= static_cast<double>(n);
        for (long i = 0; i < n; ++i) units.push_back({e, -snake_coordinate(code, e, k), change});
      }
      before = after;
      here = next;
    }
  }
  FfnDecoder dec;
  dec.E = E;
  dec.p = static_cast<int>(units.size());
  dec.out = C;
  dec.params.assign(dec.size(), 0.0);
  const std::size_t p = units.size();
  double* W1 = dec.params.data();
  double* b1 = W1 + p * E;
  double* W2 = b1 + p;
  double* bias2 = W2 + static_cast<std::size_t>(C) * p;
  for (std::size_t i = 0; i < p; ++i) {
    W1[i * E + units[i].e] = 1.0;
    b1[i] = units[i].bias;
    for (const auto& [j, w] : units[i].out) W2[static_cast<std::size_t>(j) * p + i] = w;
  }
  std::copy(b2.begin(), b2.end(), bias2);
  return dec;
}

SnakeCertificate certify_snake_decoder(const SnakeCode& code, const FfnDecoder& dec, long prec) {
  const int E = code.shape.E, C = code.coords();
  if (dec.E != E || dec.out != C || dec.params.size() != dec.size())
    throw ContractError("certify_snake_decoder", "decoder: expected E inputs, T0*d outputs and size() parameters");
  const std::size_t p = static_cast<std::size_t>(dec.p);
  const double* W1 = dec.params.data();
  const double* b1 = W1 + p * E;
  const double* W2 = b1 + p;
  const double* b2 = W2 + static_cast<std::size_t>(C) * p;
  SnakeCertificate cert;
  cert.weights_in_unit_box = std::all_of(dec.params.begin(), dec.params.end(), [](double w) { return std::fabs(w) <= 1.0; });
  cert.block_structure = true;
  cert.order_is_bijection = true;
  cert.configurations = std::pow(static_cast<double>(code.g), C);
  ArbBall worst(0.0, prec), radius2(0.0, prec);
  for (int e = 0; e < E; ++e) {
    const int r = code.block_digits[e], start = code.block_start(e);
    // Units that feed block e's outputs, and the block structure they must have.
    std::vector<std::size_t> feeding;
    for (std::size_t i = 0; i < p; ++i) {
      bool feeds = false;
      for (int j = 0; j < r; ++j) feeds |= W2[static_cast<std::size_t>(start + j) * p + i] != 0.0;
      if (!feeds) continue;
      feeding.push_back(i);
      for (int f = 0; f < E; ++f) cert.block_structure &= f == e || W1[i * E + f] == 0.0;
    }
    const std::vector<std::vector<long>> sequence = snake_sequence(r, code.g);
    // The enumerated order lists every digit vector of the block exactly once: then its values cover all g^r.
    std::vector<char> seen(static_cast<std::size_t>(code.block_points[e]), 0);
    for (const auto& digits : sequence) {
      long index = 0;
      for (int j = r - 1; j >= 0; --j) index = index * code.g + digits[j];
      cert.order_is_bijection &= seen[static_cast<std::size_t>(index)] == 0;
      seen[static_cast<std::size_t>(index)] = 1;
    }
    cert.order_is_bijection &= static_cast<long>(sequence.size()) == code.block_points[e];
    double largest = 0.0;  // an upper bound of |u| over the block's values
    for (std::size_t rank = 0; rank < sequence.size(); ++rank) {
      const ArbBall u(snake_coordinate(code, e, static_cast<long>(rank)), prec);
      largest = std::max(largest, abs(u).upper());
      std::vector<ArbBall> out;
      for (int j = 0; j < r; ++j) out.emplace_back(b2[start + j], prec);
      for (std::size_t i : feeding) {
        const ArbBall pre = ArbBall(W1[i * E + e], prec) * u + ArbBall(b1[i], prec);
        if (pre.upper() <= 0.0) continue;
        const ArbBall act = pre.lower() >= 0.0 ? pre : max(pre, ArbBall(0.0, prec));
        for (int j = 0; j < r; ++j)
          if (const double w = W2[static_cast<std::size_t>(start + j) * p + i]; w != 0.0) out[j] += ArbBall(w, prec) * act;
      }
      for (int j = 0; j < r; ++j)
        worst = max(worst, abs(out[j] - ArbBall(2.0 * static_cast<double>(sequence[rank][j]) + 1.0, prec) /
                                            ArbBall(2.0 * static_cast<double>(code.g), prec)));
    }
    radius2 += ArbBall(largest, prec) * ArbBall(largest, prec);
    cert.lattice_values += static_cast<long>(sequence.size());
  }
  cert.state_in_unit_ball = radius2.upper() <= 1.0;
  cert.lattice_error_upper = worst.upper();
  cert.sup_error_upper = (ArbBall(1.0, prec) / ArbBall(2.0 * static_cast<double>(code.g), prec) + worst.upper_end()).upper();
  return cert;
}

}  // namespace infoflow
