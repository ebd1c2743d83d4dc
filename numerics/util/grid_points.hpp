#pragma once
// The points of a full grid, visited in one fixed order: the first coordinate moves fastest. Callers that list
// inputs by this order (the completion families' G^m prefixes) rely on it to match one another.
#include <vector>

namespace infoflow {

/// Calls visit(idx) for every index vector of r coordinates with G values each (r ≥ 1, G ≥ 1), idx[0] fastest.
template <class Visit>
void for_each_grid_point(int r, long G, Visit visit) {
  std::vector<long> idx(r, 0);
  while (true) {
    visit(static_cast<const std::vector<long>&>(idx));
    int i = 0;
    while (i < r && ++idx[i] == G) idx[i++] = 0;
    if (i == r) break;
  }
}

}  // namespace infoflow
