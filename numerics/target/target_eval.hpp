#pragma once
// Evaluation of a parsed target (target_syntax.hpp) on a sequence, in any scalar type of the numeric core
// (double, MPFR, arb balls, arb balls with gradients, affine forms), for `certify` (docs/certify.md). A ball input gives an
// enclosure of the target over the box it describes; min and max go through ScalarTraits::max_of, whose arb
// versions are enclosures (and, with gradients, Clarke-gradient hulls at ties).
//
// Supported: numbers, tokens x[t] (bound index or fixed position), + and − (of scalars, or of tokens
// componentwise), dot(a, b), norm(a), min/max/sum over token indices, kth_largest(k, a) over the free index of a.
// bil_i and lin_i stand for unspecified functions and cannot be evaluated.
#include "numerics/model/forward.hpp"
#include "numerics/scalar/affine_form.hpp"
#include "numerics/scalar/double_affine_form.hpp"
#include "numerics/scalar/dual_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/target/target_syntax.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace infoflow {

/// Throws InputError("--target", ...) when the target uses bil_i/lin_i or a family index, names a fixed position
/// outside 1..T, mixes tokens and scalars, or needs more than 1e7 evaluations of its kernel.
void check_target_evaluable(const ParsedTarget& t, int T, int d);

namespace target_eval_detail {

inline double sqrt_nonneg(double x) { return std::sqrt(x > 0 ? x : 0.0); }
inline mpfr::mpreal sqrt_nonneg(const mpfr::mpreal& x) { return x > 0 ? mpfr::sqrt(x) : mpfr::mpreal(0, x.get_prec()); }
using infoflow::sqrt_nonneg;  // ArbBall, DualBall and the affine forms

template <class S>
S min_of(const S& a, const S& b) {
  return -ScalarTraits<S>::max_of(-a, -b);
}

// A value: a scalar (size 1, token = false) or a token (size d).
template <class S>
struct Value {
  std::vector<S> v;
  bool token = false;
};

template <class S>
class Evaluator {
 public:
  Evaluator(const Sequence<S>& X, Precision p) : X_(X), p_(p) {}

  Value<S> eval(const TargetNode& n) {
    switch (n.kind) {
      case TargetNode::Kind::Number: return {{ScalarTraits<S>::from_double(n.value, p_)}, false};
      case TargetNode::Kind::Token: {
        const int t = n.index.empty() ? n.position - 1 : env_.at(n.index);
        return {X_[t], true};
      }
      case TargetNode::Kind::Add:
      case TargetNode::Kind::Sub: {
        Value<S> a = eval(*n.children[0]);
        const Value<S> b = eval(*n.children[1]);
        for (std::size_t i = 0; i < a.v.size(); ++i) {
          if (n.kind == TargetNode::Kind::Add) a.v[i] += b.v[i];
          else a.v[i] -= b.v[i];
        }
        return a;
      }
      case TargetNode::Kind::Call: return call(n);
      case TargetNode::Kind::Reduce: return reduce(n);
    }
    throw ContractError("evaluate_target", "unknown node");
  }

 private:
  Value<S> call(const TargetNode& n) {
    if (n.op == "dot") {
      const Value<S> a = eval(*n.children[0]), b = eval(*n.children[1]);
      S acc = a.v[0] * b.v[0];
      for (std::size_t i = 1; i < a.v.size(); ++i) acc += a.v[i] * b.v[i];
      return {{acc}, false};
    }
    if (n.op == "norm") {
      const Value<S> a = eval(*n.children[0]);
      S acc = a.v[0] * a.v[0];
      for (std::size_t i = 1; i < a.v.size(); ++i) acc += a.v[i] * a.v[i];
      return {{sqrt_nonneg(acc)}, false};
    }
    if (n.op == "kth_largest") {
      const int k = static_cast<int>(n.children[0]->value);
      const std::string var = free_index(*n.children[1]);
      std::vector<S> vals;
      for (int t = 0; t < static_cast<int>(X_.size()); ++t) {
        env_[var] = t;
        vals.push_back(eval(*n.children[1]).v[0]);
      }
      env_.erase(var);
      // Bubble passes move the k largest to the front in decreasing order (as KthLargest).
      for (int i = 0; i < k; ++i)
        for (std::size_t j = vals.size() - 1; j > static_cast<std::size_t>(i); --j) {
          const S hi = ScalarTraits<S>::max_of(vals[j - 1], vals[j]);
          const S lo = min_of(vals[j - 1], vals[j]);
          vals[j - 1] = hi;
          vals[j] = lo;
        }
      return {{vals[k - 1]}, false};
    }
    throw ContractError("evaluate_target", "function " + n.op + " was not refused by check_target_evaluable");
  }

  Value<S> reduce(const TargetNode& n) {
    const int T = static_cast<int>(X_.size());
    std::vector<int> idx(n.binders.size(), 0);
    Value<S> acc;
    bool first = true;
    while (true) {
      for (std::size_t b = 0; b < n.binders.size(); ++b) env_[n.binders[b]] = idx[b];
      const Value<S> v = eval(*n.children[0]);
      if (first) acc = v, first = false;
      else if (n.op == "sum") acc.v[0] += v.v[0];
      else if (n.op == "max") acc.v[0] = ScalarTraits<S>::max_of(acc.v[0], v.v[0]);
      else acc.v[0] = min_of(acc.v[0], v.v[0]);
      std::size_t b = 0;
      while (b < idx.size() && ++idx[b] == T) idx[b++] = 0;
      if (b == idx.size()) break;
    }
    for (const auto& b : n.binders) env_.erase(b);
    return acc;
  }

  std::string free_index(const TargetNode& n) const {
    if (n.kind == TargetNode::Kind::Token && !n.index.empty() && !env_.count(n.index)) return n.index;
    for (const auto& c : n.children) {
      const std::string s = free_index(*c);
      if (!s.empty()) return s;
    }
    return "";
  }

  const Sequence<S>& X_;
  Precision p_;
  std::map<std::string, int> env_;
};

}  // namespace target_eval_detail

/// The target's value on X (call check_target_evaluable first).
template <class S>
S evaluate_target(const ParsedTarget& t, const Sequence<S>& X, Precision p) {
  target_eval_detail::Evaluator<S> e(X, p);
  return e.eval(*t.root).v.at(0);
}

}  // namespace infoflow
