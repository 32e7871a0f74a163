// The settings the Level Zero plugin reads from the environment, declared in its query
// (xd_plugin_info.options: xd-info lists them) and parsed by include/xd/plugin.hpp's one parser.
// docs/env-vars.md has the same table for users.
#pragma once

#include <xd/plugin.hpp>

#include <span>

namespace xd::l0 {

enum class option {
  build_flags,  // XD_LEVELZERO_BUILD_FLAGS
  cache_dir,    // XD_CACHE_DIR (generated kernels' SPIR-V)
  clang,        // XD_CLANG
  llvm_spirv,   // XD_LLVM_SPIRV
  matmul_dpas,  // XD_LEVELZERO_MATMUL_DPAS
};

// Every declared option, in `option` order.
std::span<const xd_option_desc> declared_options();
inline const xd_option_desc& option_desc(option o) { return declared_options()[static_cast<size_t>(o)]; }

// XD_LEVELZERO_BUILD_FLAGS (the module cache and generated kernels append it to their flags).
inline const xd_option_desc& build_flags_option() { return option_desc(option::build_flags); }

}  // namespace xd::l0
