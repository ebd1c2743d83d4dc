#pragma once
// The InfoFlow planner (docs/theory.md §6). Heads act in one of three modes: max-position retrieval of one comparison
// family, global aggregation, or specific-position aggregation (needs positional encoding); residual
// connections keep what a position had. The planner propagates information sets I(p, l) and the partial
// reductions positions hold, searches every assignment of modes to heads (heads of one layer that do the
// same thing add nothing, so a layer's assignment is a set of modes; states that coincide after a layer are
// merged, keeping the cheaper), and prices a plan by the cost law:
//   - a max-retrieval step: polynomial in 1/ε, independent of T (exponent 1, the stated O(ε^-1));
//   - a k-th retrieval, k ≥ 2: exponent (T − k − 1)/(n + 1) (Theorem 2);
//   - decoding a quantity that couples T0 tokens of dimension d from an E-dimensional state: exponent
//     max(0, T0·d/E − 1) (Theorem 3);
// the plan's exponent is the largest of its steps'. Exponents are affine in T: a + b·T.
#include "numerics/target/target_syntax.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace infoflow {

inline constexpr int kMaxPlanLayers = 64;       // --layers
inline constexpr int kMaxPlanSize = 1000000;    // --E, --n, --d, --T
inline constexpr long kMaxPlanStates = 500000;   // search states tried, in all

struct PlanArchitecture {
  int layers = 1;
  std::vector<int> heads;  // per layer
  int E = 16;
  int n = 1;   // per-head value dimension
  int d = 1;
  int T = 16;
  bool positional = false;
  /// Throws InputError naming --layers, --heads, --E, --n, --d or --T.
  void validate() const;
  static PlanArchitecture make(int layers, std::vector<int> heads, int E, int d, int T, bool positional) {
    PlanArchitecture a;
    a.layers = layers;
    a.heads = std::move(heads);
    a.E = E;
    a.d = d;
    a.T = T;
    a.positional = positional;
    return a;
  }
};

struct CostExponent {
  double constant = 0.0;
  double per_T = 0.0;  // exponent = constant + per_T·T
  /// The exponent at T, clamped at 0: a cost exponent is never negative (a plan never costs less than
  /// a constant number of parameters).
  double at(int T) const { return std::max(0.0, constant + per_T * T); }
  bool grows() const { return per_T > 0; }
  std::string text() const;
};

enum class HeadMode { Retrieve, Global, Specific };

struct HeadAssignment {
  HeadMode mode = HeadMode::Global;
  int family = 0;  // Retrieve: 0-based family index
  std::string name() const;
};

struct PlanStep {
  int layer = 0;  // 1-based
  std::string head;
  std::string effect;
  CostExponent cost;
};

struct InfoSetRow {
  int layer = 0;                  // 0 = before the first layer
  std::string position;           // "token t" or "CLS"
  std::string set;                // symbolic I(p, l)
  std::string size;               // its size, as a function of T
};

struct Plan {
  bool feasible = false;
  bool bounded = false;  // cost exponent independent of T
  CostExponent cost;
  std::string summary;
  std::vector<std::vector<HeadAssignment>> assignment;  // per layer
  std::vector<PlanStep> steps;
  std::vector<InfoSetRow> info_sets;
  long searched_states = 0;
};

Plan plan_target(const ParsedTarget& target, const PlanArchitecture& arch);

std::string plan_table(const ParsedTarget& target, const PlanArchitecture& arch, const Plan& plan);
nlohmann::json plan_json(const ParsedTarget& target, const PlanArchitecture& arch, const Plan& plan);
/// Layers × positions with the retrieval and aggregation arrows, as Graphviz DOT.
std::string plan_dot(const ParsedTarget& target, const PlanArchitecture& arch, const Plan& plan);

}  // namespace infoflow
