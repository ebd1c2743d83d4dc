#include "numerics/target/target_eval.hpp"

namespace infoflow {

namespace {

[[noreturn]] void refuse(const TargetNode& n, const std::string& why) {
  throw InputError("--target", "column " + std::to_string(n.column) + ": " + why);
}

// The node's kind (true: a token of dimension d, false: a scalar) and the number of kernel evaluations it costs.
struct Shape {
  bool token = false;
  double cost = 1;
};

bool has_free_index(const TargetNode& n, std::vector<std::string>& bound) {
  if (n.kind == TargetNode::Kind::Token && !n.index.empty() &&
      std::find(bound.begin(), bound.end(), n.index) == bound.end())
    return true;
  const std::size_t before = bound.size();
  if (n.kind == TargetNode::Kind::Reduce) bound.insert(bound.end(), n.binders.begin(), n.binders.end());
  bool free = false;
  for (const auto& c : n.children) free = free || has_free_index(*c, bound);
  bound.resize(before);
  return free;
}

Shape shape_of(const TargetNode& n, int T, int d, std::vector<std::string>& bound) {
  // A token of dimension 1 is a scalar for every purpose.
  auto scalar_like = [&](const Shape& s) { return !s.token || d == 1; };
  switch (n.kind) {
    case TargetNode::Kind::Number: return {false, 1};
    case TargetNode::Kind::Token:
      if (n.index.empty() && (n.position < 1 || n.position > T))
        refuse(n, "x[" + std::to_string(n.position) + "] is outside the sequence (T = " + std::to_string(T) + ")");
      return {true, 1};
    case TargetNode::Kind::Add:
    case TargetNode::Kind::Sub: {
      const Shape a = shape_of(*n.children[0], T, d, bound), b = shape_of(*n.children[1], T, d, bound);
      if (a.token != b.token && d != 1) refuse(n, "'+' and '-' need two scalars or two tokens");
      return {a.token && b.token, a.cost + b.cost};
    }
    case TargetNode::Kind::Call: {
      if (n.op == "bil" || n.op == "lin")
        refuse(n, n.op + "_" + n.subscript + " is an unspecified function: certify needs a concrete target (dot, norm, "
                  "kth_largest, min/max/sum, +, -)");
      if (n.op == "dot") {
        const Shape a = shape_of(*n.children[0], T, d, bound), b = shape_of(*n.children[1], T, d, bound);
        if (a.token != b.token && d != 1) refuse(n, "dot needs two tokens");
        return {false, a.cost + b.cost};
      }
      if (n.op == "norm") {
        const Shape a = shape_of(*n.children[0], T, d, bound);
        return {false, a.cost};
      }
      if (n.op == "kth_largest") {
        const int k = static_cast<int>(n.children[0]->value);
        if (k > T) refuse(n, "kth_largest with k = " + std::to_string(k) + " > T = " + std::to_string(T));
        std::vector<std::string> b = bound;
        if (!has_free_index(*n.children[1], b)) refuse(n, "kth_largest(k, a) needs an index of a that it ranges over");
        const Shape a = shape_of(*n.children[1], T, d, bound);
        if (!scalar_like(a)) refuse(n, "kth_largest needs scalar values (a token only when d = 1)");
        return {false, a.cost * T + static_cast<double>(k) * T};
      }
      refuse(n, "unknown function " + n.op);
    }
    case TargetNode::Kind::Reduce: {
      if (!n.family_var.empty()) refuse(n, "a family index (sum_{i=1..D}) ranges over unspecified functions");
      const std::size_t before = bound.size();
      bound.insert(bound.end(), n.binders.begin(), n.binders.end());
      const Shape a = shape_of(*n.children[0], T, d, bound);
      bound.resize(before);
      if (!scalar_like(a)) refuse(n, n.op + " needs scalar values (a token only when d = 1)");
      return {false, a.cost * std::pow(static_cast<double>(T), static_cast<double>(n.binders.size()))};
    }
  }
  refuse(n, "unknown node");
}

}  // namespace

void check_target_evaluable(const ParsedTarget& t, int T, int d) {
  if (!t.root) throw InputError("--target", "empty target");
  std::vector<std::string> bound;
  const Shape s = shape_of(*t.root, T, d, bound);
  if (s.token && d != 1) throw InputError("--target", "the target is a token, not a number (wrap it in dot, norm or a reduction)");
  if (s.cost > 1e7)
    throw InputError("--target", "one evaluation would take about " + std::to_string(static_cast<long long>(s.cost)) +
                                     " kernel evaluations at T = " + std::to_string(T) + " (limit 1e7)");
}

}  // namespace infoflow
