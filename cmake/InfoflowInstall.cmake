# `cmake --install build --prefix P` installs the libraries (namespaced infoflow::numerics, infoflow::reports,
# infoflow::theorems, infoflow::cli), their headers under P/include/infoflow/, the executables, a CMake package
# (find_package(infoflow_verify)) with a version file, and a pkg-config file. tests/install_consumer_test.sh builds a
# small project against the installed prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(infoflow_libraries infoflow_numerics infoflow_reports infoflow_theorems infoflow_cli)
foreach(lib IN LISTS infoflow_libraries)
  string(REPLACE "infoflow_" "" short ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${short})
  add_library(infoflow::${short} ALIAS ${lib})
endforeach()

set(infoflow_executables infoflow-verify thm1-depth-separation thm2-kth-retrieval thm3-aggregation-decoding paper-experiments)
if(TARGET infoflow-verify-mpi)
  list(APPEND infoflow_executables infoflow-verify-mpi)
endif()

install(TARGETS ${infoflow_libraries} EXPORT infoflow_verifyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/infoflow)
install(TARGETS ${infoflow_executables} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Headers keep their paths below the source root ("numerics/model/forward.hpp"), under include/infoflow/.
foreach(dir numerics reports theorems verify)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/infoflow/${dir}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.inc")
endforeach()

set(infoflow_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/infoflow_verify)
install(EXPORT infoflow_verifyTargets NAMESPACE infoflow:: DESTINATION ${infoflow_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/infoflow_verifyConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/infoflow_verifyConfig.cmake INSTALL_DESTINATION ${infoflow_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/infoflow_verifyConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/infoflow_verifyConfig.cmake ${PROJECT_BINARY_DIR}/infoflow_verifyConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/InfoflowDependencies.cmake
        DESTINATION ${infoflow_cmake_dir})

# Relocatable: the prefix is found from the .pc file's own place (pkg-config's pcfiledir), so `--prefix` at install
# time is honoured.
file(RELATIVE_PATH INFOFLOW_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/infoflow_verify.pc.in ${PROJECT_BINARY_DIR}/infoflow_verify.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/infoflow_verify.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
