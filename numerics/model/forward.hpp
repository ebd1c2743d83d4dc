#pragma once
// The forward pass of docs/theory.md §1, written once for every scalar type. Explicitly instantiated for
// double, mpfr::mpreal and ArbBall in forward.cpp.
#include "numerics/model/model.hpp"
#include "numerics/util/errors.hpp"

#include <string>
#include <vector>

namespace infoflow {

template <class S>
using Vec = std::vector<S>;

/// An input sequence: T tokens, each of dimension d.
template <class S>
using Sequence = std::vector<Vec<S>>;

/// The sequence of T tokens of dimension d whose coordinates are `flat`, token by token (flat[t·d + i] = X[t][i]):
/// how a box's or a search's input vectors become a model's input.
template <class S>
Sequence<S> as_sequence(const std::vector<S>& flat, int T, int d) {
  if (T < 0 || d < 0 || flat.size() != static_cast<std::size_t>(T) * static_cast<std::size_t>(d))
    throw ContractError("as_sequence", "T·d coordinates for T tokens of dimension d");
  Sequence<S> X(T);
  for (int t = 0; t < T; ++t)
    X[t].assign(flat.begin() + static_cast<std::ptrdiff_t>(t) * d, flat.begin() + static_cast<std::ptrdiff_t>(t + 1) * d);
  return X;
}

template <class S>
struct ForwardResult {
  S y;
  Vec<S> cls_state;  // the pre-readout state c (the FFN input that lemma L4 speaks of)
  /// Point types (double, MPFR): the first stage whose state holds a NaN or an infinity ("the encoder",
  /// "layer 2", "the readout"), or "" when every state was finite. A non-finite state means this precision did not
  /// compute the real-number function (an overflow); a finite `y` after one would be a laundered wrong answer.
  std::string nonfinite_at = {};
};

template <class S>
ForwardResult<S> forward(const ModelT<S>& model, const ParamLayout& layout, const Sequence<S>& X);

template <class S>
ForwardResult<S> forward(const ModelT<S>& model, const Sequence<S>& X) {
  return forward(model, ParamLayout(model.arch), X);
}

/// The token state u(t) = P(x, t) before the first layer (encoder plus positional row t, 0-based).
template <class S>
Vec<S> token_state(const ModelT<S>& model, const ParamLayout& layout, const Vec<S>& x, int t);

/// Converts a double sequence to scalar type S at precision p.
template <class S>
Sequence<S> convert_sequence(const std::vector<std::vector<double>>& X, Precision p) {
  Sequence<S> r;
  r.reserve(X.size());
  for (const auto& x : X) {
    Vec<S> v;
    v.reserve(x.size());
    for (double xi : x) v.push_back(ScalarTraits<S>::from_double(xi, p));
    r.push_back(std::move(v));
  }
  return r;
}

}  // namespace infoflow
