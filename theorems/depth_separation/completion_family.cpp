#include "theorems/depth_separation/completion_family.hpp"

#include "numerics/scalar/arb_ball.hpp"
#include "numerics/util/errors.hpp"
#include "numerics/util/mutation.hpp"
#include "numerics/util/rng.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace infoflow {

namespace {

// One condition "F_j = z_j·x_j is at most this pair's product", as a slack that must be ≥ 0 over the box.
//   ZZ: z_j·z_j − F_j = s(s − A_j + a_j)
//   ZX: z_j·x_k − F_j = s(a_j − a_k c_jk)                     (k ≠ j)
//   XX: x_k·x_l − F_j = 2 − a_k A_k − a_l A_l + a_k a_l c_kl − s(A_j − a_j)   (k ≤ l; c_kk = 1 gives |x_k|²)
// with a_k = r + θ_k, A_k = cos φ_k + sin φ_k, c_kl = cos(φ_k − φ_l).
enum class Kind { ZZ, ZX, XX };
struct Condition {
  Kind kind;
  int j, k, l;
  std::vector<int> vars() const {
    std::vector<int> v{j};
    if (kind != Kind::ZZ) v.push_back(k);
    if (kind == Kind::XX) v.push_back(l);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }
  std::string describe() const {
    const char* names[] = {"z_j.z_j", "z_j.x_k", "x_k.x_l"};
    return std::string(names[static_cast<int>(kind)]) + " >= z_j.x_j with j=" + std::to_string(j + 1) +
           ", k=" + std::to_string(k + 1) + ", l=" + std::to_string(l + 1);
  }
};

std::vector<Condition> conditions_of(int m) {
  std::vector<Condition> out;
  for (int j = 0; j < m; ++j) {
    out.push_back({Kind::ZZ, j, j, j});
    for (int k = 0; k < m; ++k)
      if (k != j) out.push_back({Kind::ZX, j, k, k});
    for (int k = 0; k < m; ++k)
      for (int l = k; l < m; ++l) out.push_back({Kind::XX, j, k, l});
  }
  return out;
}

// The family's geometry in scalar type S: cos, sin and A = cos + sin per angle, from t by the rational map.
template <class S>
struct Geometry {
  S r, s, two;
  std::vector<S> c, sn, A;
  template <class Make>
  Geometry(const CompletionFamilyParams& p, Make make) : r(make(p.r)), s(make(p.s)), two(make(2.0)) {
    for (double tj : p.t) {
      const S t = make(tj), one = make(1.0);
      const S den = one + t * t;
      c.push_back((one - t * t) / den);
      sn.push_back(make(2.0) * t / den);
      A.push_back(c.back() + sn.back());
    }
  }
  S cos_diff(int k, int l) const { return c[k] * c[l] + sn[k] * sn[l]; }
  // The condition's slack at a (a[k] = r + θ_k; only the condition's variables are read).
  S slack(const Condition& q, const std::vector<S>& a) const {
    const S Fj = s * (A[q.j] - a[q.j]);
    switch (q.kind) {
      case Kind::ZZ: return s * s - Fj;
      case Kind::ZX:
        if (mutated(Mutant::CompletionSlackSignFlipped)) return s * (a[q.k] * cos_diff(q.j, q.k) - a[q.j]);
        return s * (a[q.j] - a[q.k] * cos_diff(q.j, q.k));
      case Kind::XX:
        if (q.k == q.l) return two - two * a[q.k] * A[q.k] + a[q.k] * a[q.k] - Fj;
        return two - a[q.k] * A[q.k] - a[q.l] * A[q.l] + a[q.k] * a[q.l] * cos_diff(q.k, q.l) - Fj;
    }
    return Fj;
  }
};

Geometry<double> double_geometry(const CompletionFamilyParams& p) {
  return Geometry<double>(p, [](double v) { return v; });
}

// Every token inside [0, 1]^2: 0 ≤ s ≤ 1, r ≥ 0 and (r + ρ)·max(cos, sin) ≤ 1.
bool in_domain(const CompletionFamilyParams& p, const Geometry<double>& g) {
  if (!(p.s > 0 && p.s <= 1 && p.r >= 0 && p.rho >= 0)) return false;
  for (int k = 0; k < p.m; ++k)
    if ((p.r + p.rho) * std::max(g.c[k], g.sn[k]) > 1) return false;
  return true;
}

double min_slack(const CompletionFamilyParams& p, const Geometry<double>& g, const std::vector<Condition>& conds) {
  double worst = INFINITY;
  std::vector<double> a(p.m, p.r);
  for (const Condition& q : conds) {
    const std::vector<int> vars = q.vars();
    // Candidates per variable: both ends, and for the squared variable of XX(k = k) its clamped vertex
    // (the slack is multilinear in the others, so their minimum is at a corner).
    std::vector<std::vector<double>> cand;
    for (int v : vars) {
      std::vector<double> c{p.r, p.r + p.rho};
      if (q.kind == Kind::XX && q.k == q.l && v == q.k) {
        const double vertex = q.j == q.k ? g.A[v] - p.s / 2 : g.A[v];
        c.push_back(std::clamp(vertex, p.r, p.r + p.rho));
      }
      cand.push_back(c);
    }
    std::vector<std::size_t> idx(vars.size(), 0);
    while (true) {
      for (std::size_t i = 0; i < vars.size(); ++i) a[vars[i]] = cand[i][idx[i]];
      worst = std::min(worst, g.slack(q, a));
      std::size_t i = 0;
      while (i < idx.size() && ++idx[i] == cand[i].size()) idx[i++] = 0;
      if (i == idx.size()) break;
    }
  }
  return worst;
}

// The largest ρ (bisection) with every slack ≥ 0 and every token in the square, for fixed r, s, t.
double largest_rho(CompletionFamilyParams p, const Geometry<double>& g, const std::vector<Condition>& conds) {
  p.rho = 0;
  if (!in_domain(p, g) || min_slack(p, g, conds) < 0) return 0;
  double lo = 0, hi = 2;
  for (int it = 0; it < 64; ++it) {
    p.rho = 0.5 * (lo + hi);
    if (in_domain(p, g) && min_slack(p, g, conds) >= 0) lo = p.rho;
    else hi = p.rho;
  }
  return lo;
}

// The box of a_k = r + θ_k is [r, top] with top ≥ r + ρ rounded up, so the grid point θ = ρ (computed exactly in arb)
// is inside what gets certified.
double box_top(const CompletionFamilyParams& p, long prec) { return (ArbBall(p.r, prec) + ArbBall(p.rho, prec)).upper(); }

// The tokens lie in the square: z_j has coordinates s·cos, s·sin in [0, s] ⊂ [0, 1] (cos, sin ≥ 0); x_k needs
// (r + ρ)·cos φ_k ≤ 1 and (r + ρ)·sin φ_k ≤ 1 (and r ≥ 0 for x_k ≤ 1). Decided in arb; `failure` says why not.
bool tokens_in_square(const CompletionFamilyParams& p, const Geometry<ArbBall>& g, double top_d, long prec,
                      std::string& failure) {
  if (!(p.rho > 0)) {
    failure = "the range rho is 0";
    return false;
  }
  const ArbBall one(1.0, prec), top(top_d, prec), zero(0.0, prec);
  bool domain = p.s > 0 && p.s <= 1 && p.r >= 0;
  for (int k = 0; k < p.m && domain; ++k)
    domain = less_equal(top * g.c[k], one) == Tribool::True && less_equal(top * g.sn[k], one) == Tribool::True &&
             less_equal(zero, g.c[k]) == Tribool::True && less_equal(zero, g.sn[k]) == Tribool::True;
  if (!domain) failure = "a token leaves [0,1]^2";
  return domain;
}

}  // namespace

double completion_family_min_slack(const CompletionFamilyParams& p) {
  return min_slack(p, double_geometry(p), conditions_of(p.m));
}

CompletionFamilyParams search_completion_family(int m, std::uint64_t seed, int evaluations) {
  if (m < 1 || m > 64) throw InputError("--T", "the completion family needs 2 <= T <= 65");
  const std::vector<Condition> conds = conditions_of(m);
  SplitMix64 rng(seed);
  CompletionFamilyParams best;
  best.m = m;
  double best_value = -1;
  auto evaluate = [&](CompletionFamilyParams p) {
    std::sort(p.t.begin(), p.t.end());
    const Geometry<double> g = double_geometry(p);
    p.rho = largest_rho(p, g, conds);
    if (p.rho * p.s > best_value) best_value = p.rho * p.s, best = p;
  };
  // Random starts, then perturbations of the best with a shrinking step.
  const int starts = evaluations / 4;
  for (int e = 0; e < evaluations; ++e) {
    CompletionFamilyParams p;
    p.m = m;
    if (e < starts || best_value <= 0) {
      p.r = rng.uniform(0.0, 1.4);
      p.s = rng.uniform(0.05, 1.0);
      for (int j = 0; j < m; ++j) p.t.push_back(rng.uniform(0.02, 0.98));
    } else {
      const double step = 0.1 * std::pow(0.002, static_cast<double>(e - starts) / (evaluations - starts));
      p = best;
      p.r = std::clamp(p.r + step * rng.normal(), 0.0, 1.4);
      p.s = std::clamp(p.s + step * rng.normal(), 0.01, 1.0);
      for (double& tj : p.t) tj = std::clamp(tj + step * rng.normal(), 0.001, 0.999);
    }
    evaluate(p);
  }
  // Slack for the certification: 5% less range, so no condition is tight.
  best.rho *= 0.95;
  return best;
}

CompletionFamilyParams completion_family_for(int m, std::uint64_t seed) {
  // From search_completion_family (seeds 1000·m + 0..3, 20,000 evaluations each, the best kept; m = 2: one run;
  // m = 9..11 took about 5 minutes in all);
  // ρ already carries the search's 5% margin.
  static const char* const table[] = {
      R"({"m":2,"r":0.003686331037368099,"rho":0.9446015138877555,"s":0.998698666541091,"t":[0.001,0.999]})",
      R"({"m":3,"r":0.5216558386241383,"rho":0.09859006437472999,"s":0.8643801267843123,"t":[0.003398178662186679,0.536881826266181,0.9989893185084023]})",
      R"({"m":4,"r":0.6134613702694023,"rho":0.08968242008704691,"s":0.7530892130816076,"t":[0.001,0.2683791727338779,0.5774486839099567,0.9989228330354946]})",
      R"({"m":5,"r":0.5376243644732869,"rho":0.02978112669661641,"s":0.8669171976015081,"t":[0.0044446011390442955,0.17309736095266767,0.48467101980978655,0.7111186321097741,0.999]})",
      R"({"m":6,"r":0.5198095624861746,"rho":0.025289356242865324,"s":0.8800850489785664,"t":[0.001,0.15904441568264893,0.3252616033439642,0.5095647590217826,0.7260295664298548,0.9989010915096328]})",
      R"({"m":7,"r":0.614988281176966,"rho":0.015201385808177292,"s":0.79135116840478,"t":[0.0010602125956059333,0.11457905319863897,0.23090193767023792,0.3534940415893931,0.6241427316428488,0.7940403467263301,0.9988622583775847]})",
      R"({"m":8,"r":0.6257662325320461,"rho":0.015191066451370715,"s":0.7798535899228916,"t":[0.0014243898530828195,0.11376189241236957,0.22905256781518044,0.3504632676074983,0.48200725452266135,0.6284142047642942,0.7972085307775304,0.999]})",
      R"({"m":9,"r":0.4671135439207129,"rho":0.007343983696773648,"s":0.944558204748451,"t":[0.003324582641396969,0.12624816641387532,0.24538009996132049,0.3448302190679856,0.450666571386421,0.5643813164401746,0.6902650597875686,0.8330143376286692,0.999]})",
      R"({"m":10,"r":0.645793225749624,"rho":0.008953419816680252,"s":0.762801332372323,"t":[0.0010457424977177562,0.08635836015599409,0.1727876498419567,0.26189239449826457,0.35491582939286176,0.46750522187414884,0.5764217534705411,0.6961328612361922,0.8304561796103741,0.9858901886941428]})",
      R"({"m":11,"r":0.49216729330044134,"rho":0.0049917715368792415,"s":0.9203201281815581,"t":[0.0022465446423791577,0.07907218817552814,0.17688147378038768,0.2546821337411701,0.3595790821675145,0.44763148287532617,0.5380498629589782,0.636050056008364,0.7433894959966444,0.8631197572539437,0.9988503487748617]})",
  };
  if (m >= 2 && m <= 11) {
    CompletionFamilyParams p = nlohmann::json::parse(table[m - 2]).get<CompletionFamilyParams>();
    if (mutated(Mutant::CompletionRangeDoubled)) p.rho *= 2;
    return p;
  }
  return search_completion_family(m, seed, 4000);
}

CompletionFamilyCertificate certify_completion_family(const CompletionFamilyParams& p, long max_boxes_per_condition,
                                                      long prec) {
  CompletionFamilyCertificate cert;
  cert.params = p;
  if (mutated(Mutant::CompletionFamilyUnchecked)) {
    cert.params.rho *= 4;
    cert.certified = true;
    cert.output_range_lower = (ArbBall(cert.params.rho, prec) * ArbBall(cert.params.s, prec)).lower();
    return cert;
  }
  if (p.m < 1 || static_cast<int>(p.t.size()) != p.m) throw ContractError("certify_completion_family", "t has m entries");
  const Geometry<ArbBall> g(p, [&](double v) { return ArbBall(v, prec); });
  const double top_d = box_top(p, prec);
  if (!tokens_in_square(p, g, top_d, prec, cert.failure)) return cert;
  struct Box {
    std::vector<double> lo, hi;
  };
  const ArbBall zero(0.0, prec);
  for (const Condition& q : conditions_of(p.m)) {
    ++cert.conditions;
    const std::vector<int> vars = q.vars();
    std::vector<Box> stack{Box{std::vector<double>(vars.size(), p.r), std::vector<double>(vars.size(), top_d)}};
    long boxes = 0;
    std::vector<ArbBall> a(p.m, ArbBall(p.r, prec));
    while (!stack.empty()) {
      Box b = std::move(stack.back());
      stack.pop_back();
      if (++boxes > max_boxes_per_condition) {
        cert.failure = q.describe() + ": not certified within " + std::to_string(max_boxes_per_condition) + " boxes";
        cert.boxes += boxes;
        return cert;
      }
      for (std::size_t i = 0; i < vars.size(); ++i) a[vars[i]] = ArbBall::interval(b.lo[i], b.hi[i], prec);
      if (less_equal(zero, g.slack(q, a)) == Tribool::True) continue;
      std::size_t w = 0;
      for (std::size_t i = 1; i < vars.size(); ++i)
        if (b.hi[i] - b.lo[i] > b.hi[w] - b.lo[w]) w = i;
      const double mid = 0.5 * (b.lo[w] + b.hi[w]);
      if (!(mid > b.lo[w] && mid < b.hi[w])) {
        cert.failure = q.describe() + ": a box could not be split further";
        cert.boxes += boxes;
        return cert;
      }
      Box left = b, right = b;
      left.hi[w] = mid;
      right.lo[w] = mid;
      stack.push_back(std::move(left));
      stack.push_back(std::move(right));
    }
    cert.boxes += boxes;
  }
  cert.certified = true;
  cert.output_range_lower = (ArbBall(p.rho, prec) * ArbBall(p.s, prec)).lower();
  return cert;
}

CompletionFamilyParams tightened_completion_family(const CompletionFamilyParams& p, double keep) {
  if (!(keep > 0 && keep < 1)) throw ContractError("tightened_completion_family", "expected 0 < keep < 1");
  if (p.m < 1 || static_cast<int>(p.t.size()) != p.m) throw ContractError("tightened_completion_family", "t has m entries");
  CompletionFamilyParams q = p;
  q.rho = keep * largest_rho(p, double_geometry(p), conditions_of(p.m));
  return q;
}

CompletionFamilyCertificate certify_completion_family_at_vertices(const CompletionFamilyParams& p, long prec) {
  CompletionFamilyCertificate cert;
  cert.params = p;
  cert.method = "vertices";
  if (p.m < 1 || static_cast<int>(p.t.size()) != p.m)
    throw ContractError("certify_completion_family_at_vertices", "t has m entries");
  const Geometry<ArbBall> g(p, [&](double v) { return ArbBall(v, prec); });
  const double top_d = box_top(p, prec);
  if (!tokens_in_square(p, g, top_d, prec, cert.failure)) return cert;
  const ArbBall zero(0.0, prec), lo(p.r, prec), hi(top_d, prec);
  std::vector<ArbBall> a(p.m, lo);
  for (const Condition& q : conditions_of(p.m)) {
    ++cert.conditions;
    // Every slack is affine in each of its variables separately, except XX with k = l, which adds a_k² to a part
    // affine in the others (a separable sum). So its minimum over the box is attained with every affine variable at
    // an end, and the squared one at an end or at the parabola's vertex. The vertex is a ball (A_k, A_j − s/2 are
    // rationals of t), and the slack evaluated on that ball is ≤ the parabola's global minimum, so taking it is
    // sound; where the ball lies certainly outside [r, top], the ends alone decide.
    const std::vector<int> vars = q.vars();
    const bool squared = q.kind == Kind::XX && q.k == q.l;
    std::vector<std::vector<ArbBall>> cand;
    for (int v : vars) {
      std::vector<ArbBall> c{lo, hi};
      if (squared && v == q.k) {
        const ArbBall vertex = q.j == q.k ? g.A[v] - g.s / ArbBall(2.0, prec) : g.A[v];
        if (less(vertex, lo) != Tribool::True && less(hi, vertex) != Tribool::True) c.push_back(vertex);
      }
      cand.push_back(std::move(c));
    }
    std::vector<std::size_t> idx(vars.size(), 0);
    while (true) {
      for (std::size_t i = 0; i < vars.size(); ++i) a[vars[i]] = cand[i][idx[i]];
      ++cert.boxes;
      if (less_equal(zero, g.slack(q, a)) != Tribool::True) {
        cert.failure = q.describe() + ": the slack is not certified >= 0 at a vertex";
        return cert;
      }
      std::size_t i = 0;
      while (i < idx.size() && ++idx[i] == cand[i].size()) idx[i++] = 0;
      if (i == idx.size()) break;
    }
  }
  cert.certified = true;
  cert.output_range_lower = (ArbBall(p.rho, prec) * ArbBall(p.s, prec)).lower();
  return cert;
}

std::vector<std::vector<double>> completion_family_input(const CompletionFamilyParams& p, const std::vector<double>& theta,
                                                         int j) {
  const Geometry<double> g = double_geometry(p);
  std::vector<std::vector<double>> X;
  for (int k = 0; k < p.m; ++k) X.push_back({1 - (p.r + theta[k]) * g.c[k], 1 - (p.r + theta[k]) * g.sn[k]});
  const int zj = mutated(Mutant::CompletionAngleOffByOne) ? (j + 1) % p.m : j;
  X.push_back({p.s * g.c[zj], p.s * g.sn[zj]});
  return X;
}

std::vector<std::vector<ArbBall>> completion_family_input_arb(const CompletionFamilyParams& p, long G,
                                                             const std::vector<long>& index, int j, long prec) {
  if (G < 2 || static_cast<int>(index.size()) != p.m || j < 0 || j >= p.m)
    throw ContractError("completion_family_input_arb", "G >= 2, m grid indices and 0 <= j < m");
  // G − 1 and the indices reach arb through doubles: only values a double holds exactly (below 2^53) are the grid's.
  constexpr long kExactInDouble = 1L << 53;
  if (G - 1 > kExactInDouble) throw ContractError("completion_family_input_arb", "G - 1 <= 2^53");
  const Geometry<ArbBall> g(p, [&](double v) { return ArbBall(v, prec); });
  const ArbBall one(1.0, prec);
  std::vector<std::vector<ArbBall>> X;
  for (int k = 0; k < p.m; ++k) {
    const ArbBall a = g.r + ArbBall(p.rho, prec) * ArbBall(static_cast<double>(index[k]), prec) /
                                ArbBall(static_cast<double>(G - 1), prec);
    X.push_back({one - a * g.c[k], one - a * g.sn[k]});
  }
  const int zj = mutated(Mutant::CompletionAngleOffByOne) ? (j + 1) % p.m : j;
  X.push_back({g.s * g.c[zj], g.s * g.sn[zj]});
  return X;
}

double completion_family_value(const CompletionFamilyParams& p, const std::vector<double>& theta, int j) {
  const Geometry<double> g = double_geometry(p);
  return p.s * (g.A[j] - p.r - theta[j]);
}

}  // namespace infoflow
