# xdispatch_add_plugin(<name> [INSTALL_DESTINATION <dir>] [ALLOW_UNDEFINED] SOURCES <file>...)
#
# Builds a backend plugin for xdispatch: a MODULE library named libxd_plugin_<name>.so (the only
# name the loader opens from a plugin folder), compiled with hidden visibility so that only the
# two entry points the plugin exports with XD_PLUGIN_EXPORT are visible and plugins never clash
# over each other's symbols, linked with --no-undefined (a missing symbol is a link error, not a
# "not a library" row at load time; ALLOW_UNDEFINED turns that off, e.g. for sanitizer builds
# whose runtime lives in the executable), and installed to INSTALL_DESTINATION (default
# ${CMAKE_INSTALL_LIBDIR}/xdispatch/plugins: the plugin folder next to libxdispatch when the
# plugin is installed into the same prefix as xdispatch; elsewhere, point XD_PLUGIN_PATH at it).
# The target is xd_plugin_<name>; it links xdispatch::plugin (include/xd/plugin_abi.h and the
# header-only helpers of include/xd/plugin.hpp) and nothing of libxdispatch itself: a plugin
# reaches the host only through the function table it is given at init.
#
# Shared by the project's own plugins and, through the installed package, by plugins built
# outside the tree (docs/writing-a-backend.md).
include_guard(GLOBAL)
include(GNUInstallDirs)

function(xdispatch_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ALLOW_UNDEFINED" "INSTALL_DESTINATION" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "xdispatch_add_plugin(${name}): unexpected arguments ${arg_UNPARSED_ARGUMENTS} "
                        "(sources go after SOURCES)")
  endif()
  if(NOT name MATCHES "^[a-z][a-z0-9_]*$" OR name MATCHES "^.{33}")
    message(FATAL_ERROR "xdispatch_add_plugin(${name}): a backend name is [a-z][a-z0-9_]*, at most 32 characters")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "xdispatch_add_plugin(${name}): no SOURCES")
  endif()
  if(NOT TARGET xdispatch::plugin)
    message(FATAL_ERROR "xdispatch_add_plugin(${name}): the target xdispatch::plugin is missing "
                        "(find_package(xdispatch) first)")
  endif()
  if(NOT arg_INSTALL_DESTINATION)
    set(arg_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/xdispatch/plugins)
  endif()
  set(target xd_plugin_${name})
  add_library(${target} MODULE ${arg_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME xd_plugin_${name}
    SUFFIX ".so"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${target} PRIVATE xdispatch::plugin)
  if(NOT arg_ALLOW_UNDEFINED)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${arg_INSTALL_DESTINATION})
endfunction()
