#include "numerics/scalar/noise_symbols.hpp"

#include "numerics/util/mutation.hpp"

#include <algorithm>

namespace infoflow {

namespace {
// The innermost scope's numbering on this thread, or none outside a scope.
thread_local std::optional<FreshNoiseSymbols::Numbering> numbering;
}  // namespace

FreshNoiseSymbols::FreshNoiseSymbols(std::size_t first) : outer_(numbering) {
  const std::size_t start = outer_ ? std::max(first, outer_->next) : first;
  numbering = Numbering{start, start};
}

FreshNoiseSymbols::~FreshNoiseSymbols() { numbering = outer_; }

std::optional<std::size_t> take_fresh_noise_symbol() {
  if (!numbering) return std::nullopt;
  // Mutant: every remainder named by the scope's first symbol, so independent remainders are taken as moving together.
  if (mutated(Mutant::FreshNoiseSymbolShared)) return numbering->first;
  return numbering->next++;
}

}  // namespace infoflow
