#include "numerics/sweep/distribution.hpp"

namespace infoflow {

namespace {
SweepDistributor* g_distributor = nullptr;
}

SweepDistributor* sweep_distributor() { return g_distributor; }
void set_sweep_distributor(SweepDistributor* d) { g_distributor = d; }
bool is_root_process() { return !g_distributor || g_distributor->is_root(); }

}  // namespace infoflow
