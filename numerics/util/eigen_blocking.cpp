#include "numerics/util/eigen_blocking.hpp"

#include <Eigen/Core>

namespace infoflow {

void pin_eigen_cache_sizes() {
  const EigenCacheSizes s;
  Eigen::setCpuCacheSizes(s.l1, s.l2, s.l3);
}

}  // namespace infoflow
