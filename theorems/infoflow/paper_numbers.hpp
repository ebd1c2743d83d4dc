#pragma once
// The paper's measured validation NMSE (docs/theory.md §7), typed in once. Nothing is computed from these numbers:
// they are shown beside the planner's predictions (suite framework) and beside our own trainings (suite
// experiments), and only their ordering is compared.
#include <optional>

namespace infoflow {

/// Intrinsic dimension, T = 64: column 0 = (D,D), 1 = (D−1,D), 2 = (D,D−1); D = 2..6.
inline std::optional<double> paper_intrinsic_dimension_nmse(int D, int column) {
  static const double kNmse[5][3] = {{5.89e-5, 5.89e-2, 3.67e-2}, {6.37e-5, 2.64e-2, 2.07e-2}, {6.92e-5, 1.39e-2, 1.30e-2},
                                     {4.69e-4, 4.46e-3, 7.19e-3}, {1.99e-3, 6.26e-3, 7.67e-3}};
  if (D < 2 || D > 6 || column < 0 || column > 2) return std::nullopt;
  return kNmse[D - 2][column];
}

/// Triangle centre, (h1,h2,E) = (2,2,24), (4,4,24), (4,4,48) as columns 0..2; T = 8, 16, 32, 64.
inline std::optional<double> paper_triangle_nmse(int T, int h1, int h2, int E) {
  static const double kNmse[4][3] = {{0.086, 0.072, 0.080}, {0.843, 0.853, 0.856}, {0.957, 0.958, 0.959}, {0.985, 0.985, 0.985}};
  int row = -1, col = -1;
  for (int i = 0, t = 8; i < 4; ++i, t *= 2)
    if (T == t) row = i;
  if (h1 == 2 && h2 == 2 && E == 24) col = 0;
  if (h1 == 4 && h2 == 4 && E == 24) col = 1;
  if (h1 == 4 && h2 == 4 && E == 48) col = 2;
  if (row < 0 || col < 0) return std::nullopt;
  return kNmse[row][col];
}

}  // namespace infoflow
