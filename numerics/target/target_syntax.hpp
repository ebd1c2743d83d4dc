#pragma once
// Targets by comparison structure (docs/theory.md §6): a small text syntax, parsed into a reduction tree.
//
//   expr      := term (('+' | '-') term)*
//   term      := reduction | call | token | number | '(' expr ')'
//   reduction := ('min' | 'max' | 'sum') '_' '{' binders '}' term
//   binders   := ident (',' ident)*            -- token indices, reduced over all T positions
//              | ident '=' int '..' int        -- a family index (sum_{i=1..D})
//   call      := dot(a, b) | bil_i(a, b) | norm(a) | lin_i(a) | kth_largest(k, a)
//   token     := 'x' '[' (ident | int) ']'     -- x[t] for a bound index, x[3] for a fixed position
//
// Every error names its column and what was expected (InputError, exit 2 on the CLI). Limits
// (docs/input-limits.md): nesting depth, literal length, integer size and family count below.
#include <memory>
#include <string>
#include <vector>

namespace infoflow {

inline constexpr int kMaxTargetNesting = 64;         // nested terms (parentheses, reductions, calls)
inline constexpr std::size_t kMaxTargetLiteral = 32; // characters in one number
inline constexpr int kMaxTargetInteger = 1000000;    // positions, ranks and range bounds
inline constexpr int kMaxTargetFamilies = 1000000;   // comparison families D, in all
inline constexpr int kMaxTargetTerms = 512;          // + and - operators in a whole target
inline constexpr std::size_t kMaxTargetLength = 65536;  // characters in a target

struct TargetNode {
  enum class Kind { Reduce, Call, Token, Number, Add, Sub } kind = Kind::Number;
  std::string op;                      // Reduce: min|max|sum; Call: function name (without subscript)
  std::string subscript;               // Call: bil_i → "i"
  std::vector<std::string> binders;    // Reduce over token indices
  std::string family_var;              // Reduce over a family index (sum_{i=1..D})
  int family_from = 0, family_to = 0;
  std::string index;                   // Token: bound variable, or empty for a fixed position
  int position = 0;                    // Token: fixed position (1-based)
  double value = 0.0;                  // Number
  std::vector<std::unique_ptr<TargetNode>> children;
  int column = 0;
};

/// What the planner needs to know about a target (docs/theory.md §6).
struct ComparisonStructure {
  int order = 0;              // tokens the kernel compares at once (β′); 0 for no reduction over positions
  int families = 1;           // D: independent comparison families (β1)
  std::string reduction;      // outermost token reduction: min|max|sum|"" (none)
  std::vector<int> fixed_positions;  // positions named explicitly (x[1] + x[2] + x[3])
  bool linear_in_tokens = false;     // e.g. a plain sum of tokens: read off an average linearly
  int kth_rank = 0;                  // kth_largest(k, ·): k; 0 otherwise
  std::string comparisons;    // number of comparisons as a function of T, e.g. "T^2"
  int comparisons_exponent = 0;
  std::string tree;           // the reduction tree, printed
};

struct ParsedTarget {
  std::string text;
  std::unique_ptr<TargetNode> root;
  ComparisonStructure structure;
};

/// Throws InputError("--target", "column C: expected ..., got ...").
ParsedTarget parse_target(const std::string& text);

}  // namespace infoflow
