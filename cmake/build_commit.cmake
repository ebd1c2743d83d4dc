# Run at build time (not configure time): writes OUT with the current commit, marked "-dirty" when
# tracked files differ from it, and rewrites OUT only when that changes (so nothing rebuilds needlessly).
# The commit stamps every result and every checkpoint fingerprint, so a code change is never mistaken
# for the code that computed a cached point.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY "${SRC}"
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  # No git (a source tarball): a digest of every source file, so an edited tree still never shares a stamp with
  # the tree that computed a cached point.
  file(GLOB_RECURSE sources "${SRC}/numerics/*.cpp" "${SRC}/numerics/*.hpp" "${SRC}/theorems/*.cpp" "${SRC}/theorems/*.hpp"
       "${SRC}/reports/*.cpp" "${SRC}/reports/*.hpp" "${SRC}/verify/*.cpp" "${SRC}/verify/*.hpp")
  list(SORT sources)
  set(all "")
  foreach(f IN LISTS sources)
    file(SHA1 "${f}" h)
    file(RELATIVE_PATH rel "${SRC}" "${f}")
    string(APPEND all "${rel} ${h}\n")
  endforeach()
  string(SHA1 tree_hash "${all}")
  string(SUBSTRING "${tree_hash}" 0 12 tree_hash)
  set(commit "nogit-${tree_hash}")
else()
  # The content of the uncommitted changes (not only which files), so two different edits never share a stamp.
  execute_process(COMMAND git diff HEAD WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(SHA1 changes_hash "${changes}")
    string(SUBSTRING "${changes_hash}" 0 8 changes_hash)
    set(commit "${commit}-dirty-${changes_hash}")
  endif()
endif()
set(content "#pragma once\n// Generated at build time by cmake/build_commit.cmake.\n#define INFOFLOW_BUILD_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
