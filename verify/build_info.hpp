#pragma once
#include <string>

namespace infoflow {

/// "0.1.0 (commit 1a2b3c4d5e6f)": the project version and the commit the binary was built from, the same stamp every
/// result carries ("-dirty-HASH" with uncommitted changes, "nogit-HASH" outside a git checkout).
std::string build_version();

/// The commit stamp alone ("1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty-HASH" or "nogit-HASH"): the build part of every
/// checkpoint fingerprint.
std::string build_commit();

}  // namespace infoflow
