#pragma once
// What the model and decoder fitters share: the Levenberg–Marquardt settings, and the choice of the best
// of several restarts by validation RMSE.
#include "numerics/util/errors.hpp"

#include <ceres/ceres.h>

#include <cmath>
#include <string>
#include <vector>

namespace infoflow {

/// LM with a dense normal-equation solver (fastest on these problems, TOOLCHAIN.md), one Ceres thread
/// (restarts run in parallel under OpenMP), silent, tolerances tight enough that iterations stop the fit.
inline ceres::Solver::Options levenberg_marquardt_options(int max_iterations) {
  ceres::Solver::Options so;
  so.minimizer_type = ceres::TRUST_REGION;
  so.trust_region_strategy_type = ceres::LEVENBERG_MARQUARDT;
  so.linear_solver_type = ceres::DENSE_NORMAL_CHOLESKY;
  so.max_num_iterations = max_iterations;
  so.num_threads = 1;
  so.logging_type = ceres::SILENT;
  so.minimizer_progress_to_stdout = false;
  so.function_tolerance = 1e-12;
  so.gradient_tolerance = 1e-14;
  so.parameter_tolerance = 1e-12;
  return so;
}

/// The restart with the lowest finite validation RMSE (ties: the lower index, so the choice is
/// deterministic). Throws NumericError naming `what` when every restart diverged.
inline int best_restart(const std::vector<double>& valid_rmse, const std::string& what) {
  int best = -1;
  for (int r = 0; r < static_cast<int>(valid_rmse.size()); ++r)
    if (std::isfinite(valid_rmse[r]) && (best < 0 || valid_rmse[r] < valid_rmse[best])) best = r;
  if (best < 0) throw NumericError("every restart of the " + what + " diverged (non-finite validation error)");
  return best;
}

}  // namespace infoflow
