// The settings the OpenCL plugin reads from the environment, declared in its query
// (xd_plugin_info.options: xd-info lists them) and parsed by include/xd/plugin.hpp's one parser.
// docs/env-vars.md has the same table for users.
#pragma once

#include <xd/plugin.hpp>

#include <span>

namespace xd::ocl {

enum class option {
  cache_dir,            // XD_CACHE_DIR
  build_options,        // XD_OPENCL_BUILD_OPTIONS
  timestamps,           // XD_OPENCL_TIMESTAMPS
  int4_mma,             // XD_OPENCL_INT4_MMA
  matmul_mma,           // XD_OPENCL_MATMUL_MMA
  matmul_packed,        // XD_OPENCL_MATMUL_PACKED
  matmul_wgmma,         // XD_OPENCL_MATMUL_WGMMA
  matmul_tma,           // XD_OPENCL_MATMUL_TMA
  matmul_dpas,          // XD_OPENCL_MATMUL_DPAS
  int4_tuning,          // XD_OPENCL_INT4_TUNING
  rms_backward_groups,  // XD_OPENCL_RMS_BWD_GROUPS_PER_CU
};

// Every declared option, in `option` order.
std::span<const xd_option_desc> declared_options();
inline const xd_option_desc& option_desc(option o) { return declared_options()[static_cast<size_t>(o)]; }

}  // namespace xd::ocl
