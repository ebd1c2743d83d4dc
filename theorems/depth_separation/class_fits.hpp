#pragma once
// Single-layer fits that live in the class the certified lower bounds speak about (docs/lower-bounds.md §6), and the
// sandwich they make with the class bound:
//   - every weight is kept in [−1, 1] by Ceres parameter bounds, the temperatures are free (and reported);
//   - ≥ 8 widths per T, ≥ 16 restarts per width, each width's first restart warm-started from the previous width;
//   - each final model's sup error over [0,1]^{T·d} is certified by branch-and-bound where T·d ≤ 8 (an upper bound
//     over the whole box and an attained input); beyond, only attained errors are known (labelled so);
//   - the certified lower curve: a model of this architecture with weights in [−1, 1] has readout L·R at most
//     n E² p (p(d+1) + 1), so the packing bound, inverted, says its error on the completion family (hence its sup
//     error) exceeds ε_lower(p).
// Upper envelope (certified, monotone in M) against lower curve (certified) is the sandwich, plotted per T.
#include "numerics/lower_bounds/completion_packing.hpp"
#include "theorems/depth_separation/class_lower_bound.hpp"
#include "theorems/depth_separation/depth_separation_config.hpp"
#include "theorems/suite.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace infoflow {

/// One width's best in-class fit.
struct ClassFit {
  int T = 0;
  int p = 0;
  std::size_t M_total = 0;
  double max_abs_weight = 0;  // ≤ 1 when the bounds held
  double beta = 0;            // the fitted temperature (free)
  double train_rmse = 0, valid_rmse = 0, valid_max = 0;
  int best_restart = -1;
  int restarts = 0;
  bool warm_started = false;
  std::string termination;
  std::string weights_file;
  nlohmann::json weights;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassFit, T, p, M_total, max_abs_weight, beta, train_rmse, valid_rmse, valid_max,
                                   best_restart, restarts, warm_started, termination, weights_file, weights)

/// One fitted model's errors: certified (branch-and-bound) where T·d ≤ the limit, sampled everywhere; and the
/// certified lower bounds on its error from the class bound.
struct ClassFitErrors {
  int T = 0;
  int p = 0;
  std::size_t M_total = 0;
  double sampled_max = 0;       // largest |model − F| over random inputs (double)
  long sampled_inputs = 0;
  bool certified = false;       // T·d ≤ limit: the upper bound, boxes and completeness are branch-and-bound's
  double certified_lower = 0;   // attained at an input (arb): the search's candidates, also when not certified
  double certified_upper = 0;   // over the whole box (arb); 0 when not certified
  long boxes = 0;
  bool complete = false;        // the requested gap was reached within the box budget
  double lr_cap = 0;            // n E² p (p(d+1) + 1): the largest L·R of any model of this shape in [−1, 1]
  double eps_lower_class = 0;   // certified: every such model has error > this on the family (0: nothing certified)
  double model_lr = 0;          // this model's own certified L·R (readout L, value norm R over the box)
  double eps_lower_model = 0;   // certified: this model's error on the family (completion or dilution) exceeds this
  DilutionModelCheck dilution;  // the one-head dilution bound against this model (its family error, L, R)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassFitErrors, T, p, M_total, sampled_max, sampled_inputs, certified,
                                   certified_lower, certified_upper, boxes, complete, lr_cap, eps_lower_class,
                                   model_lr, eps_lower_model, dilution)

/// The largest L·R = (readout Lipschitz) × (value norm) of a single-layer model with an FFN encoder d→p_e→E, h = 1
/// head of value dimension n, no positions, an FFN readout E→p_r→1, and every weight in [−1, 1], on inputs in
/// [0,1]^d (docs/lower-bounds.md §6): n E² p_r (p_e(d+1) + 1). Exact in double for the sizes used.
double in_class_lr_cap(int d, int E, int n, int p_encoder, int p_readout);

/// The largest ε (on a bisection in log ε, ≥ 1e-14) at which the certified packing bound says L·R > lr: every model
/// of C1(cls) with L·R ≤ lr has error > ε on the family. 0 when even ε = 1e-14 certifies nothing.
double eps_lower_for_lr(const SingleLayerClass& cls, const PackingFamily& family, double lr);

/// The one-head dilution bound (no positions) inverted: a model with L·R ≤ lr has error ≥ this on the dilution
/// inputs, (1 − 2 lr/T)/2 rounded down (0 when lr ≥ T/2).
double eps_lower_dilution(int T, double lr);

/// The class-fits section of the Theorem 1 suite: fits, certified errors, envelope, sandwich plots, checks.
void run_class_fits(const DepthSeparationConfig& cfg, const SuiteContext& ctx, SuiteResult& r);

}  // namespace infoflow
