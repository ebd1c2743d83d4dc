#include "verify/build_info.hpp"

#include "build_info_generated.hpp"  // written at build time by verify/build_info.cmake

namespace infoflow {

std::string build_version() { return std::string(INFOFLOW_VERSION) + " (commit " + INFOFLOW_COMMIT + ")"; }

}  // namespace infoflow
