// Whether an OpenCL device gets matmul_dpas.cl's kernel (Intel matrix engines through
// cl_intel_subgroup_matrix_multiply_accumulate), and for which sub-group size: from what the device
// reports and XD_OPENCL_MATMUL_DPAS. Pure (no OpenCL call), so tests decide it for made-up devices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace xd::ocl {

struct dpas_choice {
  int sub_group = 0;      // 8 or 16: the kernel is built for that layout; 0: it is not built
  bool emulated = false;  // the builtins are emulated in OpenCL C (-DXD_DPAS_EMULATE)
  std::string why;        // the reason, in words, either way
};

// `option`: XD_OPENCL_MATMUL_DPAS (auto, 0, emulate, emulate8, emulate16); `extensions`:
// CL_DEVICE_EXTENSIONS; `sub_group_sizes`: CL_DEVICE_SUB_GROUP_SIZES_INTEL (empty when not
// reported); `max_work_group`: CL_DEVICE_MAX_WORK_GROUP_SIZE. `auto` builds it where the device
// lists the extension and the two it depends on (cl_intel_required_subgroup_size for the sizes and
// the kernel's required size, cl_intel_subgroups for the sub-group builtins an OpenCL C 1.2 program
// calls), its smallest sub-group size is 8 or 16 (the extension's layouts), and a work-group of four
// such sub-groups fits.
dpas_choice choose_dpas(std::string_view option, std::string_view extensions, std::span<const int64_t> sub_group_sizes,
                        int64_t max_work_group);

// Whether the space-separated list `extensions` names `name` (a whole word).
bool has_extension(std::string_view extensions, std::string_view name);

}  // namespace xd::ocl
