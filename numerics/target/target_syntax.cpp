#include "numerics/target/target_syntax.hpp"

#include "numerics/util/utf8.hpp"

#include "numerics/util/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

namespace infoflow {

namespace {

struct Tok {
  enum class T { Ident, Number, Sym, End } type = T::End;
  std::string text;
  int column = 0;
};

[[noreturn]] void fail(int column, const std::string& expected, const std::string& got) {
  throw InputError("--target", "column " + std::to_string(column) + ": expected " + expected + ", got " + got);
}

// The character starting at s[i] for an error message: itself and its code point when it is valid UTF-8 (a whole
// multi-byte sequence, never one byte of it, so the message stays valid UTF-8), else the byte in hex.
std::string describe_character(const std::string& s, std::size_t i) {
  const unsigned char lead = static_cast<unsigned char>(s[i]);
  const Utf8Char c = utf8_at(s, i);
  char hex[16];
  if (c.length == 0) {
    std::snprintf(hex, sizeof hex, "0x%02X", lead);
    return std::string("the byte ") + hex + " (not UTF-8 text)";
  }
  if (c.length == 1 && !std::isprint(lead)) {
    std::snprintf(hex, sizeof hex, "0x%02X", lead);
    return std::string("the control character ") + hex;
  }
  std::snprintf(hex, sizeof hex, "U+%04lX", c.code);
  return "'" + s.substr(i, static_cast<std::size_t>(c.length)) + "' (" + hex + ")";
}

std::vector<Tok> lex(const std::string& s) {
  std::vector<Tok> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const int col = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      // Identifiers may hold '_' (bil_i, kth_largest) but stop before "_{" (min_{...}).
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || (s[j] == '_' && !(j + 1 < s.size() && s[j + 1] == '{'))))
        ++j;
      out.push_back({Tok::T::Ident, s.substr(i, j - i), col});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || (s[j] == '.' && !(j + 1 < s.size() && s[j + 1] == '.'))))
        ++j;
      if (j - i > kMaxTargetLiteral)
        fail(col, "a number of at most " + std::to_string(kMaxTargetLiteral) + " characters",
             "a literal of " + std::to_string(j - i));
      out.push_back({Tok::T::Number, s.substr(i, j - i), col});
      i = j;
    } else if (c == '.' && i + 1 < s.size() && s[i + 1] == '.') {
      out.push_back({Tok::T::Sym, "..", col});
      i += 2;
    } else if (std::string("_{}()[],+-=").find(c) != std::string::npos) {
      out.push_back({Tok::T::Sym, std::string(1, c), col});
      ++i;
    } else {
      fail(col, "a name, a number or one of _ { } ( ) [ ] , + - = ..", describe_character(s, i));
    }
  }
  out.push_back({Tok::T::End, "", static_cast<int>(s.size()) + 1});
  return out;
}

std::string describe(const Tok& t) { return t.type == Tok::T::End ? "the end of the target" : "'" + t.text + "'"; }

class Parser {
 public:
  explicit Parser(std::vector<Tok> toks) : t_(std::move(toks)) {}

  std::unique_ptr<TargetNode> parse() {
    auto e = expr();
    if (peek().type != Tok::T::End) fail(peek().column, "'+', '-' or the end of the target", describe(peek()));
    return e;
  }

 private:
  const Tok& peek() const { return t_[i_]; }
  Tok take() { return t_[i_++]; }
  bool is_sym(const std::string& s) const { return peek().type == Tok::T::Sym && peek().text == s; }
  Tok expect_sym(const std::string& s, const std::string& what) {
    if (!is_sym(s)) fail(peek().column, what, describe(peek()));
    return take();
  }
  Tok expect_ident(const std::string& what) {
    if (peek().type != Tok::T::Ident) fail(peek().column, what, describe(peek()));
    return take();
  }
  // A whole number in [0, kMaxTargetInteger]; larger values are errors, never wrapped.
  int expect_int(const std::string& what) {
    const Tok& t = peek();
    if (t.type != Tok::T::Number || t.text.find('.') != std::string::npos) fail(t.column, what, describe(t));
    int v = 0;
    const auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || end != t.text.data() + t.text.size() || v > kMaxTargetInteger)
      fail(t.column, what + " (at most " + std::to_string(kMaxTargetInteger) + ")", describe(t));
    take();
    return v;
  }

  // Every recursion passes through term(): bounding its depth bounds the stack and the tree.
  struct DepthGuard {
    int& depth;
    DepthGuard(int& d, int column) : depth(d) {
      if (++depth > kMaxTargetNesting)
        fail(column, "at most " + std::to_string(kMaxTargetNesting) + " nested terms", "deeper nesting");
    }
    ~DepthGuard() { --depth; }
  };

  std::unique_ptr<TargetNode> expr() {
    auto left = term();
    while (is_sym("+") || is_sym("-")) {
      const Tok op = take();
      // A chain of sums is a left-deep tree, walked recursively: bound the + and - in the whole target, so
      // that nesting (64) times chain length cannot build a deep tree either.
      if (++sum_operators_ > kMaxTargetTerms)
        fail(op.column, "at most " + std::to_string(kMaxTargetTerms) + " + and - operators in a target", "more");
      auto n = std::make_unique<TargetNode>();
      n->kind = op.text == "+" ? TargetNode::Kind::Add : TargetNode::Kind::Sub;
      n->column = op.column;
      n->children.push_back(std::move(left));
      n->children.push_back(term());
      left = std::move(n);
    }
    return left;
  }

  std::unique_ptr<TargetNode> term() {
    const Tok& t = peek();
    const DepthGuard guard(depth_, t.column);
    if (is_sym("(")) {
      take();
      auto e = expr();
      expect_sym(")", "')' to close the '(' opened at column " + std::to_string(t.column));
      return e;
    }
    if (t.type == Tok::T::Number) {
      auto n = std::make_unique<TargetNode>();
      n->kind = TargetNode::Kind::Number;
      n->column = t.column;
      const Tok num = take();
      char* end = nullptr;
      n->value = std::strtod(num.text.c_str(), &end);
      if (end != num.text.c_str() + num.text.size() || !std::isfinite(n->value))
        fail(num.column, "a decimal number", describe(num));
      return n;
    }
    if (t.type != Tok::T::Ident) fail(t.column, "a reduction, a function, x[...], a number or '('", describe(t));
    const Tok id = take();
    if (id.text == "min" || id.text == "max" || id.text == "sum") return reduction(id);
    if (id.text == "x") return token(id);
    return call(id);
  }

  std::unique_ptr<TargetNode> reduction(const Tok& id) {
    auto n = std::make_unique<TargetNode>();
    n->kind = TargetNode::Kind::Reduce;
    n->op = id.text;
    n->column = id.column;
    expect_sym("_", "'_{' after '" + id.text + "'");
    const Tok open = expect_sym("{", "'{' after '" + id.text + "_'");
    const Tok first = expect_ident("an index name");
    if (is_sym("=")) {
      take();
      n->family_var = first.text;
      n->family_from = expect_int("an integer lower bound");
      expect_sym("..", "'..' in a range i=1..D");
      n->family_to = expect_int("an integer upper bound (the family count D)");
      if (n->family_to < n->family_from) fail(first.column, "a range with lower <= upper", "an empty range");
      if (n->family_to - n->family_from + 1 > kMaxTargetFamilies)
        fail(first.column, "at most " + std::to_string(kMaxTargetFamilies) + " comparison families in a range",
             std::to_string(n->family_to - n->family_from + 1));
      if (id.text != "sum") fail(first.column, "a family range only under 'sum'", "'" + id.text + "'");
    } else {
      n->binders.push_back(first.text);
      while (is_sym(",")) {
        take();
        n->binders.push_back(expect_ident("an index name after ','").text);
      }
    }
    expect_sym("}", "'}' to close the '{' opened at column " + std::to_string(open.column));
    n->children.push_back(term());
    return n;
  }

  std::unique_ptr<TargetNode> token(const Tok& id) {
    auto n = std::make_unique<TargetNode>();
    n->kind = TargetNode::Kind::Token;
    n->column = id.column;
    const Tok open = expect_sym("[", "'[' after 'x'");
    if (peek().type == Tok::T::Ident) n->index = take().text;
    else n->position = expect_int("an index name or a position >= 1 inside x[...]");
    if (n->index.empty() && n->position < 1) fail(open.column + 1, "a position >= 1", std::to_string(n->position));
    expect_sym("]", "']' to close the '[' opened at column " + std::to_string(open.column));
    return n;
  }

  std::unique_ptr<TargetNode> call(const Tok& id) {
    std::string name = id.text, sub;
    const auto us = name.rfind('_');
    if (name != "kth_largest" && us != std::string::npos) {
      sub = name.substr(us + 1);
      name = name.substr(0, us);
    }
    static const std::vector<std::pair<std::string, int>> known = {{"dot", 2}, {"bil", 2}, {"norm", 1}, {"lin", 1}, {"kth_largest", 2}};
    const auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.first == name; });
    if (it == known.end())
      fail(id.column, "min, max, sum, x, or a known function (dot, bil_i, norm, lin_i, kth_largest)", "'" + id.text + "'");
    auto n = std::make_unique<TargetNode>();
    n->kind = TargetNode::Kind::Call;
    n->op = name;
    n->subscript = sub;
    n->column = id.column;
    const Tok open = expect_sym("(", "'(' after '" + id.text + "'");
    n->children.push_back(expr());
    while (is_sym(",")) {
      take();
      n->children.push_back(expr());
    }
    expect_sym(")", "')' to close the '(' opened at column " + std::to_string(open.column));
    if (static_cast<int>(n->children.size()) != it->second)
      fail(id.column, id.text + " with " + std::to_string(it->second) + " argument(s)",
           std::to_string(n->children.size()) + " argument(s)");
    if (name == "kth_largest" && n->children[0]->kind != TargetNode::Kind::Number)
      fail(n->children[0]->column, "the rank k as a number (kth_largest(k, x[t]))", "an expression");
    if (name == "kth_largest") {
      const double k = n->children[0]->value;
      if (!(k >= 1 && k <= kMaxTargetInteger && k == std::floor(k)))
        fail(n->children[0]->column, "a whole rank 1 <= k <= " + std::to_string(kMaxTargetInteger), "k = " + std::to_string(k));
    }
    return n;
  }

  std::vector<Tok> t_;
  std::size_t i_ = 0;
  int depth_ = 0;
  int sum_operators_ = 0;
};

// ---- comparison structure ----

void check_bound(const TargetNode& n, std::set<std::string>& bound, bool under_kth) {
  if (n.kind == TargetNode::Kind::Token && !n.index.empty() && !bound.count(n.index) && !under_kth)
    fail(n.column, "an index bound by an enclosing min/max/sum (or inside kth_largest)", "the free index '" + n.index + "'");
  std::vector<std::string> added;
  if (n.kind == TargetNode::Kind::Reduce) {
    for (const auto& b : n.binders)
      if (bound.insert(b).second) added.push_back(b);
    if (!n.family_var.empty() && bound.insert(n.family_var).second) added.push_back(n.family_var);
  }
  const bool kth = under_kth || (n.kind == TargetNode::Kind::Call && n.op == "kth_largest");
  for (const auto& c : n.children) check_bound(*c, bound, kth);
  for (const auto& b : added) bound.erase(b);
}

// The number of token indices reduced along the deepest chain of reductions.
int token_order(const TargetNode& n) {
  int inner = 0;
  for (const auto& c : n.children) inner = std::max(inner, token_order(*c));
  if (n.kind == TargetNode::Kind::Reduce) return inner + static_cast<int>(n.binders.size());
  if (n.kind == TargetNode::Kind::Call && n.op == "kth_largest") return std::max(inner, 1);
  return inner;
}

// Appends to `out` (returning strings and concatenating them made printing quadratic in the size).
void print_tree(const TargetNode& n, int depth, std::string& out) {
  const std::string pad(2 * depth, ' ');
  std::string line;
  switch (n.kind) {
    case TargetNode::Kind::Reduce: {
      std::string b;
      for (const auto& v : n.binders) b += (b.empty() ? "" : ",") + v;
      if (!n.family_var.empty()) b = n.family_var + "=" + std::to_string(n.family_from) + ".." + std::to_string(n.family_to);
      line = n.op + " over {" + b + "}" + (n.family_var.empty() ? " (token positions)" : " (comparison families)");
      break;
    }
    case TargetNode::Kind::Call: line = "kernel " + n.op + (n.subscript.empty() ? "" : "_" + n.subscript); break;
    case TargetNode::Kind::Token: line = n.index.empty() ? "x[" + std::to_string(n.position) + "] (fixed position)" : "x[" + n.index + "]"; break;
    case TargetNode::Kind::Number: line = "constant"; break;
    case TargetNode::Kind::Add: line = "+"; break;
    case TargetNode::Kind::Sub: line = "-"; break;
  }
  out += pad;
  out += line;
  out += '\n';
  for (const auto& c : n.children) print_tree(*c, depth + 1, out);
}

void walk(const TargetNode& n, const std::function<void(const TargetNode&)>& f) {
  f(n);
  for (const auto& c : n.children) walk(*c, f);
}

ComparisonStructure analyse(const TargetNode& root) {
  ComparisonStructure s;
  std::set<std::string> bound;
  check_bound(root, bound, false);
  s.order = token_order(root);
  bool nonlinear = false;
  walk(root, [&](const TargetNode& n) {
    if (n.kind == TargetNode::Kind::Reduce && !n.family_var.empty()) {
      const long long product = static_cast<long long>(s.families) * (n.family_to - n.family_from + 1);
      if (product > kMaxTargetFamilies)
        fail(n.column, "at most " + std::to_string(kMaxTargetFamilies) + " comparison families in all",
             std::to_string(product) + " (nested family sums multiply)");
      s.families = static_cast<int>(product);
    }
    if (n.kind == TargetNode::Kind::Reduce && !n.binders.empty() && s.reduction.empty()) s.reduction = n.op;
    if (n.kind == TargetNode::Kind::Token && n.index.empty()) s.fixed_positions.push_back(n.position);
    if (n.kind == TargetNode::Kind::Call) {
      nonlinear = true;
      if (n.op == "kth_largest") s.kth_rank = static_cast<int>(n.children[0]->value);
    }
    if (n.kind == TargetNode::Kind::Reduce && n.op != "sum") nonlinear = true;
  });
  std::sort(s.fixed_positions.begin(), s.fixed_positions.end());
  s.fixed_positions.erase(std::unique(s.fixed_positions.begin(), s.fixed_positions.end()), s.fixed_positions.end());
  s.linear_in_tokens = !nonlinear && s.order == 0;
  if (s.kth_rank > 0 && s.reduction.empty()) s.reduction = "kth";
  s.comparisons_exponent = s.order;
  s.comparisons = s.order == 0 ? "1 (fixed positions)" : (s.families > 1 ? std::to_string(s.families) + " x " : "") +
                                                             (s.order == 1 ? std::string("T") : "T^" + std::to_string(s.order));
  print_tree(root, 0, s.tree);
  return s;
}

}  // namespace

ParsedTarget parse_target(const std::string& text) {
  if (text.find_first_not_of(" \t") == std::string::npos) throw InputError("--target", "expected a target, got an empty string");
  if (text.size() > kMaxTargetLength)
    throw InputError("--target", "expected at most " + std::to_string(kMaxTargetLength) + " characters, got " +
                                     std::to_string(text.size()));
  ParsedTarget t;
  t.text = text;
  t.root = Parser(lex(text)).parse();
  t.structure = analyse(*t.root);
  return t;
}

}  // namespace infoflow
