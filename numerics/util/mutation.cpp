#include "numerics/util/mutation.hpp"

#include <atomic>

namespace infoflow {

namespace {
std::atomic<Mutant> g_active{Mutant::None};
}

Mutant active_mutant() { return g_active.load(std::memory_order_relaxed); }
void set_active_mutant(Mutant m) { g_active.store(m, std::memory_order_relaxed); }

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
       {"lemmas", "thm3-aggregation-decoding"}, false, {"lemmas/fitter.synthetic-coverage", "lemmas/series:fitter-synthetic"}},
      {Mutant::PlannerRetrievalGrows, "planner-retrieval-grows", "the planner prices max-retrieval as growing with T",
       {"infoflow-framework"}},
      {Mutant::L3FamilyReversed, "l3-family-reversed",
       "L3's family error computed with the two groups' scores swapped", {"thm2-kth-retrieval"}},
      {Mutant::GibbsSimpleBoundHalved, "gibbs-simple-bound-halved", "L1's simple bound (T-1)/(e beta) computed as half",
       {"lemmas"}, false, {"lemmas/L1.simple-bound-dominates"}},
      {Mutant::L2BoundHalved, "l2-bound-halved", "L2's off-arg-max weight bound computed as half", {"lemmas"}, false,
       {"lemmas/L2.off-argmax-weight"}},
      {Mutant::RankWeightThreshold, "rank-weight-threshold", "L3's rank-weight excess measured against 1/(k+1), not 1/k",
       {"lemmas", "thm2-kth-retrieval"}, false, {"lemmas/L3.rank-weights", "thm2-kth-retrieval/L3.random-monotone-scores"}},
      {Mutant::L5BoundHalved, "l5-bound-halved", "L5's interpolation error bound (b-a)^2/(4m^2) computed as half",
       {"lemmas"}, false, {"lemmas/L5.interpolant-error"}},
      {Mutant::ArbExpDropsRadius, "arb-exp-drops-radius", "arb's exp evaluated at 53 bits with its radius dropped",
       {"lemmas"}},
      {Mutant::ConstructionExtraPiece, "construction-extra-piece",
       "the Theorem 1 construction uses m + 1 pieces while its formula says m", {"thm1-depth-separation"}},
      {Mutant::FitterSkipsSolve, "fitter-skips-solve", "the model and decoder fitters keep their initial models",
       {"thm1-depth-separation", "thm2-kth-retrieval", "thm3-aggregation-decoding"}},
      {Mutant::KernelDirectionPerturbed, "kernel-direction-perturbed",
       "the linear map's kernel direction is off by 1e-3 in one coordinate", {"thm3-aggregation-decoding"}, false,
       {"thm3-aggregation-decoding/linear-map.information-loss"}},
      {Mutant::WitnessGapRelaxed, "witness-gap-relaxed", "the witness search accepts target gaps of 1.5 eps, not 3 eps",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::PlannerIgnoresSpecific, "planner-ignores-specific",
       "the planner's specific-position heads add nothing to the information set", {"infoflow-framework"}},
      {Mutant::PlannerOrder3AsOrder2, "planner-order3-as-order2",
       "the planner treats an order-3 comparison like an order-2 one", {"infoflow-framework"}},
      {Mutant::CountsAffineAsFfn, "counts-affine-as-ffn", "M_ffn also counts the affine encoder and readout",
       {"thm1-depth-separation", "thm2-kth-retrieval"}},
      {Mutant::PackingWithoutNormaliser, "packing-without-normaliser",
       "the class packing container forgets the normaliser: dimension hn instead of h(n+1)", {"thm1-depth-separation"},
       false, {"thm1-depth-separation/class-bound.slope"}},
      {Mutant::CompletionFamilyUnchecked, "completion-family-unchecked",
       "the completion family is declared certified with a range 4x wider than its conditions allow",
       {"thm1-depth-separation"}, false, {"thm1-depth-separation/class-bound.family-certified"}},
      {Mutant::DilutionBoundDoubled, "dilution-bound-doubled", "the one-head dilution bound is computed as (1 - 2 eps) T",
       {"thm1-depth-separation"}},
      {Mutant::CompletionSlackSignFlipped, "completion-slack-sign-flipped",
       "the completion family's z_j.x_k condition is evaluated with its sign flipped", {"thm1-depth-separation"}, false,
       {"thm1-depth-separation/class-bound.family-certified"}},
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
       {"thm1-depth-separation"}, false, {"thm1-depth-separation/class-fits.cap-attained"}},
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
  };
  return list;
}

}  // namespace infoflow
