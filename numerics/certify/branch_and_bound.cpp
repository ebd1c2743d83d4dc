#include "numerics/certify/branch_and_bound.hpp"

#include "numerics/util/errors.hpp"
#include "numerics/util/file_io.hpp"
#include "numerics/util/record_seal.hpp"
#include "numerics/util/mutation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <queue>

namespace infoflow {

namespace {

struct Box {
  std::vector<double> lo, hi;
  double upper = INFINITY;  // certified sup |e| over the box
  int split = 0;            // the coordinate to split next
  long order = 0;           // creation order: ties in the queue are broken by it (determinism)
};

struct ByUpper {
  bool operator()(const Box& a, const Box& b) const { return a.upper < b.upper || (a.upper == b.upper && a.order > b.order); }
};

struct Evaluated {
  Box box;
  double best_value = 0;  // the larger |e| at the centre and at the ascent vertex, rounded down
  std::vector<double> best_point;
};

double abs_lower(const ArbBall& v) {
  const double l = abs(v).lower();
  return std::isnan(l) ? 0.0 : l;
}

double magnitude_upper(const ArbBall& b) {
  const double u = std::max(std::fabs(b.lower()), std::fabs(b.upper()));
  return std::isnan(u) ? INFINITY : u;
}

// One box's evaluations: the dual-ball value and gradient over the box, the value at the centre, and the
// enclosure (natural ∩ mean-value form).
struct BoxValues {
  DualBall e;
  ArbBall centre_value;
  std::vector<double> centre;
  ArbBall enclosure;
  bool gradient_known = false;
};

BoxValues box_values(const std::vector<double>& lo, const std::vector<double>& hi, const BoxEvaluation& on_box,
                     const PointEvaluation& at_point, long prec) {
  const std::size_t n = lo.size();
  std::vector<DualBall> in;
  std::vector<ArbBall> c;
  BoxValues v{DualBall(ArbBall(prec)), ArbBall(prec), std::vector<double>(n), ArbBall(prec), false};
  for (std::size_t i = 0; i < n; ++i) {
    in.push_back(DualBall::variable(ArbBall::interval(lo[i], hi[i], prec), i, n));
    v.centre[i] = 0.5 * (lo[i] + hi[i]);
    c.emplace_back(v.centre[i], prec);
  }
  v.e = on_box(in);
  if (v.e.grad.empty()) v.e.grad.assign(n, ArbBall(0.0, prec));  // a function that is constant on the box
  v.centre_value = at_point(c);
  v.gradient_known = v.e.grad.size() == n;
  // Mean-value form: e(c) + Σ_i ∂_i e · (x_i − c_i) over the box.
  ArbBall mv = v.centre_value;
  for (std::size_t i = 0; i < n && v.gradient_known; ++i)
    mv += v.e.grad[i] * ArbBall::interval(ArbBall(lo[i], prec) - c[i], ArbBall(hi[i], prec) - c[i]);
  if (!(v.gradient_known && mv.is_finite() && arb_intersection(v.enclosure.raw(), v.e.value.raw(), mv.raw(), prec)))
    v.enclosure = v.e.value;
  return v;
}

Evaluated evaluate(Box box, const BoxEvaluation& on_box, const PointEvaluation& at_point, long prec) {
  const std::size_t n = box.lo.size();
  BoxValues bv = box_values(box.lo, box.hi, on_box, at_point, prec);
  const DualBall& e = bv.e;
  const ArbBall& ec = bv.centre_value;
  const std::vector<double>& center = bv.centre;
  const bool mv_ok = bv.gradient_known;
  if (mutated(Mutant::BnbDropsGradient) && mv_ok) {
    box.upper = magnitude_upper(ec);
    box.split = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (box.hi[i] - box.lo[i] > box.hi[box.split] - box.lo[box.split]) box.split = static_cast<int>(i);
    return {std::move(box), abs_lower(ec), center};
  }
  box.upper = magnitude_upper(bv.enclosure);
  // Split where the enclosure is widest: width × |∂_i e| (the widest side when no gradient is known).
  double best_score = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = box.hi[i] - box.lo[i];
    const double mid = 0.5 * (box.lo[i] + box.hi[i]);
    if (!(mid > box.lo[i] && mid < box.hi[i])) continue;  // a side that can no longer be split
    const double g = mv_ok ? magnitude_upper(e.grad[i]) : 1.0;
    const double score = std::isfinite(g) ? w * g : w * 1e300;
    if (score > best_score) best_score = score, box.split = static_cast<int>(i);
  }
  // A second candidate: the vertex of the box that the gradient at the centre points to (ascent of |e|).
  double best = abs_lower(ec);
  std::vector<double> best_point = center;
  if (mv_ok) {
    const double sign = ec.mid() >= 0 ? 1.0 : -1.0;
    std::vector<double> vertex(n);
    std::vector<ArbBall> vb;
    for (std::size_t i = 0; i < n; ++i) {
      vertex[i] = sign * e.grad[i].mid() > 0 ? box.hi[i] : box.lo[i];
      vb.emplace_back(vertex[i], prec);
    }
    const double v = abs_lower(at_point(vb));
    if (v > best) best = v, best_point = vertex;
  }
  return {std::move(box), best, std::move(best_point)};
}

// The range search's evaluation of one box: its bound from the range, the split on the widest side relative to the
// search box (ties to the input with the larger trend), and the better candidate evaluated in arb when its double
// estimate beats `threshold` (the best value when the batch began).
Evaluated evaluate_range(Box box, const RangeEvaluation& on_box, const PointEvaluation& at_point,
                         const PointEstimate& estimate, const std::vector<double>& span, double threshold, long prec) {
  const std::size_t n = box.lo.size();
  std::vector<ArbBall> sides;
  std::vector<double> centre(n);
  for (std::size_t i = 0; i < n; ++i) {
    sides.push_back(ArbBall::interval(box.lo[i], box.hi[i], prec));
    centre[i] = 0.5 * (box.lo[i] + box.hi[i]);
  }
  const BoxRange range = on_box(sides);
  box.upper = magnitude_upper(range.value);
  const auto trend = [&](std::size_t i) { return i < range.trend.size() && std::isfinite(range.trend[i]) ? range.trend[i] : 0.0; };
  double best_width = -1, best_trend = -1;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(centre[i] > box.lo[i] && centre[i] < box.hi[i])) continue;  // a side that can no longer be split
    const double w = (box.hi[i] - box.lo[i]) / span[i];
    if (w > best_width || (w == best_width && std::fabs(trend(i)) > best_trend))
      best_width = w, best_trend = std::fabs(trend(i)), box.split = static_cast<int>(i);
  }
  const double at_centre = estimate(centre);
  const double sign = at_centre >= 0 ? 1.0 : -1.0;
  std::vector<double> vertex(n);
  for (std::size_t i = 0; i < n; ++i) vertex[i] = sign * trend(i) > 0 ? box.hi[i] : box.lo[i];
  const double at_vertex = estimate(vertex);
  // A NaN estimate (an overflow in double) is no reason to skip a candidate: it is evaluated in arb.
  const auto promising = [&](double v) { return std::isnan(v) || std::fabs(v) > threshold; };
  const bool vertex_first = std::fabs(at_vertex) > std::fabs(at_centre) || std::isnan(at_vertex);
  const std::vector<double>& candidate = vertex_first ? vertex : centre;
  if (!promising(vertex_first ? at_vertex : at_centre)) return {std::move(box), 0.0, {}};
  std::vector<ArbBall> point;
  for (double v : candidate) point.emplace_back(v, prec);
  return {std::move(box), abs_lower(at_point(point)), candidate};
}

}  // namespace

// A local search for a larger |e| from x (value fx = |e(x)| rounded down): compass moves along each coordinate and,
// for up to 8 coordinates, along each pair (a maximiser of a min of pairwise products often sits on a ridge no single
// coordinate climbs), with steps halving from an eighth of the box's width down to 2^-40 of it, every value in arb
// rounded down. Returns the best point and value found within `evaluations` evaluations. Sequential, so deterministic.
std::pair<std::vector<double>, double> climb(const PointEvaluation& at_point, std::vector<double> x, double fx,
                                             const std::vector<double>& lo, const std::vector<double>& hi, long prec,
                                             long evaluations) {
  const std::size_t n = x.size();
  long used = 0;
  auto value = [&](const std::vector<double>& y) {
    ++used;
    std::vector<ArbBall> yb;
    for (double v : y) yb.emplace_back(v, prec);
    return abs_lower(at_point(yb));
  };
  std::vector<std::vector<double>> directions;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> e(n, 0.0);
    e[i] = 1;
    directions.push_back(e);
  }
  if (n <= 8)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        for (double sj : {1.0, -1.0}) {
          std::vector<double> e(n, 0.0);
          e[i] = 1, e[j] = sj;
          directions.push_back(e);
        }
  for (int halvings = 3; halvings <= 40 && used < evaluations; ++halvings) {
    bool improved = true;
    while (improved && used < evaluations) {
      improved = false;
      for (const auto& e : directions)
        for (double sign : {1.0, -1.0}) {
          if (used >= evaluations) break;
          std::vector<double> y = x;
          for (std::size_t i = 0; i < n; ++i)
            if (e[i] != 0) y[i] = std::clamp(y[i] + sign * e[i] * std::ldexp(hi[i] - lo[i], -halvings), lo[i], hi[i]);
          if (y == x) continue;
          const double v = value(y);
          if (v > fx) x = std::move(y), fx = v, improved = true;
        }
    }
  }
  return {std::move(x), fx};
}

std::vector<int> SplitTree::preorder() const {
  std::vector<int> out;
  if (split.empty()) return out;
  out.reserve(split.size());
  std::vector<long> stack{0};
  while (!stack.empty()) {
    const long id = stack.back();
    stack.pop_back();
    out.push_back(split[id]);
    if (split[id] >= 0) stack.push_back(first_child[id] + 1), stack.push_back(first_child[id]);  // lower half first
  }
  return out;
}

nlohmann::json bound_to_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

bool outside_sorted_blocks(const std::vector<double>& lo, const std::vector<double>& hi, std::size_t block) {
  if (block == 0) return false;
  for (std::size_t i = 0; i + block < lo.size(); i += block)
    if (lo[i] > hi[i + block]) return true;
  return false;
}

bool contract_to_sorted_blocks(std::vector<double>& lo, std::vector<double>& hi, std::size_t block) {
  const std::size_t n = lo.size();
  if (block == 0 || n == 0) return true;
  // A sorted point has x[t·b] ≥ x[s·b] ≥ lo[s·b] for s ≤ t: a running maximum of the lower ends, forwards …
  for (std::size_t i = block; i < n; i += block)
    lo[i] = std::max(lo[i], mutated(Mutant::SortedContractionTooFar) ? 0.5 * (lo[i - block] + hi[i - block]) : lo[i - block]);
  // … and x[t·b] ≤ hi[s·b] for s ≥ t: a running minimum of the upper ends, backwards.
  for (std::size_t i = (n - 1) / block * block; i >= block; i -= block) hi[i - block] = std::min(hi[i - block], hi[i]);
  for (std::size_t i = 0; i < n; i += block)
    if (lo[i] > hi[i]) return false;
  return true;
}

ArbBall box_enclosure(const BoxEvaluation& on_box, const PointEvaluation& at_point, const std::vector<double>& lo,
                      const std::vector<double>& hi, long prec) {
  return box_values(lo, hi, on_box, at_point, prec).enclosure;
}

namespace {

using Queue = std::priority_queue<Box, std::vector<Box>, ByUpper>;
constexpr const char* kCheckpointSchema = "infoflow-verify/bnb-checkpoint/4";

// An unbounded box stores its upper bound as "inf" (bound_to_json); any other string is not a box of this search.
double bound_from_json(const nlohmann::json& j) { return j == "inf" ? INFINITY : j.get<double>(); }

struct SearchState {
  BranchAndBoundResult result;
  long order = 0;
  Queue queue;
};

void save_state(const std::string& path, const std::string& fingerprint, const BranchAndBoundOptions& o,
                const SearchState& s) {
  nlohmann::json boxes = nlohmann::json::array();
  for (Queue q = s.queue; !q.empty(); q.pop()) {
    const Box& b = q.top();
    boxes.push_back({{"lo", b.lo}, {"hi", b.hi}, {"upper", bound_to_json(b.upper)}, {"split", b.split}, {"order", b.order}});
  }
  const BranchAndBoundResult& r = s.result;
  const nlohmann::json state{{"schema", kCheckpointSchema}, {"fingerprint", fingerprint}, {"box_lo", o.lo}, {"box_hi", o.hi},
                             {"lower", r.lower}, {"argmax", r.argmax}, {"boxes", r.boxes}, {"symmetric_leaves", r.symmetric_leaves}, {"seconds", r.seconds},
                             {"order", s.order}, {"open_boxes", boxes}, {"tree_split", r.tree.split},
                             {"tree_first_child", r.tree.first_child}};
  // Sealed (numerics/util/record_seal.hpp): the open boxes are trusted on resumption, so a file with boxes
  // deleted, added or altered, or counters changed, must not verify.
  write_json_file(path, {{"seal", RecordSeal::instance().seal(state.dump())}, {"state", state}}, "--checkpoint");
}

// The stored search, or nothing when the file does not exist. The file must carry this user's seal over its state
// (a forged or edited file, e.g. with open boxes deleted, would otherwise certify a wrong bound); its boxes must lie
// in the search's box, and the best point is re-evaluated. The open boxes are not re-evaluated: the seal vouches for
// them, and a search that is preempted often still advances. Throws InputError (--checkpoint).
bool load_state(const BranchAndBoundOptions& o, const PointEvaluation& at_point, SearchState& s) {
  if (!std::filesystem::exists(o.checkpoint_path)) return false;
  const nlohmann::json file = read_json_file(o.checkpoint_path, "--checkpoint");
  const std::string name = "the checkpoint " + o.checkpoint_path;
  const auto refuse = [&](const std::string& why) { throw InputError("--checkpoint", name + " " + why); };
  const std::size_t n = o.lo.size();
  const auto inside = [&](const std::vector<double>& lo, const std::vector<double>& hi) {
    if (lo.size() != n || hi.size() != n) return false;
    for (std::size_t i = 0; i < n; ++i)
      if (!(o.lo[i] <= lo[i] && lo[i] <= hi[i] && hi[i] <= o.hi[i])) return false;
    return true;
  };
  try {
    if (!file.is_object() || !file.contains("seal") || !file["seal"].is_string() || !file.contains("state") ||
        !RecordSeal::instance().verifies(file["state"].dump(), file["seal"].get<std::string>()))
      refuse("is not sealed by this user's key (" + RecordSeal::instance().key_origin() +
             "): it was written by another user or machine, or altered; remove it to start over");
    const nlohmann::json& j = file["state"];
    if (j.at("schema") != kCheckpointSchema || j.at("fingerprint") != o.fingerprint ||
        j.at("box_lo").get<std::vector<double>>() != o.lo || j.at("box_hi").get<std::vector<double>>() != o.hi)
      refuse("belongs to another model, target, box or build; remove it or choose another file");
    BranchAndBoundResult& r = s.result;
    r.lower = j.at("lower").get<double>();
    r.argmax = j.at("argmax").get<std::vector<double>>();
    r.boxes = j.at("boxes").get<long>();
    r.symmetric_leaves = j.at("symmetric_leaves").get<long>();
    r.seconds = j.at("seconds").get<double>();
    s.order = j.at("order").get<long>();
    if (!inside(r.argmax, r.argmax) || !(r.lower >= 0) || r.boxes < 1 || r.symmetric_leaves < 0 || !(r.seconds >= 0) || s.order < 1 ||
        s.order > (1L << 60))
      refuse("holds a best point or counters that are not this search's");
    r.tree.split = j.at("tree_split").get<std::vector<int>>();
    r.tree.first_child = j.at("tree_first_child").get<std::vector<long>>();
    if (r.tree.split.size() != static_cast<std::size_t>(s.order) || r.tree.first_child.size() != r.tree.split.size())
      refuse("holds a split tree that is not its boxes'");
    for (const auto& b : j.at("open_boxes")) {
      Box box{b.at("lo").get<std::vector<double>>(), b.at("hi").get<std::vector<double>>(), bound_from_json(b.at("upper")),
              b.at("split").get<int>(), b.at("order").get<long>()};
      if (!inside(box.lo, box.hi) || box.split < 0 || box.split >= static_cast<int>(n) || box.order < 0 ||
          box.order >= s.order)
        refuse("holds a box outside the search's box or with an impossible split or order");
      s.queue.push(std::move(box));
    }
  } catch (const nlohmann::json::exception& e) {
    refuse(std::string("is not a branch-and-bound state: ") + e.what());
  }
  // The best point is cheap to re-evaluate: a build whose evaluation differs is caught here.
  std::vector<ArbBall> point;
  for (double v : s.result.argmax) point.emplace_back(v, o.prec);
  if (abs_lower(at_point(point)) != s.result.lower) refuse("claims a best value its point does not attain");
  s.result.resumed = true;
  return true;
}

// One box's evaluation, given the best value when its batch began.
using BoxEvaluator = std::function<Evaluated(Box box, double threshold)>;

BranchAndBoundResult search(const BoxEvaluator& evaluate_box, const PointEvaluation& at_point, const BranchAndBoundOptions& o) {
  if (o.lo.empty() || o.lo.size() != o.hi.size()) throw InputError("--box", "expected a box with one interval per input");
  for (std::size_t i = 0; i < o.lo.size(); ++i)
    if (!(o.lo[i] <= o.hi[i]) || !std::isfinite(o.lo[i]) || !std::isfinite(o.hi[i]))
      throw InputError("--box", "expected finite LO <= HI");
  if (!(o.relative_gap >= 0) || !(o.absolute_gap >= 0)) throw InputError("--gap", "expected a gap >= 0");
  if (!(o.budget_seconds > 0)) throw InputError("--budget", "expected a time budget > 0 seconds");
  if (o.threads < 1 || o.batch < 1 || o.max_boxes < 1) throw InputError("--threads", "expected threads, batch and max boxes >= 1");

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  SearchState state;
  const bool checkpointing = !o.checkpoint_path.empty();
  const bool resumed = checkpointing && load_state(o, at_point, state);
  BranchAndBoundResult& r = state.result;
  long& order = state.order;
  Queue& queue = state.queue;
  const double seconds_before = r.seconds;
  double last_save = 0;
  // A large search's state takes seconds to write (a million open boxes: ~150 MB): it is saved every
  // checkpoint_seconds, or ten times as long as the last save took, whichever is longer, so that saving costs at most
  // about a tenth of the search.
  double save_interval = o.checkpoint_seconds;
  // Every box evaluated enters the split tree as a leaf; a split makes it an inner node.
  auto accept = [&](Evaluated&& ev) {
    ++r.boxes;
    if (r.tree.split.size() <= static_cast<std::size_t>(ev.box.order))
      r.tree.split.resize(ev.box.order + 1, -1), r.tree.first_child.resize(ev.box.order + 1, -1);
    if (!ev.best_point.empty() && (ev.best_value > r.lower || r.argmax.empty()))
      r.lower = std::max(r.lower, ev.best_value), r.argmax = ev.best_point;
    queue.push(std::move(ev.box));
  };
  // Start from a good lower bound: every corner of the box (up to 2^12) and a fixed set of pseudo-random points
  // (a better lower bound prunes more boxes).
  if (!resumed) {
    const std::size_t n = o.lo.size();
    std::vector<std::vector<double>> seeds;
    if (n <= 12)
      for (std::size_t mask = 0; mask < (std::size_t{1} << n); ++mask) {
        std::vector<double> x(n);
        for (std::size_t i = 0; i < n; ++i) x[i] = (mask >> i) & 1 ? o.hi[i] : o.lo[i];
        seeds.push_back(x);
      }
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 256; ++k) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = o.lo[i] + (o.hi[i] - o.lo[i]) * static_cast<double>(state >> 11) * 0x1.0p-53;
      }
      seeds.push_back(x);
    }
    // The budget covers the start too: a seed begun after it ran out is skipped (an expensive model can take
    // seconds per evaluation, and there are up to 4096 + 256 seeds).
    std::vector<double> values(seeds.size(), -1.0);
#pragma omp parallel for num_threads(o.threads) schedule(dynamic)
    for (std::size_t k = 0; k < seeds.size(); ++k) {
      if (elapsed() > o.budget_seconds) continue;
      std::vector<ArbBall> xb;
      for (double v : seeds[k]) xb.emplace_back(v, o.prec);
      values[k] = abs_lower(at_point(xb));
    }
    for (std::size_t k = 0; k < seeds.size(); ++k)
      if (values[k] >= 0 && (values[k] > r.lower || r.argmax.empty())) r.lower = values[k], r.argmax = seeds[k];
    // The lower bound from a local search (a better lower bound prunes more, and the gap needs it: the best of a few
    // hundred points lies ~1 % below a typical maximum): climb from the four best starting points.
    std::vector<std::size_t> best(seeds.size());
    for (std::size_t k = 0; k < best.size(); ++k) best[k] = k;
    std::stable_sort(best.begin(), best.end(), [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });
    for (std::size_t k = 0; k < std::min<std::size_t>(4, best.size()) && elapsed() <= o.budget_seconds; ++k) {
      if (values[best[k]] < 0) continue;
      auto [x, v] = climb(at_point, seeds[best[k]], values[best[k]], o.lo, o.hi, o.prec, o.climb_evaluations);
      if (v > r.lower) r.lower = v, r.argmax = std::move(x);
    }
    if (elapsed() > o.budget_seconds) {
      // No box evaluated: nothing bounds the error from above. Nothing is saved (a state without its root box
      // would read as a finished search).
      r.upper = INFINITY;
      r.stopped_by = "budget";
      r.seconds = elapsed();
      return r;
    }
    // The root is contracted as every other box (a no-op on a box that is the same in every block, which the
    // symmetry needs: the caller vouches for it, and it is checked here).
    Box root{o.lo, o.hi, INFINITY, 0, order++};
    for (std::size_t i = o.permutation_block; o.permutation_block > 0 && i < n; ++i)
      if (o.lo[i] != o.lo[i % o.permutation_block] || o.hi[i] != o.hi[i % o.permutation_block])
        throw ContractError("sup_abs_branch_and_bound", "a permutation block with a box that differs between blocks");
    contract_to_sorted_blocks(root.lo, root.hi, o.permutation_block);
    accept(evaluate_box(std::move(root), r.lower));
  }
  while (true) {
    if (checkpointing && elapsed() - last_save >= save_interval) {
      const double began = elapsed();
      r.seconds = seconds_before + began;
      save_state(o.checkpoint_path, o.fingerprint, o, state);
      last_save = elapsed();
      save_interval = std::max(o.checkpoint_seconds, 10 * (last_save - began));
    }
    // Boxes that cannot beat the best point are done.
    while (!queue.empty() && queue.top().upper <= r.lower) queue.pop();
    const double upper = queue.empty() ? r.lower : std::max(r.lower, queue.top().upper);
    r.upper = upper;
    // Complete only with a finite upper bound: inf <= inf·(1 + G) holds, and would call an unbounded search done.
    if (std::isfinite(upper) && (upper <= r.lower * (1 + o.relative_gap) || upper - r.lower <= o.absolute_gap)) {
      r.complete = true, r.stopped_by = "gap";
      break;
    }
    if (elapsed() > o.budget_seconds) {
      r.stopped_by = "budget";
      break;
    }
    if (r.boxes >= o.max_boxes) {
      r.stopped_by = "max-boxes";
      break;
    }
    std::vector<Box> parents;
    while (!queue.empty() && static_cast<int>(parents.size()) < o.batch) {
      parents.push_back(queue.top());
      queue.pop();
    }
    std::vector<Box> children;
    bool split_any = false;
    for (const Box& p : parents) {
      const int s = p.split;
      const double mid = 0.5 * (p.lo[s] + p.hi[s]);
      if (!(mid > p.lo[s] && mid < p.hi[s])) {
        // Cannot split further: keep the box as it is (its bound stands), and stop refining it.
        r.stopped_by = "resolution";
        queue.push(p);
        continue;
      }
      Box a{p.lo, p.hi, INFINITY, 0, order++}, b{p.lo, p.hi, INFINITY, 0, order++};
      r.tree.split[p.order] = s;
      r.tree.first_child[p.order] = a.order;
      a.hi[s] = mid;
      b.lo[s] = mid;
      split_any = true;
      for (Box* c : {&a, &b}) {
        if (contract_to_sorted_blocks(c->lo, c->hi, o.permutation_block)) {
          children.push_back(std::move(*c));
          continue;
        }
        // A box contracted to nothing holds only images of points inside the domain: a leaf of the tree that is
        // never evaluated.
        if (r.tree.split.size() <= static_cast<std::size_t>(c->order))
          r.tree.split.resize(c->order + 1, -1), r.tree.first_child.resize(c->order + 1, -1);
        ++r.symmetric_leaves;
      }
    }
    if (!split_any) {
      r.stopped_by = "resolution";
      break;
    }
    std::vector<Evaluated> done(children.size());
    const double threshold = r.lower;
#pragma omp parallel for num_threads(o.threads) schedule(dynamic)
    for (std::size_t i = 0; i < children.size(); ++i) done[i] = evaluate_box(children[i], threshold);
    for (auto& ev : done) accept(std::move(ev));
  }
  r.upper = std::max(r.upper, r.lower);
  r.seconds = seconds_before + elapsed();
  if (checkpointing) save_state(o.checkpoint_path, o.fingerprint, o, state);
  // Polish the attained point (the search's candidates are box centres and vertices, rarely a maximiser). After the
  // checkpoint is saved: a resumed search then goes on exactly as one that was never interrupted.
  if (!r.argmax.empty() && !r.complete) {
    auto [x, v] = climb(at_point, r.argmax, r.lower, o.lo, o.hi, o.prec, o.climb_evaluations);
    if (v > r.lower) {
      r.lower = v, r.argmax = std::move(x);
      r.upper = std::max(r.upper, r.lower);
      if (std::isfinite(r.upper) && (r.upper <= r.lower * (1 + o.relative_gap) || r.upper - r.lower <= o.absolute_gap))
        r.complete = true, r.stopped_by = "gap";
    }
  }
  return r;
}

}  // namespace

BranchAndBoundResult sup_abs_branch_and_bound(const BoxEvaluation& on_box, const PointEvaluation& at_point,
                                              const BranchAndBoundOptions& o) {
  return search([&](Box box, double) { return evaluate(std::move(box), on_box, at_point, o.prec); }, at_point, o);
}

BranchAndBoundResult sup_abs_branch_and_bound(const RangeEvaluation& on_box, const PointEvaluation& at_point,
                                              const PointEstimate& estimate, const BranchAndBoundOptions& o) {
  std::vector<double> span(o.lo.size());
  for (std::size_t i = 0; i < span.size(); ++i) span[i] = o.hi[i] > o.lo[i] ? o.hi[i] - o.lo[i] : 1.0;
  return search([&](Box box, double threshold) {
    return evaluate_range(std::move(box), on_box, at_point, estimate, span, threshold, o.prec);
  }, at_point, o);
}

}  // namespace infoflow
