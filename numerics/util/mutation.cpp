#include "numerics/util/mutation.hpp"

#include "numerics/util/errors.hpp"

#include <atomic>
#include <mutex>

namespace infoflow {

namespace {
std::atomic<Mutant> g_active{Mutant::None};

// Read recording. A scope owns a slot while it is open; a read sets its bit in every open slot. 32 slots: scopes nest
// a few deep (a stage, a check), and a sweep's worker threads may each hold one.
constexpr int kSlots = 32;
struct Slot {
  std::atomic<std::uint64_t> bits[2];
};
Slot g_slots[kSlots];
std::atomic<std::uint32_t> g_open{0};
std::atomic<bool> g_recording{false};

std::mutex g_check_mutex;
std::map<std::string, MutantSet>& check_reads() {
  static std::map<std::string, MutantSet> m;
  return m;
}

int open_slot() {
  std::uint32_t open = g_open.load(std::memory_order_acquire);
  for (;;) {
    if (open == ~std::uint32_t{0}) throw ContractError("ReadScope", "more than 32 read scopes open at once");
    const int i = __builtin_ctz(~open);
    g_slots[i].bits[0].store(0, std::memory_order_relaxed);
    g_slots[i].bits[1].store(0, std::memory_order_relaxed);
    if (g_open.compare_exchange_weak(open, open | (std::uint32_t{1} << i), std::memory_order_acq_rel)) return i;
  }
}
}  // namespace

Mutant active_mutant() { return g_active.load(std::memory_order_relaxed); }
void set_active_mutant(Mutant m) { g_active.store(m, std::memory_order_relaxed); }

void set_mutant_read_recording(bool on) { g_recording.store(on, std::memory_order_release); }
bool mutant_read_recording() { return g_recording.load(std::memory_order_relaxed); }

void note_mutant_read(Mutant m) {
  const unsigned index = static_cast<unsigned>(m);
  const unsigned word = index / 64;
  const std::uint64_t bit = std::uint64_t{1} << (index % 64);
  for (std::uint32_t open = g_open.load(std::memory_order_acquire); open; open &= open - 1) {
    std::atomic<std::uint64_t>& w = g_slots[__builtin_ctz(open)].bits[word];
    // Test first: a hot loop reads the same switch millions of times, and a store on every one would make the
    // threads fight over the cache line.
    if (!(w.load(std::memory_order_relaxed) & bit)) w.fetch_or(bit, std::memory_order_relaxed);
  }
}

ReadScope::ReadScope() {
  if (mutant_read_recording()) slot_ = open_slot();
}

ReadScope::~ReadScope() {
  if (slot_ >= 0) g_open.fetch_and(~(std::uint32_t{1} << slot_), std::memory_order_acq_rel);
}

MutantSet ReadScope::reads() const {
  if (slot_ < 0) return {};
  return MutantSet::from_words({g_slots[slot_].bits[0].load(std::memory_order_acquire),
                                g_slots[slot_].bits[1].load(std::memory_order_acquire)});
}

CheckComputation::CheckComputation(std::string check_id) : id_(std::move(check_id)) {}

CheckComputation::~CheckComputation() {
  if (!scope_.active()) return;
  const MutantSet reads = scope_.reads();
  const std::lock_guard<std::mutex> lock(g_check_mutex);
  check_reads()[id_] |= reads;
}

std::map<std::string, MutantSet> recorded_check_reads() {
  const std::lock_guard<std::mutex> lock(g_check_mutex);
  return check_reads();
}

void clear_recorded_check_reads() {
  const std::lock_guard<std::mutex> lock(g_check_mutex);
  check_reads().clear();
}

std::vector<std::string> MutantSet::names() const {
  std::vector<std::string> out;
  for (const auto& m : all_mutants())
    if (contains(m.id)) out.push_back(m.name);
  return out;
}

const MutantInfo* find_mutant(const std::string& name) {
  for (const auto& m : all_mutants())
    if (m.name == name) return &m;
  return nullptr;
}

// The test that catches the mutants of the dual balls' kinks (tests/test_certify.cpp).
const char* const kSoundnessCampaignTest =
    "\"certify's soundness campaign at the suite's settings catches defects of the enclosures at kinks\"";

// The test that catches the mutants of the affine forms' remainders (tests/test_affine_form.cpp).
const char* const kAffinePointwiseTest = "\"affine forms: the defects of their linearisations are caught point by point\"";
const char* const kAffineSliverTest = "\"affine forms: a max whose order is known up to a sliver holds the other's values\"";

// The test that catches a symmetry taken where it does not hold (tests/test_certify.cpp).
const char* const kSymmetryTest = "\"certify leaves out token permutations only where the model and target have them\"";
const char* const kContractionTest = "\"a box contracted to the fundamental domain keeps every sorted point of the box\"";

// The test that catches a GeLU ball without its minimum (tests/test_scalars.cpp).
const char* const kGeluBallTest =
    "\"GeLU: double, MPFR and arb agree with the erf form, and balls hold every point's value, slope and curvature\"";

const std::vector<MutantInfo>& all_mutants() {
  static const std::vector<MutantInfo> list = {
      {Mutant::ConstructionWeightPerturbed, "construction-weight-perturbed",
       "one FFN_1 input weight of the Theorem 1 construction off by 1e-3", {"thm1-depth-separation"}},
      {Mutant::ConstructionBetaHalved, "construction-beta-halved",
       "the Theorem 1 construction's temperatures are half of what its error budget needs", {"thm1-depth-separation"}},
      {Mutant::L5PieceDropped, "l5-piece-dropped", "one hinge of an L5 square interpolant is left out",
       {"lemmas", "thm1-depth-separation"}},
      {Mutant::GibbsSupTooSmall, "gibbs-sup-10pct-small", "S(T, beta) computed 10% too small",
       {"lemmas", "thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::SoftmaxWithoutShift, "softmax-without-max-shift",
       "softmax evaluated without subtracting the largest logit (overflows at large beta)",
       {"lemmas", "thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::ReadoutWrongSlot, "readout-wrong-slot", "the construction's readout reads the G slot instead of X[0]",
       {"thm1-depth-separation"}},
      {Mutant::TargetSkipsDiagonal, "target-skips-diagonal", "min_{s,t} x(s).x(t) computed without the pairs s = t",
       {"thm1-depth-separation"}},
      {Mutant::KthOffByOne, "kth-off-by-one", "the k-th largest target returns the (k+1)-th", {"thm2-kth-retrieval"}},
      {Mutant::ArgmaxBetaHalved, "argmax-beta-halved", "the k = 1 construction's temperature is halved",
       {"thm2-kth-retrieval"}},
      {Mutant::PackingDeltaDoubled, "packing-delta-doubled", "the packing bound's delta_N is doubled (a looser bound)",
       {"thm3-aggregation-decoding"}},
      {Mutant::ClosestPairSecondBest, "closest-pair-not-closest",
       "the closest-pair search reports a pair 10% farther apart than the closest", {"thm3-aggregation-decoding"}},
      {Mutant::FitterSlopeBias, "fitter-slope-bias", "every fitted slope and its intervals shifted by +0.1",
       {"lemmas", "thm3-aggregation-decoding"}},
      {Mutant::PlannerRetrievalGrows, "planner-retrieval-grows", "the planner prices max-retrieval as growing with T",
       {"infoflow-framework"}},
      {Mutant::L3FamilyReversed, "l3-family-reversed",
       "L3's family error computed with the two groups' scores swapped", {"thm2-kth-retrieval"}},
      {Mutant::GibbsSimpleBoundHalved, "gibbs-simple-bound-halved", "L1's simple bound (T-1)/(e beta) computed as half",
       {"lemmas"}},
      {Mutant::L2BoundHalved, "l2-bound-halved", "L2's off-arg-max weight bound computed as half", {"lemmas"}},
      {Mutant::RankWeightThreshold, "rank-weight-threshold", "L3's rank-weight excess measured against 1/(k+1), not 1/k",
       {"lemmas", "thm2-kth-retrieval"}},
      {Mutant::L5BoundHalved, "l5-bound-halved", "L5's interpolation error bound (b-a)^2/(4m^2) computed as half",
       {"lemmas"}},
      {Mutant::ArbExpDropsRadius, "arb-exp-drops-radius", "arb's exp evaluated at 53 bits with its radius dropped",
       {"lemmas"}},
      {Mutant::ConstructionExtraPiece, "construction-extra-piece",
       "the Theorem 1 construction uses m + 1 pieces while its formula says m", {"thm1-depth-separation"}},
      {Mutant::FitterSkipsSolve, "fitter-skips-solve", "the model and decoder fitters keep their initial models",
       {"thm1-depth-separation", "thm2-kth-retrieval", "thm3-aggregation-decoding"}},
      {Mutant::KernelDirectionPerturbed, "kernel-direction-perturbed",
       "the linear map's kernel direction is off by 1e-3 in one coordinate", {"thm3-aggregation-decoding"}},
      {Mutant::WitnessGapRelaxed, "witness-gap-relaxed", "the witness search accepts target gaps of 1.5 eps, not 3 eps",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::PlannerIgnoresSpecific, "planner-ignores-specific",
       "the planner's specific-position heads add nothing to the information set", {"infoflow-framework"}},
      {Mutant::PlannerOrder3AsOrder2, "planner-order3-as-order2",
       "the planner treats an order-3 comparison like an order-2 one", {"infoflow-framework"}},
      {Mutant::CountsAffineAsFfn, "counts-affine-as-ffn", "M_ffn also counts the affine encoder and readout",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::PackingWithoutNormaliser, "packing-without-normaliser",
       "the class packing container forgets the normaliser: dimension hn instead of h(n+1)", {"thm1-depth-separation"}},
      {Mutant::CompletionFamilyUnchecked, "completion-family-unchecked",
       "the completion family is declared certified with a range 4x wider than its conditions allow",
       {"thm1-depth-separation"}},
      {Mutant::DilutionBoundDoubled, "dilution-bound-doubled", "the one-head dilution bound is computed as (1 - 2 eps) T",
       {"thm1-depth-separation"}},
      {Mutant::CompletionSlackSignFlipped, "completion-slack-sign-flipped",
       "the completion family's z_j.x_k condition is evaluated with its sign flipped", {"thm1-depth-separation"}},
      {Mutant::PackingGridStuckAtTwo, "packing-grid-stuck-at-two", "the packing bound's grid search returns G = 2 only",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::ValueNormSkipsEncoder, "value-norm-skips-encoder",
       "value norms R are computed from the positional term only (the encoder's output dropped)", {"thm1-depth-separation"}},
      {Mutant::MirrorRankOffByOne, "mirror-rank-off-by-one",
       "the mirrored order-statistic family reveals T - k instead of T - k + 1 statistics", {"thm2-kth-retrieval"}},
      {Mutant::BnbDropsGradient, "bnb-drops-gradient",
       "certify's mean-value form uses a zero gradient, so a box's enclosure is the centre value only",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::ClassFitUnbounded, "class-fit-unbounded",
       "the class fits forget their [-1, 1] parameter bounds, so their models leave the class the lower bound covers",
       {"thm1-depth-separation"}},
      {Mutant::ClassCapDropsWidth, "class-cap-drops-width",
       "the largest readout L·R of a [-1, 1] model is computed without the readout width, so the certified lower "
       "curve of the sandwich is too high",
       {"thm1-depth-separation"}},
      {Mutant::EpsLowerReturnsLr, "eps-lower-returns-lr",
       "the inverted class bound returns the bound's L·R value (a double like any other) where its eps was meant",
       {"thm1-depth-separation"}},
      {Mutant::ExperimentColumnsSwapped, "experiment-columns-swapped",
       "the intrinsic-dimension results attached to the wrong cells: the (D,D) and (D-1,D) columns exchanged",
       {"paper-experiments"}, true},
      {Mutant::TriangleLengthsReversed, "triangle-lengths-reversed",
       "the triangle-centre results attached to the sequence lengths in reverse order",
       {"paper-experiments"}, true},
      // Defects away from every check's own computation: in the code that produces what the checks compare.
      {Mutant::DualBallDropsSoftmaxDerivative, "dual-ball-drops-softmax-derivative",
       "the softmax weights' derivative is dropped from the dual balls' gradient, so certify's mean-value form "
       "encloses too little",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::CompletionAngleOffByOne, "completion-angle-off-by-one",
       "the completion family's input generator puts the completion z_j at the angle of j + 1",
       {"thm1-depth-separation"}},
      {Mutant::CompletionRangeDoubled, "completion-range-doubled",
       "the completion family's stored parameters carry twice the range their search certified",
       {"thm1-depth-separation"}},
      {Mutant::PackingNormaliserSignFlipped, "packing-normaliser-sign-flipped",
       "the packing capacity's normaliser term (the (2Rm + delta)/delta factor) enters with its sign flipped, so the "
       "class bound is too strong",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::SoftmaxCoefficientQuartered, "softmax-coefficient-quartered",
       "the dual balls' softmax derivative coefficient w_t w_s is taken as a quarter of itself, so certify's gradient "
       "enclosures miss derivatives where the softmax is mixed",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::RoundingWeightTermTenth, "rounding-weight-term-tenth",
       "the float64 rounding bound (certify --execution double) takes the softmax weights' rounding term as a tenth "
       "of itself, so near a tie of the logits it is below the rounding",
       {"thm2-kth-retrieval"}},
      {Mutant::ConvexCombinationWeightsAtLowerEnds, "convex-combination-weights-at-lower-ends",
       "the range of the attention output on a box (Σ_t w_t v_t over the simplex within the weights' enclosures) is "
       "taken with each weight fixed at its lower end, a mass below 1, so certify's box enclosures miss values where "
       "the softmax is mixed",
       {"thm2-kth-retrieval"}},
      {Mutant::ContinuityFloorWholeRange, "continuity-floor-whole-range",
       "the continuity floor (no continuous one-layer model below it) taken as the completion family's whole range, not "
       "half of it, so it claims twice what Lebesgue's theorem gives",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::CodeModelDropsDigit, "code-model-drops-digit",
       "the code model's readout Lipschitz bound d*G^(T*d) computed with one base-G digit too few, so the certified "
       "upper side of the single-layer cost is G times too small",
       {"thm1-depth-separation"}},
      {Mutant::SnakeGrayParity, "snake-gray-parity",
       "the snake encoder's closed-form Gray order counts digit j's reversals per g^j ranks instead of per g^(j+1), so the "
       "decoder built from it interpolates the wrong configurations",
       {"thm3-aggregation-decoding"}},
      {Mutant::SnakeCopiesMerged, "snake-copies-merged",
       "the snake decoder gives each breakpoint one unit carrying the whole slope change (an output weight above 1): "
       "its width, counted, would meet the stated exponent while leaving the class",
       {"thm3-aggregation-decoding"}},
      // Interval gradients at kinks (numerics/scalar/dual_ball.cpp): found only by certify's soundness campaign on
      // random models (tests/test_certify.cpp), which the quick profile's suites do not run.
      {Mutant::DualMaxOneSideGradient, "dual-max-one-side-gradient",
       "the max of two overlapping dual balls keeps the gradient of the one with the larger midpoint instead of the "
       "hull of both (the Clarke gradient at a tie of min, max or kth_largest)",
       {}, false, kSoundnessCampaignTest},
      {Mutant::DualReluFullSlope, "dual-relu-full-slope",
       "a ReLU whose input straddles 0 passes its input's gradient unscaled (slope 1 where the flat side has 0)",
       {}, false, kSoundnessCampaignTest},
      {Mutant::DualSqrtAtZeroFlat, "dual-sqrt-at-zero-flat",
       "the square root of a ball that reaches 0 gets a zero gradient, so norm's kink at 0 is taken as flat",
       {}, false, kSoundnessCampaignTest},
      // Affine forms (numerics/scalar/affine_form.cpp): certify's relational enclosure. A remainder too small by a
      // little hides among the others that a whole model's form carries; the pointwise test on single operations
      // (tests/test_affine_form.cpp) catches those.
      {Mutant::AffineProductDropsRemainder, "affine-product-drops-remainder",
       "an affine form's product forgets the off-diagonal part of its quadratic remainder (sum over i != j of "
       "|a_i||b_j|), so a product of two forms on a box is enclosed too narrowly",
       {}, false, kAffinePointwiseTest},
      {Mutant::AffineNoiseSymbolReused, "affine-noise-symbol-reused",
       "the last input's affine form takes the first input's noise symbol, so two independent inputs are treated as "
       "moving together",
       {"thm1-depth-separation"}},
      {Mutant::AffineExpMinRangeSlope, "affine-exp-min-range-slope",
       "exp is linearised with the min-range slope e^lo but the remainder formulas of the secant (Chebyshev) slope, "
       "which for that slope give a remainder of 0",
       {}, false, kAffinePointwiseTest},
      {Mutant::AffineReciprocalRemainderHalved, "affine-reciprocal-remainder-halved",
       "1/x's linearisation adds half of its remainder bound to the centre",
       {}, false, kAffinePointwiseTest},
      {Mutant::AffineSoftmaxRemainderHalved, "affine-softmax-remainder-halved",
       "the softmax weight's tangent plane adds half of its Lagrange remainder bound (the Hessian over the logit "
       "differences' ranges) to the centre",
       {}, false, kAffinePointwiseTest},
      {Mutant::DoubleAffineReluRemainderHalved, "double-affine-relu-remainder-halved",
       "the double affine form's ReLU chord (the search's own, done in doubles) adds half of its remainder G to the "
       "centre, G/4 ± G/4 instead of G/2 ± G/2",
       {}, false, kAffinePointwiseTest},
      {Mutant::FreshNoiseSymbolShared, "fresh-noise-symbol-shared",
       "every remainder named by a fresh noise symbol gets the scope's first one, so independent remainders (two "
       "attention outputs') are taken as moving together and can cancel in a difference",
       {}, false, kAffinePointwiseTest},
      {Mutant::AffineMaxSliverDropped, "affine-max-sliver-dropped",
       "the max of two affine forms whose order is known up to a sliver below 0 is taken as the larger one, without "
       "the sliver's remainder [0, -lo]",
       {}, false, kAffineSliverTest},
      {Mutant::SymmetryIgnoresPositions, "symmetry-ignores-positions",
       "certify takes a model with a positional table as invariant under token permutations, so it leaves out boxes "
       "whose error is not an image of any box it searches",
       {}, false, kSymmetryTest},
      {Mutant::SortedContractionTooFar, "sorted-contraction-too-far",
       "a box contracted to the fundamental domain of token permutations raises each token's lower end to the middle "
       "of the previous token's side, not to its lower end, so sorted points of the box are left out of every leaf",
       {}, false, kContractionTest},
      // GeLU units (numerics/scalar/gelu.cpp, affine_linearisation.hpp): no suite certifies a GeLU model, so the
      // tests that hold the enclosures against points catch these.
      {Mutant::GeluHullMissesMinimum, "gelu-hull-misses-minimum",
       "GeLU's ball enclosure spans only the values at the ball's ends, leaving out the minimum -0.17 where the ball "
       "reaches the turning point x* = -0.7518",
       {}, false, kGeluBallTest},
      {Mutant::AffineGeluCurvatureDropped, "affine-gelu-curvature-dropped",
       "GeLU's affine linearisation (its secant) encloses the distance by the first-order Taylor term alone, without "
       "the curvature term (1/2)·sup|GeLU''|·r^2",
       {}, false, kAffinePointwiseTest},
  };
  return list;
}

}  // namespace infoflow
