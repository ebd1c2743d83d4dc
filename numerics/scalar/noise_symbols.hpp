#pragma once
// Fresh noise symbols for affine forms (docs/certify.md §1, item 1d). An affine form over a box carries its inputs'
// noise symbols ε_0 … ε_{n−1} and a remainder e(x), |e(x)| ≤ r, that no symbol describes. Where one quantity is used
// several times (an attention output read by every unit of the next FFN), each use carries its own copy of r, and
// the copies add where the true remainders cancel. A fresh symbol names the remainder instead: e(x) = r·η_k(x) with
// η_k(x) = e(x)/r ∈ [−1, 1], one fixed function of x on the box, which every later use then shares.
//
// The symbols of one evaluation are numbered from n upward by a scope opened around it (one per box and per thread),
// and the numbering is structural (every non-constant form of a given kind takes a symbol, whatever its size), so
// which quantities share a symbol does not depend on roundings. Forms of different scopes must not meet: their
// symbols mean different functions. Outside a scope no symbol is handed out and remainders stay in the radius.
#include <cstddef>
#include <optional>

namespace infoflow {

/// While alive, fresh noise symbols are handed out on this thread from `first` (the number of input symbols) upward,
/// or from past the enclosing scope's last symbol when that is further: an inner scope never reuses an outer one's
/// symbols. The outer numbering resumes when an inner scope ends.
class FreshNoiseSymbols {
 public:
  struct Numbering {
    std::size_t first, next;
  };
  explicit FreshNoiseSymbols(std::size_t first);
  ~FreshNoiseSymbols();
  FreshNoiseSymbols(const FreshNoiseSymbols&) = delete;
  FreshNoiseSymbols& operator=(const FreshNoiseSymbols&) = delete;

 private:
  std::optional<Numbering> outer_;
};

/// The next fresh symbol of the innermost scope on this thread; none outside a scope.
std::optional<std::size_t> take_fresh_noise_symbol();

}  // namespace infoflow
