#pragma once
// Theorem 1's two-layer side: for every (T, ε) of the sweep, build TwoLayerMinDotConstruction, certify
// it, export its weights, and measure its error in MPFR on the adversarial families (one
// ConstructionPoint per point, checkpointed). The checks are functions of those records.
#include "theorems/depth_separation/depth_separation_config.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace infoflow {

/// The sampled error of the construction on one input family, in MPFR.
struct FamilyError {
  double max_abs_error = 0.0;
  double max_signed = 0.0;  // largest ŷ − F
  double min_signed = 0.0;  // smallest ŷ − F
  std::size_t inputs = 0;
};

/// The certified error budget, term by term (two_layer_construction.hpp), as upper bounds.
struct ConstructionBudget {
  double interpolation = 0.0;      // L5 pieces, in arb
  double layer1_S = 0.0;           // S(T, β1)
  double layer2_S = 0.0;           // S(T, β2)
  double total = 0.0;              // their sum: the certified sup error
  double total_simple_form = 0.0;  // the same with (T−1)/(eβ) in place of S
};

/// One (T, ε) of the construction sweep.
struct ConstructionPoint {
  int T = 0;
  double eps = 0.0;
  int pieces_m = 0;
  int ffn_width = 0;
  std::size_t M_ffn = 0;
  std::size_t M_total = 0;
  double max_abs_weight = 0.0;
  double beta = 0.0;
  std::string weights_file;
  std::size_t exported_M_ffn = 0;  // M_ffn of the weights file as read back from disk
  bool hypotheses_ok = false;
  std::vector<std::string> violations;
  ConstructionBudget certified;
  std::map<std::string, FamilyError> sampled;  // by family name
  double sampled_max = 0.0;
  std::string worst_input;
  double tightness_ratio = 0.0;  // L1-worst-case error / certified total (0 when the certificate failed)

  std::string key() const;  // "T=..,eps=.." (the bounds' keys add ",d=..")
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FamilyError, max_abs_error, max_signed, min_signed, inputs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConstructionBudget, interpolation, layer1_S, layer2_S, total, total_simple_form)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConstructionPoint, T, eps, pieces_m, ffn_width, M_ffn, M_total, max_abs_weight, beta,
                                   weights_file, exported_M_ffn, hypotheses_ok, violations, certified, sampled, sampled_max, worst_input,
                                   tightness_ratio)

/// The smallest fraction of the certified bound the L1-worst-case family must reach (the bound is not loose).
inline constexpr double kMinTightnessRatio = 0.25;

// The checks, each a function of the records (unit-tested without JSON or a run).
Check construction_certified_check(const std::vector<ConstructionPoint>& points, int d);
Check construction_sampled_check(const std::vector<ConstructionPoint>& points, long mpfr_bits);
Check construction_tightness_check(const std::vector<ConstructionPoint>& points);
/// Fact: the width is the closed form of (d, ε) at every T, and the exported weights have exactly it.
Fact construction_width_fact(const std::vector<ConstructionPoint>& points, int d);

void run_construction_sweep(const DepthSeparationConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
