#pragma once
// Theorem 3's upper side (docs/theory.md §5.4): an explicit ε-dependent encoder Φ and a two-layer decoder with weights
// in [−1, 1] that recover all T0·d coordinates to a certified sup error ε = 1/(2g), with the decoder's width counted.
//
// The encoder rounds each coordinate to the nearest of the g grid values (2i + 1)/(2g) (error ≤ ε), splits the
// C = T0·d grid digits into E blocks of r_e digits, and sends block e to one coordinate: the rank of its digits in the
// reflected (boustrophedon) Gray order of radix g, placed on m_e = g^{r_e} evenly spaced values in [−1/√E, 1/√E]
// (so ‖Φ‖ ≤ 1; 1/√E is the double snake_scale(E), rounded down so that E·s² ≤ 1). Consecutive ranks differ in one digit by one grid step, so each decoded digit is a piecewise-linear
// function of its block's coordinate with slope 0 or ±S_e, S_e = (m_e − 1)/(2g·s) ≈ (m_e − 1)√E/(2g). The decoder writes it as
// Σ_k c_k ReLU(u − u_k); a slope change of S_e needs ⌈S_e⌉ units with input weight 1 and output weight ±S_e/⌈S_e⌉.
// Breakpoints: u_0 and every u_k (0 < k < m_e − 1) where the moving digit changes, 2 g^{r_e − 1} − 1 of them. Width
//   W = Σ_e (2 g^{r_e − 1} − 1) ⌈S_e⌉ ≤ E (√E (2ε)^{−2(r−1)} + 2 (2ε)^{−(r−1)}),  r = ⌈T0·d/E⌉ (the largest block),
// so the cheapest decoder's exponent lies between the stated T0·d/E − 1 (the packing bound) and 2(⌈T0·d/E⌉ − 1).
#include "numerics/fit/decoder_fitter.hpp"
#include "theorems/aggregation_decoding/decoding_config.hpp"

#include <vector>

namespace infoflow {

struct SnakeCode {
  DecodingShape shape;
  long g = 2;                      // grid values per coordinate
  std::vector<int> block_digits;   // r_e: digits carried by state coordinate e (blocks of consecutive coordinates)
  std::vector<long> block_points;  // m_e = g^{r_e}
  double scale = 1;                // snake_scale(E): the encoder's 1/√E, rounded down
  int coords() const { return shape.T0 * shape.d; }
  double eps() const { return 1.0 / (2.0 * static_cast<double>(g)); }  // the grid rounding error
  /// The first coordinate index of block e.
  int block_start(int e) const;
};

/// Throws InputError when T0·d < E (nothing to aggregate), g < 2, or a block would exceed 10^6 lattice values.
SnakeCode make_snake_code(const DecodingShape& shape, long g);

/// The digits (0..g−1, digit 0 the fastest) of the configuration at `rank` in the reflected Gray order of radix g:
/// the closed form (digit j runs upwards when ⌊rank/g^{j+1}⌋ is even). The decoder is built from it.
std::vector<long> snake_digits(long rank, int r, long g);
/// The same order by enumeration (move the lowest digit that can move in its direction, reverse the directions of
/// the digits below it): the certificate's independent route to the targets. Returns every rank's digits in order.
std::vector<std::vector<long>> snake_sequence(int r, long g);

/// 1/√E rounded down in double far enough that E·s² <= 1 (checked in arb): the encoder's scale.
double snake_scale(int E);
/// Φ's coordinate e at a rank of block e: (2·rank/(m_e − 1) − 1)·snake_scale(E), as the double the encoder outputs.
double snake_coordinate(const SnakeCode& code, int e, long rank);
/// The grid value of digit c: (2c + 1)/(2g).
double snake_grid_value(const SnakeCode& code, long digit);

/// The decoder (ReLU, width W, every weight and bias in [−1, 1]) as an FfnDecoder: its size() is the parameter count.
FfnDecoder build_snake_decoder(const SnakeCode& code);
/// W from the closed form above, ⌈S_e⌉ taken in arb (throws ContractError if S_e is too close to an integer to tell);
/// a value above 10^6 means "too wide to build" (build_snake_decoder then throws InputError before allocating).
long snake_width_formula(const SnakeCode& code);

struct SnakeCertificate {
  long lattice_values = 0;          // Σ_e m_e values checked
  double configurations = 0;        // g^C configurations they cover
  bool block_structure = false;     // every unit feeding block e's outputs reads coordinate e only
  bool order_is_bijection = false;  // the enumerated order lists each block's g^{r_e} digit vectors exactly once
  bool weights_in_unit_box = false; // every weight and bias in [−1, 1]
  bool state_in_unit_ball = false;  // Σ_e max u_e² ≤ 1, in arb
  double lattice_error_upper = 0;   // max over the checked values of |decoder − grid value|, arb upper end
  double sup_error_upper = 0;       // ε + lattice_error_upper: the sup error over the whole cube [0, 1]^C
};

/// Evaluates the decoder in arb at every rank of every block (targets from snake_sequence, not from the closed form).
/// With the block structure, these values are the decoder's outputs at all g^C configurations.
SnakeCertificate certify_snake_decoder(const SnakeCode& code, const FfnDecoder& decoder, long prec = 128);

}  // namespace infoflow
