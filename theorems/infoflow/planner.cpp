#include "theorems/infoflow/planner.hpp"
#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace infoflow {

using nlohmann::json;

void PlanArchitecture::validate() const {
  // Limits (docs/input-limits.md): the search is polynomial in layers and exponential in nothing
  // the user controls beyond the family count, which the planner bounds separately.
  if (layers < 1 || layers > kMaxPlanLayers)
    throw InputError("--layers", "expected 1 <= layers <= " + std::to_string(kMaxPlanLayers) + ", got " + std::to_string(layers));
  if (static_cast<int>(heads.size()) != layers)
    throw InputError("--heads", "expected one head count per layer (" + std::to_string(layers) + " values), got " +
                                    std::to_string(heads.size()));
  for (int h : heads)
    if (h < 1 || h > 64) throw InputError("--heads", "expected head counts between 1 and 64, got " + std::to_string(h));
  const auto in_range = [](int v, const char* name, const char* what) {
    if (v < 1 || v > kMaxPlanSize)
      throw InputError(name, std::string("expected ") + what + " between 1 and " + std::to_string(kMaxPlanSize) +
                                 ", got " + std::to_string(v));
  };
  in_range(E, "--E", "a state dimension E");
  in_range(n, "--n", "a per-head dimension n");
  in_range(d, "--d", "a token dimension d");
  in_range(T, "--T", "a sequence length T");
}

std::string CostExponent::text() const {
  std::ostringstream o;
  o << std::setprecision(4);
  if (per_T == 0) o << std::max(0.0, constant);
  else {
    // A line that is negative at small T is clamped there: say so.
    if (constant < 0) o << "max(0, ";
    o << per_T << "*T";
    if (constant > 0) o << " + " << constant;
    if (constant < 0) o << " - " << -constant << ")";
  }
  return o.str();
}

std::string HeadAssignment::name() const {
  switch (mode) {
    case HeadMode::Retrieve: return "max-retrieval of family " + std::to_string(family + 1);
    case HeadMode::Global: return "global aggregation";
    default: return "specific-position aggregation";
  }
}

namespace {

CostExponent max_cost(const CostExponent& a, const CostExponent& b) {
  if (a.per_T != b.per_T) return a.per_T > b.per_T ? a : b;
  return a.constant >= b.constant ? a : b;
}
bool cheaper(const CostExponent& a, const CostExponent& b) {
  if (a.per_T != b.per_T) return a.per_T < b.per_T;
  return a.constant < b.constant;
}
CostExponent decode_cost(double tokens_per_T, double fixed_tokens, int d, int E) {
  // max(0, T0·d/E − 1) with T0 = tokens_per_T·T + fixed_tokens, E the numbers the decoded state carries.
  CostExponent c{fixed_tokens * d / E - 1.0, tokens_per_T * d / static_cast<double>(E)};
  if (c.per_T == 0 && c.constant < 0) c.constant = 0;
  return c;
}

// What the CLS state can carry about the tokens: every head of every layer adds a value mean (n numbers) and a
// normaliser (1), so at most (n+1)·Σ_l h_l numbers, and never more than the state dimension E (docs/theory.md §6,
// the segment lemma of docs/lower-bounds.md §1).
int cls_capacity(const PlanArchitecture& a) {
  int heads = 0;
  for (int h : a.heads) heads += h;
  const long numbers = static_cast<long>(heads) * (a.n + 1);
  return static_cast<int>(std::min<long>(a.E, numbers));
}

// Max-position retrieval: polynomial in 1/eps with an exponent independent of T (Theorem 1's construction).
CostExponent retrieval_cost() { return CostExponent{1.0, mutated(Mutant::PlannerRetrievalGrows) ? 0.05 : 0.0}; }

// What a class of positions knows: all tokens are alike (the target is symmetric in them), the CLS differs.
struct Knowledge {
  bool all = false;        // I(p) = every position
  bool specific = false;   // I(p) ⊇ the target's fixed positions
  unsigned partial = 0;    // families whose inner reduction (own token fixed) this position holds
  unsigned complete = 0;   // families fully reduced at this position
  int retrieved = 0;       // retrieval steps that added a token to I(p)
  bool operator<(const Knowledge& o) const {
    return std::tie(all, specific, partial, complete, retrieved) < std::tie(o.all, o.specific, o.partial, o.complete, o.retrieved);
  }
};

struct SearchState {
  Knowledge tok, cls;
  CostExponent cost;
  int heads_used = 0;
  std::vector<std::vector<HeadAssignment>> assignment;
  std::vector<PlanStep> steps;
};

struct Context {
  const ComparisonStructure& s;
  const PlanArchitecture& a;
  unsigned all_families() const { return s.families >= 32 ? ~0u : (1u << s.families) - 1; }
};

// One head acting for a query class, reading the states before the layer.
void apply(const Context& c, const HeadAssignment& h, const Knowledge& tok_before, Knowledge& q, bool query_is_token,
           CostExponent& cost, std::string& effect) {
  const int k = c.s.kth_rank;
  switch (h.mode) {
    case HeadMode::Global:
      q.all = true;
      effect = "I(p) gains every position (average of all tokens)";
      return;
    case HeadMode::Specific:
      q.specific = !mutated(Mutant::PlannerIgnoresSpecific);
      effect = "I(p) gains the fixed positions";
      return;
    case HeadMode::Retrieve: {
      const unsigned bit = 1u << h.family;
      q.retrieved += 1;
      if (k >= 2) {  // a k-th retrieval: possible, at Theorem 2's cost
        q.complete |= bit;
        cost = max_cost(cost, CostExponent{-(k + 1.0) / (c.a.n + 1), 1.0 / (c.a.n + 1)});
        effect = "retrieves the " + std::to_string(k) + "-th largest (Theorem 2's stated, unverified cost)";
      } else if (c.s.order <= 1) {
        q.complete |= bit;
        cost = max_cost(cost, retrieval_cost());
        effect = "retrieves the arg-max token: family " + std::to_string(h.family + 1) + " complete";
      } else if (c.s.order == 2 || (c.s.order == 3 && mutated(Mutant::PlannerOrder3AsOrder2))) {
        if (tok_before.partial & bit) {
          q.complete |= bit;
          cost = max_cost(cost, retrieval_cost());
          effect = "retrieves the token whose partial is extreme: family " + std::to_string(h.family + 1) + " complete";
        } else if (query_is_token) {
          q.partial |= bit;
          cost = max_cost(max_cost(cost, retrieval_cost()), decode_cost(0, 2, c.a.d, c.a.E));
          effect = "retrieves the best partner of its own token: inner reduction of family " + std::to_string(h.family + 1);
        } else {
          effect = "retrieves one token (no partial to reduce over yet)";
        }
      } else {
        // Order ≥ 3: a retrieval fixes all but one index to tokens the query already holds; the partials
        // needed are indexed by (order − 1)-tuples, which T positions cannot hold.
        effect = "retrieves one token (order " + std::to_string(c.s.order) + " needs partials over tuples: no progress)";
      }
      return;
    }
  }
}

// Cost and feasibility of reading the target off the CLS state at the end.
bool final_cost(const Context& c, const Knowledge& cls, CostExponent& cost, std::string& how) {
  const auto& s = c.s;
  if (s.order == 0) {  // fixed positions only
    if (!c.a.positional) {
      how = "the target names fixed positions; without positional encoding the model is permutation-invariant";
      return false;
    }
    if (cls.specific) {
      cost = max_cost(cost, s.linear_in_tokens ? CostExponent{0.0, 0.0}
                                               : decode_cost(0, static_cast<double>(s.fixed_positions.size()), c.a.d, cls_capacity(c.a)));
      how = s.linear_in_tokens ? "a linear read-out of the specific-position average" : "decode the fixed positions";
      return true;
    }
    if (cls.all) {
      cost = max_cost(cost, decode_cost(1, 0, c.a.d, cls_capacity(c.a)));
      how = "decode the fixed positions from a global average of all T tokens";
      return true;
    }
    how = "the CLS state never sees the fixed positions";
    return false;
  }
  if ((cls.complete & c.all_families()) == c.all_families()) {
    how = "every comparison family is reduced at the CLS position; their sum is read linearly";
    return true;
  }
  if (cls.all) {
    cost = max_cost(cost, decode_cost(1, 0, c.a.d, cls_capacity(c.a)));
    how = "decode the target from a global average of all T tokens (couples T tokens)";
    return true;
  }
  how = "the CLS position has neither the reduced families nor the tokens";
  return false;
}

std::vector<HeadAssignment> modes_for(const Context& c) {
  std::vector<HeadAssignment> m;
  for (int i = 0; i < c.s.families; ++i) m.push_back({HeadMode::Retrieve, i});
  m.push_back({HeadMode::Global, 0});
  if (c.a.positional && !c.s.fixed_positions.empty()) m.push_back({HeadMode::Specific, 0});
  return m;
}

std::string set_text(const Knowledge& k, bool token, const ComparisonStructure& s) {
  if (k.all) return "{1..T}";
  std::string out = token ? "{t" : "{";
  bool first = !token;
  for (int r = 0; r < k.retrieved; ++r) {
    out += (first ? "" : ", ") + std::string("s*") + std::to_string(r + 1) + (token ? "(t)" : "");
    first = false;
  }
  if (k.specific)
    for (int p : s.fixed_positions) {
      out += (first ? "" : ", ") + std::to_string(p);
      first = false;
    }
  return out + "}";
}

}  // namespace

Plan plan_target(const ParsedTarget& target, const PlanArchitecture& arch) {
  arch.validate();
  // Every subset of modes is tried per layer and state: 2^(D+2) subsets. Beyond 10 families that search
  // would no longer answer within a second; say so rather than silently prune (and kMaxPlanStates bounds
  // the whole search).
  if (target.structure.families > 10)
    throw InputError("--target", "the planner searches at most 10 comparison families, got " + std::to_string(target.structure.families));
  const Context c{target.structure, arch};
  const auto modes = modes_for(c);
  std::map<std::pair<Knowledge, Knowledge>, SearchState> frontier;
  frontier[{Knowledge{}, Knowledge{}}] = SearchState{};
  Plan plan;
  for (int l = 0; l < arch.layers; ++l) {
    const bool last = l + 1 == arch.layers;
    std::map<std::pair<Knowledge, Knowledge>, SearchState> next;
    const unsigned subsets = 1u << modes.size();
    for (const auto& [key, st] : frontier) {
      for (unsigned mask = 0; mask < subsets; ++mask) {
        if (__builtin_popcount(mask) > arch.heads[l]) continue;
        SearchState ns = st;
        ns.assignment.emplace_back();
        Knowledge tok = st.tok, cls = st.cls;
        for (std::size_t m = 0; m < modes.size(); ++m) {
          if (!(mask & (1u << m))) continue;
          const HeadAssignment& h = modes[m];
          ns.assignment.back().push_back(h);
          ++ns.heads_used;
          std::string effect_tok, effect_cls;
          // Tokens are queries only in layers that are not the last (docs/theory.md §1).
          if (!last) apply(c, h, st.tok, tok, true, ns.cost, effect_tok);
          apply(c, h, st.tok, cls, false, ns.cost, effect_cls);
          const std::string effect = last ? "CLS: " + effect_cls : "tokens: " + effect_tok + "; CLS: " + effect_cls;
          ns.steps.push_back({l + 1, h.name(), effect, CostExponent{}});
        }
        ns.tok = tok;
        ns.cls = cls;
        // The number of distinct states is bounded by the knowledge they can hold, but with many heads and
        // families the product grows fast: refuse a search that would not answer in seconds.
        if (++plan.searched_states > kMaxPlanStates)
          throw InputError("--heads", "the plan search exceeds " + std::to_string(kMaxPlanStates) +
                                          " states; use fewer layers, heads or comparison families");
        auto it = next.find({tok, cls});
        if (it == next.end() || cheaper(ns.cost, it->second.cost) ||
            (!cheaper(it->second.cost, ns.cost) && ns.heads_used < it->second.heads_used))
          next[{tok, cls}] = ns;
      }
    }
    frontier = std::move(next);
  }
  // The best feasible end state.
  const SearchState* best = nullptr;
  CostExponent best_cost;
  std::string best_how, fail_how = "no assignment of modes gives the CLS position enough information";
  for (const auto& [key, st] : frontier) {
    CostExponent cost = st.cost;
    std::string how;
    if (!final_cost(c, st.cls, cost, how)) {
      fail_how = how;
      continue;
    }
    if (!best || cheaper(cost, best_cost) || (!cheaper(best_cost, cost) && st.heads_used < best->heads_used)) {
      best = &st;
      best_cost = cost;
      best_how = how;
    }
  }
  if (!best) {
    plan.summary = "no plan: " + fail_how;
    return plan;
  }
  plan.feasible = true;
  plan.cost = best_cost;
  plan.bounded = !best_cost.grows();
  plan.assignment = best->assignment;
  plan.steps = best->steps;
  plan.steps.push_back({arch.layers, "readout", best_how, best_cost});
  plan.summary = plan.bounded ? "bounded-cost plan: exponent " + best_cost.text() + ", independent of T"
                              : "no bounded-cost plan: the best exponent grows with T as " + best_cost.text() + " (" +
                                    std::to_string(best_cost.at(arch.T)) + " at T = " + std::to_string(arch.T) + ")";
  // Information sets along the chosen plan, replayed.
  // Sizes are upper bounds: a retrieval adds the retrieved position's whole set (as it was before the layer).
  Knowledge tok, cls;
  long tok_size = 1, cls_size = 0;
  const long S = static_cast<long>(target.structure.fixed_positions.size());
  plan.info_sets.push_back({0, "token t", "{t}", "1"});
  plan.info_sets.push_back({0, "CLS", "{}", "0"});
  for (int l = 0; l < arch.layers; ++l) {
    const bool last = l + 1 == arch.layers;
    Knowledge ntok = tok, ncls = cls;
    long ntok_size = tok_size, ncls_size = cls_size;
    CostExponent dummy;
    std::string e;
    for (const auto& h : plan.assignment[l]) {
      if (!last) apply(c, h, tok, ntok, true, dummy, e);
      apply(c, h, tok, ncls, false, dummy, e);
      const long gain = h.mode == HeadMode::Retrieve ? tok_size : h.mode == HeadMode::Specific ? S : arch.T;
      if (!last) ntok_size = std::min<long>(arch.T, ntok_size + gain);
      ncls_size = std::min<long>(arch.T, ncls_size + gain);
    }
    tok = ntok;
    cls = ncls;
    tok_size = tok.all ? arch.T : ntok_size;
    cls_size = cls.all ? arch.T : ncls_size;
    plan.info_sets.push_back({l + 1, "token t", set_text(tok, true, target.structure), "<= " + std::to_string(tok_size)});
    plan.info_sets.push_back({l + 1, "CLS", set_text(cls, false, target.structure), "<= " + std::to_string(cls_size)});
  }
  return plan;
}

std::string plan_table(const ParsedTarget& t, const PlanArchitecture& a, const Plan& p) {
  std::ostringstream o;
  const auto& s = t.structure;
  o << "target: " << t.text << "\n";
  o << "comparison structure: order " << s.order << ", families (dimension of comparison) " << s.families
    << ", comparisons " << s.comparisons << (s.kth_rank ? ", rank k = " + std::to_string(s.kth_rank) : "")
    << (s.fixed_positions.empty() ? "" : ", fixed positions") << "\nreduction tree:\n" << s.tree;
  o << "architecture: " << a.layers << " layer(s), heads";
  for (int h : a.heads) o << " " << h;
  o << ", E = " << a.E << ", n = " << a.n << ", d = " << a.d << ", T = " << a.T
    << ", positional encoding " << (a.positional ? "on" : "off") << "\n\n";
  o << p.summary << "\n";
  if (!p.feasible) return o.str();
  o << "\n" << std::left << std::setw(7) << "layer" << std::setw(34) << "head" << "effect\n";
  for (const auto& st : p.steps) o << std::left << std::setw(7) << st.layer << std::setw(34) << st.head << st.effect << "\n";
  o << "\n" << std::left << std::setw(7) << "layer" << std::setw(10) << "position" << std::setw(30) << "I(p, l)" << "size\n";
  for (const auto& r : p.info_sets) o << std::left << std::setw(7) << r.layer << std::setw(10) << r.position << std::setw(30) << r.set << r.size << "\n";
  o << "\ncost exponent (M ~ eps^-exponent): " << p.cost.text() << "\n";
  return o.str();
}

json plan_json(const ParsedTarget& t, const PlanArchitecture& a, const Plan& p) {
  const auto& s = t.structure;
  json steps = json::array(), sets = json::array(), layers = json::array();
  for (const auto& st : p.steps) steps.push_back({{"layer", st.layer}, {"head", st.head}, {"effect", st.effect}});
  for (const auto& r : p.info_sets) sets.push_back({{"layer", r.layer}, {"position", r.position}, {"set", r.set}, {"size", r.size}});
  for (const auto& l : p.assignment) {
    json heads = json::array();
    for (const auto& h : l) heads.push_back(h.name());
    layers.push_back(heads);
  }
  return {{"target", t.text},
          {"structure", {{"order", s.order}, {"families", s.families}, {"comparisons", s.comparisons},
                         {"comparisons_exponent_in_T", s.comparisons_exponent}, {"kth_rank", s.kth_rank},
                         {"fixed_positions", s.fixed_positions}, {"reduction", s.reduction}, {"tree", s.tree}}},
          {"architecture", {{"layers", a.layers}, {"heads", a.heads}, {"E", a.E}, {"n", a.n}, {"d", a.d}, {"T", a.T},
                            {"positional", a.positional}}},
          {"feasible", p.feasible}, {"bounded", p.bounded},
          {"cost_exponent", {{"constant", p.cost.constant}, {"per_T", p.cost.per_T}, {"at_T", p.cost.at(a.T)}}},
          {"summary", p.summary}, {"assignment", layers}, {"steps", steps}, {"information_sets", sets},
          {"searched_states", p.searched_states}};
}

std::string plan_dot(const ParsedTarget& t, const PlanArchitecture& a, const Plan& p) {
  std::ostringstream o;
  o << "digraph infoflow {\n  rankdir=BT;\n  node [shape=box, fontname=\"Helvetica\"];\n";
  o << "  label=\"" << t.text << "\\n" << p.summary << "\";\n";
  const int shown = std::min(a.T, 4);
  for (int l = 0; l <= a.layers; ++l) {
    o << "  { rank=same;";
    for (int i = 1; i <= shown; ++i) o << " \"t" << i << "_l" << l << "\"";
    o << " \"cls_l" << l << "\"; }\n";
    for (int i = 1; i <= shown; ++i) o << "  \"t" << i << "_l" << l << "\" [label=\"x" << (i == shown && a.T > shown ? "T" : std::to_string(i)) << " / layer " << l << "\"];\n";
    o << "  \"cls_l" << l << "\" [label=\"CLS / layer " << l << "\", style=bold];\n";
  }
  for (int l = 1; l <= a.layers && p.feasible; ++l) {
    for (int i = 1; i <= shown; ++i) o << "  \"t" << i << "_l" << l - 1 << "\" -> \"t" << i << "_l" << l << "\" [style=dotted, label=\"residual\"];\n";
    o << "  \"cls_l" << l - 1 << "\" -> \"cls_l" << l << "\" [style=dotted];\n";
    for (const auto& h : p.assignment[l - 1]) {
      const std::string colour = h.mode == HeadMode::Retrieve ? "red" : h.mode == HeadMode::Global ? "blue" : "darkgreen";
      const bool last = l == a.layers;
      if (h.mode == HeadMode::Retrieve) {
        if (!last) o << "  \"t2_l" << l - 1 << "\" -> \"t1_l" << l << "\" [color=" << colour << ", label=\"" << h.name() << "\"];\n";
        o << "  \"t1_l" << l - 1 << "\" -> \"cls_l" << l << "\" [color=" << colour << ", label=\"" << h.name() << "\"];\n";
      } else {
        for (int i = 1; i <= shown; ++i)
          if (h.mode == HeadMode::Global || std::count(t.structure.fixed_positions.begin(), t.structure.fixed_positions.end(), i))
            o << "  \"t" << i << "_l" << l - 1 << "\" -> \"cls_l" << l << "\" [color=" << colour << "];\n";
      }
    }
  }
  o << "}\n";
  return o.str();
}

}  // namespace infoflow
