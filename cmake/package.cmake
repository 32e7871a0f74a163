# What `cmake --install` adds beyond the targets themselves — the headers, the CMake package, the
# pkg-config file, the golden cases — and the Debian package CPack makes of it all
# (docs/packaging.md). Every installed path is relative to the prefix, so an install can be moved.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/xd DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS xd_headers xd_plugin_kit EXPORT xdispatch-targets)

# The CMake package: <libdir>/cmake/xdispatch/.
set(xd_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/xdispatch)
install(EXPORT xdispatch-targets NAMESPACE xdispatch:: DESTINATION ${xd_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/xdispatchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/xdispatchConfig.cmake
  INSTALL_DESTINATION ${xd_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR XD_PLUGIN_INSTALL_DIR XD_GOLDEN_INSTALL_DIR CMAKE_INSTALL_BINDIR)
# 0.x: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/xdispatchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/xdispatchConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/xdispatchConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/xdispatchPlugin.cmake
        DESTINATION ${xd_cmake_dir})

# pkg-config: <libdir>/pkgconfig/xdispatch.pc, its prefix found from its own folder.
file(RELATIVE_PATH XD_PC_PREFIX_FROM_PCDIR "/xd/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/xd")
string(REGEX REPLACE "/$" "" XD_PC_PREFIX_FROM_PCDIR "${XD_PC_PREFIX_FROM_PCDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/xdispatch.pc.in ${PROJECT_BINARY_DIR}/xdispatch.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/xdispatch.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The golden cases, for `xd-conform --golden` without a folder, and the example plugin a backend
# author starts from (docs/writing-a-backend.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tests/golden/ DESTINATION ${XD_GOLDEN_INSTALL_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out_of_tree_plugin
        DESTINATION ${CMAKE_INSTALL_DATADIR}/xdispatch/examples)

if(EXISTS ${PROJECT_SOURCE_DIR}/LICENSE)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

# ---------------------------------------------------------------- Debian package: cpack -G DEB
# One package with the library, plugins, tools, headers and CMake/pkg-config files, installed
# under /usr. Dependencies come from dpkg-shlibdeps (the plugins' libOpenCL, libze_loader,
# libdnnl, ...), so the package asks for exactly the Debian libraries this build linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME xdispatch)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "xdispatch developers <xdispatch@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Files that only the project's own tests need are not part of the install; neither are the
# Python module's (installed by `cmake --install` into the interpreter's site-packages).
set(CPACK_STRIP_FILES ON)
include(CPack)
