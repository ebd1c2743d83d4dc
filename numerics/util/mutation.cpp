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
       {"lemmas", "thm3-aggregation-decoding"}},
      {Mutant::PlannerRetrievalGrows, "planner-retrieval-grows", "the planner prices max-retrieval as growing with T",
       {"infoflow-framework"}},
      {Mutant::L3FamilyReversed, "l3-family-reversed",
       "L3's family error computed with the two groups' scores swapped", {"thm2-kth-retrieval"}},
  };
  return list;
}

}  // namespace infoflow
