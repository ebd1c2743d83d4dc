#pragma once
// Deliberate defects for the mutation harness (`infoflow-verify mutants`, docs/mutation.md): each mutant
// is a small, plausible bug compiled in behind a run-time switch. Only the harness ever sets the switch;
// with no mutant active every site below is a no-op. The harness runs the suites once per mutant and
// records which checks fail: a check no mutant can make fail is a check that cannot fail.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace infoflow {

enum class Mutant {
  None,
  ConstructionWeightPerturbed,  // one FFN_1 input weight of the Theorem 1 construction off by 1e-3
  ConstructionBetaHalved,       // the construction's temperatures half of what its budget needs
  L5PieceDropped,               // one hinge of an L5 square interpolant left out
  GibbsSupTooSmall,             // S(T, beta) computed 10% too small
  SoftmaxWithoutShift,          // softmax without subtracting the largest logit
  ReadoutWrongSlot,             // the construction's readout reads the G slot instead of X[0]
  TargetSkipsDiagonal,          // min_{s,t} x(s).x(t) without the pairs s = t
  KthOffByOne,                  // the k-th largest returns the (k+1)-th (the last for k = T)
  ArgmaxBetaHalved,             // the k = 1 construction's temperature halved
  PackingDeltaDoubled,          // the packing bound's delta_N doubled (a looser bound)
  ClosestPairSecondBest,        // closest-pair search reports a pair farther than the closest
  FitterSlopeBias,              // every fitted slope (and its intervals) shifted by +0.1
  PlannerRetrievalGrows,        // the planner prices max-retrieval as growing with T
  L3FamilyReversed,             // L3's family error computed with the scores of the two groups swapped
  GibbsSimpleBoundHalved,       // L1's simple bound (T-1)/(e beta) computed as half of it
  L2BoundHalved,                // L2's off-arg-max weight bound computed as half of it
  RankWeightThreshold,          // L3's rank-weight check compares with 1/(k+1) instead of 1/k
  L5BoundHalved,                // L5's interpolation error bound computed as half of it
  ArbExpDropsRadius,            // arb's exp evaluated at 53 bits with its radius dropped (not an enclosure)
  ConstructionExtraPiece,       // the construction uses m + 1 pieces while its formula says m
  FitterSkipsSolve,             // the fitters keep their initial models (the solver never runs)
  KernelDirectionPerturbed,     // the linear map's kernel direction off by 1e-3 in one coordinate
  WitnessGapRelaxed,            // the witness search accepts target gaps of 1.5 eps instead of 3 eps
  PlannerIgnoresSpecific,       // the planner's specific-position heads add nothing to I(p)
  PlannerOrder3AsOrder2,        // the planner treats an order-3 comparison like an order-2 one
  CountsAffineAsFfn,            // M_ffn also counts the affine encoder and readout
  PackingWithoutNormaliser,     // the class packing container forgets the normaliser (dimension hn, not h(n+1))
  CompletionFamilyUnchecked,    // the completion family's conditions are taken as certified without checking
  DilutionBoundDoubled,         // the one-head dilution bound computed as twice (1 − 2ε)T/2
  CompletionSlackSignFlipped,   // the completion family's z_j.x_k condition evaluated with its sign flipped
  PackingGridStuckAtTwo,        // the packing bound's grid search returns G = 2 only
  ValueNormSkipsEncoder,        // value norms R computed from the positional term only (the encoder dropped)
  MirrorRankOffByOne,           // the mirrored order-statistic family reveals T − k instead of T − k + 1 statistics
  BnbDropsGradient,             // certify's mean-value form uses a zero gradient (encloses e(c) only)
  ClassFitUnbounded,            // the class fits forget their [−1, 1] parameter bounds
  ClassCapDropsWidth,           // the class's largest L·R computed without the readout width factor p
  EpsLowerReturnsLr,            // the inverted class bound returns the bound's L·R where its ε was meant
  ExperimentColumnsSwapped,     // the intrinsic-dimension results of (D,D) and (D−1,D) exchanged
  TriangleLengthsReversed,      // the triangle-centre results attached to the sequence lengths in reverse order
  DualBallDropsSoftmaxDerivative,  // the softmax weights' derivative dropped from the dual balls' gradient (certify)
  CompletionAngleOffByOne,      // the completion family's input generator puts z_j at the angle of j + 1
  CompletionRangeDoubled,       // the completion family's parameters carry twice the range their search certified
  PackingNormaliserSignFlipped, // the packing capacity's normaliser term enters with its sign flipped
  SoftmaxCoefficientQuartered,  // the softmax derivative's coefficient w_t·w_s taken as a quarter of itself (certify)
  RoundingWeightTermTenth,      // the float64 rounding bound's softmax weight-error term taken a tenth of itself
  ConvexCombinationWeightsAtLowerEnds,  // the attention output's simplex range with each weight at its lower end
  ContinuityFloorWholeRange,    // the continuity floor taken as the family's whole range, not half of it
  CodeModelDropsDigit,          // the code model's Lipschitz bound counts one base-G digit too few
  SnakeGrayParity,              // the snake encoder's closed-form Gray order reverses digit j on the wrong sweeps
  SnakeCopiesMerged,            // the snake decoder gives each breakpoint one unit with the whole slope change
  DualMaxOneSideGradient,       // max of two overlapping dual balls keeps one side's gradient (no Clarke hull)
  DualReluFullSlope,            // a ReLU straddling 0 passes its input's gradient unscaled (t = 1, not t in [0, 1])
  DualSqrtAtZeroFlat,           // sqrt of a ball reaching 0 gets a zero gradient (norm's kink at 0 taken as flat)
  AffineProductDropsRemainder,  // an affine product forgets its off-diagonal quadratic remainder (certify)
  AffineNoiseSymbolReused,      // the last input's affine form reuses the first input's noise symbol (certify)
  AffineExpMinRangeSlope,       // exp linearised with the min-range slope but the secant's remainder formulas (certify)
  AffineReciprocalRemainderHalved,  // 1/x's linearisation remainder taken as half (certify)
  AffineSoftmaxRemainderHalved,     // the softmax weight's Lagrange remainder taken as half (certify)
  DoubleAffineReluRemainderHalved,  // the double affine form's ReLU chord adds half of its remainder (certify's search)
  FreshNoiseSymbolShared,       // every remainder named by a fresh noise symbol gets the same one (certify)
  AffineMaxSliverDropped,       // max of two forms ordered up to a sliver takes the one without the sliver (certify)
  SymmetryIgnoresPositions,     // certify takes a model with a positional table as token-permutation invariant
  SortedContractionTooFar,      // a box contracted to the fundamental domain loses points of the domain (certify)
  GeluHullMissesMinimum,        // GeLU's ball enclosure leaves out its minimum where the ball reaches x* (certify)
  AffineGeluCurvatureDropped,   // GeLU's affine linearisation forgets its curvature term (certify)
  Count,                        // not a mutant: the number of enumerators (MutantSet's size)
};

struct MutantInfo {
  Mutant id;
  std::string name;      // kebab-case, as in the report
  std::string defect;    // what the bug is
  std::vector<std::string> suites;  // the suites whose checks are expected to notice it
  /// The defect acts only after every sweep point is computed (in how finished records are read), so the harness
  /// reuses the unmutated run's checkpoints instead of recomputing identical points.
  bool after_sweeps = false;
  /// Caught by a named test rather than by a suite's checks (the suites declared are then empty): defects that only
  /// a campaign of random cases finds, at a size the suites' quick profile does not run (docs/mutation.md).
  std::string caught_by_test = {};
  // Whether the defect sits inside a check's own computation is not declared here: the harness measures it (the
  // switches each CheckComputation reads in the unmutated run).
};

/// Every mutant but None, in a fixed order.
const std::vector<MutantInfo>& all_mutants();
/// The mutant of that name, or nullptr.
const MutantInfo* find_mutant(const std::string& name);

/// A set of mutants (of their switches), one bit each.
class MutantSet {
 public:
  void insert(Mutant m) { bits_[index(m) / 64] |= std::uint64_t{1} << (index(m) % 64); }
  bool contains(Mutant m) const { return (bits_[index(m) / 64] >> (index(m) % 64)) & 1u; }
  bool empty() const { return bits_[0] == 0 && bits_[1] == 0; }
  MutantSet& operator|=(const MutantSet& o) {
    bits_[0] |= o.bits_[0];
    bits_[1] |= o.bits_[1];
    return *this;
  }
  std::array<std::uint64_t, 2> words() const { return bits_; }
  static MutantSet from_words(std::array<std::uint64_t, 2> w) {
    MutantSet s;
    s.bits_ = w;
    return s;
  }
  /// The members' names, in all_mutants() order.
  std::vector<std::string> names() const;

 private:
  static unsigned index(Mutant m) { return static_cast<unsigned>(m); }
  std::array<std::uint64_t, 2> bits_{};
};
static_assert(static_cast<unsigned>(Mutant::Count) <= 128, "MutantSet holds 128 switches");

Mutant active_mutant();
/// Set before a run, never during one (the sites read it without synchronisation beyond an atomic).
void set_active_mutant(Mutant m);

// ---- Switch-read recording (docs/mutation.md, "Inside and outside, measured") ----
// While recording is on, every `mutated(m)` call, from any thread, notes m in every open ReadScope. The harness turns
// it on for the unmutated run only. What a scope collects is an over-approximation when scopes overlap in time on
// several threads (a read is noted in every scope open at that moment), never an under-approximation: a switch read
// while a scope is open is in its set.
void set_mutant_read_recording(bool on);
bool mutant_read_recording();
void note_mutant_read(Mutant m);

inline bool mutated(Mutant m) {
  if (mutant_read_recording()) note_mutant_read(m);
  return active_mutant() == m;
}

/// Collects the switches read while it is open. Inert (reads() empty) when recording was off when it opened.
class ReadScope {
 public:
  ReadScope();
  ~ReadScope();
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;
  /// What was read since it opened.
  MutantSet reads() const;
  bool active() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

/// Marks the code that is a check's own computation: what the check computes to compare with the thing it judges
/// (a certified error from a model's weights, the inverted bound, the verdict), not the thing judged (a construction,
/// a family, a fitted model). The switches read inside are recorded under the check's id; a mutant whose switch the
/// check's computation never reads is *outside* that check. Several scopes with one id add up.
class CheckComputation {
 public:
  explicit CheckComputation(std::string check_id);
  ~CheckComputation();
  CheckComputation(const CheckComputation&) = delete;
  CheckComputation& operator=(const CheckComputation&) = delete;

 private:
  std::string id_;
  ReadScope scope_;
};

/// Every check id a CheckComputation recorded since the last clear, with the switches read inside.
std::map<std::string, MutantSet> recorded_check_reads();
void clear_recorded_check_reads();

}  // namespace infoflow
