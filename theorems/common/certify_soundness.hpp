#pragma once
// The soundness campaign of `certify` (docs/certify.md §4.1), the way verifiers are tested: random models × random
// targets of the framework's syntax with kinks × random boxes, each certified bound held against a dense search in
// 256-bit MPFR with local refinement. The certified upper bound U must be ≥ every |model − F| the search attains;
// the attained lower bound L must be ≤ |model − F| at the input certify prints (which must lie in the box), and
// L ≤ U. And every enclosure of e = model − F the search takes on a box is itself a certified bound on that box:
// on random sub-boxes (whole width down to 2^-14 of it, half on kinks) it must contain e at every point the search
// finds inside. Anything else is an unsound triple, reported with its index so that it can be rerun alone.
//
// The search is the independent route: it never sees a ball or a gradient (the branch-and-bound's enclosures, where
// interval gradients at kinks go wrong); it evaluates the forward pass and the target in MPFR at points only.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace infoflow {

struct Check;

struct SoundnessCampaignOptions {
  long triples = 24;
  std::uint64_t seed = 0;
  long max_boxes = 400;       // per certify run (a box budget: the result does not depend on the machine)
  long search_points = 600;   // the dense search: the box's corners, its centre, uniform points, ties, zeros
  long refine_steps = 300;    // then a (1+1) local search from the four best points
  long sub_boxes = 24;        // sub-boxes of the box whose enclosures (the search's) are held against points inside
  long sub_box_points = 16;   // uniform points per sub-box, and twice as many local steps (beside its corners)
  int threads = 1;            // over triples (each triple is seeded by its index: any thread count, same result)
  long first = 0;             // the index of the first triple (to rerun one: first = its index, triples = 1)
};

/// One (model, target, box) triple and what came of it.
struct SoundnessTriple {
  long index = 0;
  std::uint64_t seed = 0;     // the triple's own seed (derived from the campaign's and the index)
  std::string model;          // the architecture and the weights' character, in words
  std::string target;
  std::string box_kind;       // cube, slab, kink or per-coordinate
  std::vector<double> lo, hi;
  double upper = 0;           // certified by certify
  double lower = 0;           // attained by certify (arb, rounded down)
  double attained = 0;        // the dense MPFR search's largest |model − F| (with certify's own input among its points)
  std::vector<double> attained_at;
  long boxes = 0;
  long sub_boxes = 0;         // sub-boxes whose enclosures were audited
  long evaluations = 0;       // MPFR evaluations of the search
  bool unsound = false;
  std::string problem;        // what was unsound, or an error certify raised
  /// U / attained (1 when both are 0; +inf for an infinite U or a zero attained error under a positive U).
  double tightness() const;
};

struct SoundnessCampaign {
  SoundnessCampaignOptions options;
  std::vector<SoundnessTriple> triples;
  long unsound = 0;
  /// Tightness U / attained in bins, keyed by their labels (kTightnessBins order).
  std::vector<std::pair<std::string, long>> histogram;
  double seconds = 0;
};

/// The bins of the tightness histogram, as labels; the last is "no finite bound".
const std::vector<std::string>& tightness_bins();

/// Runs the campaign. Throws InputError for triples outside 1..100000, budgets outside 1..1e7, threads outside 1..256.
SoundnessCampaign run_soundness_campaign(const SoundnessCampaignOptions& options);

void to_json(nlohmann::json& j, const SoundnessCampaign& c);
std::string soundness_campaign_table(const SoundnessCampaign& c);

/// The settings a suite runs the campaign with: `triples` triples from `seed` (so that `infoflow-verify
/// certify-soundness --seed S --triples N --max-boxes 150 ...`, as the check's figure prints it, reruns them), smaller
/// searches than the command's defaults so that the suite stays fast.
SoundnessCampaignOptions suite_soundness_options(long triples, std::uint64_t seed, int threads);

/// The campaign as a check (a self-check of `certify`, never evidence about the paper): fails on any unsound triple.
Check soundness_campaign_check(const std::string& id, const SoundnessCampaignOptions& options);

}  // namespace infoflow
