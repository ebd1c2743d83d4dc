#include "verify/build_info.hpp"

#include "build_commit.hpp"  // INFOFLOW_BUILD_COMMIT, written at build time by cmake/build_commit.cmake

namespace infoflow {

std::string build_commit() { return INFOFLOW_BUILD_COMMIT; }

std::string build_version() { return std::string(INFOFLOW_VERSION) + " (commit " + INFOFLOW_BUILD_COMMIT + ")"; }

}  // namespace infoflow
