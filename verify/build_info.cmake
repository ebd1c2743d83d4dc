# Writes OUT (a header) with the project version and the git commit the build was made from, rewriting it only when
# its content changes (so nothing recompiles when the commit is the same). Run at every build by verify/CMakeLists.txt.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT changes STREQUAL "")
    set(commit "${commit}-dirty")
  endif()
endif()
file(WRITE "${OUT}.tmp" "#pragma once\n#define INFOFLOW_VERSION \"${VERSION}\"\n#define INFOFLOW_COMMIT \"${commit}\"\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
