#pragma once
// A target function F(X) of a token sequence, available in every scalar type the toolkit uses:
// double for fits, MPFR for sampled errors, arb for certificates. Built from one generic lambda.
#include "numerics/model/forward.hpp"

#include <functional>
#include <string>

namespace infoflow {

struct Target {
  std::string name;
  std::function<double(const Sequence<double>&)> f64;
  std::function<mpfr::mpreal(const Sequence<mpfr::mpreal>&)> fmpfr;
  std::function<ArbBall(const Sequence<ArbBall>&)> farb;

  double operator()(const Sequence<double>& X) const { return f64(X); }
  mpfr::mpreal operator()(const Sequence<mpfr::mpreal>& X) const { return fmpfr(X); }
  ArbBall operator()(const Sequence<ArbBall>& X) const { return farb(X); }
};

/// `generic` is a lambda taking `const auto&` (a Sequence<S>) and returning S.
template <class Generic>
Target make_target(std::string name, Generic generic) {
  return Target{std::move(name), generic, generic, generic};
}

}  // namespace infoflow
