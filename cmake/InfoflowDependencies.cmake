# Every dependency comes from Debian 12 packages (scripts/setup installs them) and is exposed as
# an imported target.
find_package(PkgConfig REQUIRED)
pkg_check_modules(MPFR REQUIRED IMPORTED_TARGET mpfr)
pkg_check_modules(GMP REQUIRED IMPORTED_TARGET gmp)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Ceres REQUIRED)
find_package(OpenMP REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
# HMAC-SHA256 for the seals on checkpoints (numerics/util/record_seal.hpp).
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)

# FLINT and arb ship neither pkg-config files nor CMake configs. Debian 12 has arb as the separate
# library flint-arb with /usr/include/arb.h; FLINT 3 moves it into <flint/arb.h> and -lflint.
find_path(FLINT_INCLUDE_DIR flint/flint.h REQUIRED)
find_library(FLINT_LIBRARY flint REQUIRED)
find_path(ARB_INCLUDE_DIR arb.h PATHS /usr/include /usr/include/flint)
find_library(ARB_LIBRARY NAMES flint-arb arb)
# Also read by the installed package (infoflow_verifyConfig.cmake): a second find_package must not redefine it.
if(NOT TARGET infoflow_flint)
  add_library(infoflow_flint INTERFACE IMPORTED)
  target_include_directories(infoflow_flint INTERFACE ${FLINT_INCLUDE_DIR})
  target_link_libraries(infoflow_flint INTERFACE ${FLINT_LIBRARY} PkgConfig::MPFR PkgConfig::GMP)
  if(ARB_LIBRARY)
    target_link_libraries(infoflow_flint INTERFACE ${ARB_LIBRARY})
  endif()
  if(ARB_INCLUDE_DIR)
    target_include_directories(infoflow_flint INTERFACE ${ARB_INCLUDE_DIR})
  endif()
  # mpreal.h must not see MPFR's intmax_t macros that arb.h switches on (arb.h before mpreal.h breaks mpreal otherwise).
  target_compile_definitions(infoflow_flint INTERFACE MPFR_USE_NO_MACRO= MPFR_USE_INTMAX_T=)
endif()

