#pragma once
// Interval branch-and-bound for sup_{x ∈ box} |e(x)| (docs/certify.md). The caller supplies two evaluations of e:
// on a box, as a ball with a gradient enclosure (DualBall), and at a point, as a ball. On each box the enclosure is
// the intersection of the natural one and the mean-value form e(c) + Σ_i ∂_i e(box)·(x_i − c_i); the point value
// at the centre is a candidate for the supremum. Boxes are split on the coordinate of largest width × |∂_i e| and
// pruned when they cannot beat the best point. The lower bound is the best point value found, including local searches
// (compass moves) from the best starting points and from the final attained point. The result is a certified upper
// bound and an attained lower bound.
//
// Deterministic: boxes are processed in fixed batches (independent of the thread count) and merged in order.
#include "numerics/scalar/dual_ball.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace infoflow {

using BoxEvaluation = std::function<DualBall(const std::vector<DualBall>& box)>;
using PointEvaluation = std::function<ArbBall(const std::vector<ArbBall>& point)>;

/// An enclosure of e over a box without a gradient (an affine form's range): `value` holds every e(x) of the box;
/// `trend` is a representative slope per input (the form's coefficients), used only to choose candidate points.
struct BoxRange {
  ArbBall value;
  std::vector<double> trend;
};
/// e over the box whose sides are these balls (ArbBall::interval(lo_i, hi_i, prec)).
using RangeEvaluation = std::function<BoxRange(const std::vector<ArbBall>& sides)>;
/// e at a point in double: an estimate that chooses which candidate points are worth evaluating in arb, never a bound.
using PointEstimate = std::function<double(const std::vector<double>& point)>;

struct BranchAndBoundOptions {
  std::vector<double> lo, hi;    // the box
  double relative_gap = 1e-2;    // stop when upper ≤ lower·(1 + relative_gap) …
  double absolute_gap = 0;       // … or upper − lower ≤ absolute_gap
  double budget_seconds = 60;    // stop (incomplete) after this long
  long max_boxes = 10'000'000;   // or after this many boxes
  int threads = 1;
  int batch = 16;                // boxes split per round (fixed, for determinism)
  long prec = 128;
  /// Point evaluations of each local search for a larger |e| (from the four best starting points, and from the
  /// attained point when the search stops short of the gap); 0 turns them off.
  long climb_evaluations = 400;
  /// When b > 0: the caller vouches that e is unchanged when the n/b blocks of b consecutive coordinates are permuted
  /// (a model without positions and a target without fixed positions permute their tokens so) and that the box is the
  /// same in every block. Every point then has an image with the blocks' first coordinates in increasing order (the
  /// fundamental domain), so only the domain is searched: every box is contracted to the smallest box holding its
  /// points of the domain (contract_to_sorted_blocks), and a box contracted to nothing is a leaf "outside the
  /// fundamental domain" that is not evaluated ((n/b)! times less volume, and no box enclosed where the domain does
  /// not reach).
  std::size_t permutation_block = 0;
  /// When non-empty: the search state (every open box, the best point, the counters) is written there atomically
  /// every `checkpoint_seconds` and when the search stops, and a search started with the same `fingerprint` resumes
  /// from it (a finished one returns at once). The time budget counts this run only; boxes and seconds accumulate.
  std::string checkpoint_path;
  std::string fingerprint;
  double checkpoint_seconds = 10;
};

/// The search's split tree: every box it evaluated, by id (creation order; the root is 0). A box split on
/// coordinate s at m = (lo_s + hi_s)/2 has the halves lo_s..m (id first_child) and m..hi_s (id first_child + 1).
/// The leaves cover the search box, and each leaf's enclosure bounds |e| by the search's upper bound: what a proof
/// certificate (numerics/certify/certificate.hpp) writes down and an independent checker verifies.
struct SplitTree {
  std::vector<int> split;          // by id: the coordinate split on, or −1 for a leaf
  std::vector<long> first_child;   // by id: the id of the lower half, or −1 for a leaf
  /// The tree in preorder, one entry per box: its split coordinate, or −1 for a leaf (the certificate's form).
  std::vector<int> preorder() const;
};

struct BranchAndBoundResult {
  double upper = 0;               // certified: sup |e| ≤ upper over the whole box
  double lower = 0;               // attained: |e(argmax)| ≥ lower
  std::vector<double> argmax;     // the input that attains `lower`
  long boxes = 0;                 // boxes evaluated
  double seconds = 0;
  bool complete = false;          // the gap was reached (otherwise the budget stopped it)
  std::string stopped_by;         // "gap", "budget", "max-boxes"
  bool resumed = false;           // continued from a checkpoint
  long symmetric_leaves = 0;      // boxes left out as images of others (permutation_block)
  SplitTree tree;                 // every box evaluated (not written by to_json: see certificate.hpp)
  double gap() const { return upper - lower; }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BranchAndBoundResult, upper, lower, argmax, boxes, seconds, complete, stopped_by, resumed,
                                   symmetric_leaves)

/// A bound as JSON, which has no infinity (nlohmann writes null, which reads as "no value"): +inf as the string
/// "inf", -inf as "-inf", NaN as "nan". Used by the checkpoint and by certify's --json output alike.
nlohmann::json bound_to_json(double v);

/// The enclosure of e over one box that the search uses (the natural enclosure intersected with the mean-value form
/// e(c) + Σ_i ∂_i e(box)·(x_i − c_i)): every value e(x), x in the box, lies in it. Exposed so that a check can hold
/// it against point values at random points of random boxes (an independent route to the search's soundness).
ArbBall box_enclosure(const BoxEvaluation& on_box, const PointEvaluation& at_point, const std::vector<double>& lo,
                      const std::vector<double>& hi, long prec);

/// True when every point of [lo, hi] has x[t·b] > x[(t+1)·b] for some block t: the box misses the fundamental domain
/// {x[0] ≤ x[b] ≤ x[2b] ≤ …} of the block permutations (BranchAndBoundOptions::permutation_block).
bool outside_sorted_blocks(const std::vector<double>& lo, const std::vector<double>& hi, std::size_t block);
/// Shrinks [lo, hi] to the smallest box holding every point of [lo, hi] in the fundamental domain
/// {x[0] ≤ x[b] ≤ x[2b] ≤ …}: x[t·b] ≥ lo[s·b] for s ≤ t and x[t·b] ≤ hi[s·b] for s ≥ t. Returns false (the sides
/// left inverted) when the box holds no such point. block = 0: no symmetry, the box is left as it is.
bool contract_to_sorted_blocks(std::vector<double>& lo, std::vector<double>& hi, std::size_t block);

/// Throws InputError for an empty or inverted box, a negative gap or budget, threads or batch < 1, or a checkpoint
/// whose fingerprint or box is not this search's (argument "--checkpoint").
BranchAndBoundResult sup_abs_branch_and_bound(const BoxEvaluation& on_box, const PointEvaluation& at_point,
                                              const BranchAndBoundOptions& options);

/// The same search with a gradient-free enclosure (certify --enclosure affine-only): each box is bounded by
/// `on_box`'s range alone and split on its widest side relative to the search box (no gradient ranks the inputs);
/// the candidates (the centre and the vertex the trend points to) are estimated in double and evaluated in arb only
/// when the estimate beats the best value at the start of the batch (so the result does not depend on the threads).
/// About half the cost per box of the gradient search; its bounds are those of the range.
BranchAndBoundResult sup_abs_branch_and_bound(const RangeEvaluation& on_box, const PointEvaluation& at_point,
                                              const PointEstimate& estimate, const BranchAndBoundOptions& options);

}  // namespace infoflow
