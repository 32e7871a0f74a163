#include "runtime/dpas.hpp"

#include "common/matmul.hpp"

namespace xd::ocl {

bool has_extension(std::string_view extensions, std::string_view name) {
  size_t pos = 0;
  while ((pos = extensions.find(name, pos)) != std::string_view::npos) {
    const size_t end = pos + name.size();
    const bool starts = pos == 0 || extensions[pos - 1] == ' ';
    const bool ends = end == extensions.size() || extensions[end] == ' ';
    if (starts && ends) return true;
    pos = end;
  }
  return false;
}

dpas_choice choose_dpas(std::string_view option, std::string_view extensions, std::span<const int64_t> sub_group_sizes,
                        int64_t max_work_group) {
  dpas_choice c;
  const int emulate = option == "emulate8" ? 8 : option == "emulate" || option == "emulate16" ? 16 : 0;
  const auto fits = [&](int sg) {
    if (xpu::kDpasSubGroups * sg <= max_work_group) return true;
    c.why = "a work-group of " + std::to_string(xpu::kDpasSubGroups * sg) + " work-items exceeds the device's " +
            std::to_string(max_work_group);
    return false;
  };
  if (option == "0") {
    c.why = "XD_OPENCL_MATMUL_DPAS=0";
    return c;
  }
  if (emulate != 0) {
    if (!fits(emulate)) return c;
    c.sub_group = emulate;
    c.emulated = true;
    c.why = "builtins emulated in OpenCL C for sub-group size " + std::to_string(emulate) +
            " (XD_OPENCL_MATMUL_DPAS=" + std::string(option) + ", a test mode)";
    return c;
  }
  for (const char* needed :
       {"cl_intel_subgroup_matrix_multiply_accumulate", "cl_intel_required_subgroup_size", "cl_intel_subgroups"})
    if (!has_extension(extensions, needed)) {
      c.why = std::string("the device does not report ") + needed;
      return c;
    }
  const int sg = xpu::dpas_sub_group_size(sub_group_sizes);
  if (sg == 0) {
    c.why = sub_group_sizes.empty() ? "the device reports no CL_DEVICE_SUB_GROUP_SIZES_INTEL"
                                    : "its smallest sub-group size is neither 8 nor 16";
    return c;
  }
  if (!fits(sg)) return c;
  c.sub_group = sg;
  c.why = "cl_intel_subgroup_matrix_multiply_accumulate, sub-group size " + std::to_string(sg);
  return c;
}

}  // namespace xd::ocl
