#include "launcher.hpp"

#include "common/kernel_list.hpp"
#include "common/rows.hpp"
#include "program/module_cache.hpp"
#include "runtime/stream.hpp"

#include <algorithm>
#include <mutex>
#include <string>

namespace xd::l0 {

namespace {

kernel_object& find_kernel(device& d, const xpu::program& p, const char* entry) {
  const std::string tag = xpu::module_tag(p.dtype, p.wtype);
  if (tag.empty()) plugin::invalid("unknown dtype " + std::to_string(p.dtype));
  if (xpu::module_needs_fp64(p.dtype, p.wtype) && !d.fp64)
    plugin::fail(XD_ERR_NOT_IMPLEMENTED,
                 std::string(d.props.name) + " has no fp64 support; f64 kernels cannot run on it");
  return d.modules->kernel(p.source, tag.c_str(), entry);
}

// A fixed group size against what the kernel was compiled for and what the device runs:
// XD_ERR_NOT_IMPLEMENTED naming the limit.
void check_group_size(const device& dev, const kernel_object& k, const uint32_t local[3]) {
  const ze_kernel_properties_t& kp = k.props;
  const std::string what = k.name + " on " + dev.props.name + ": work-group " + std::to_string(local[0]) + "x" +
                           std::to_string(local[1]) + "x" + std::to_string(local[2]);
  auto refuse = [&](const std::string& why) { plugin::fail(XD_ERR_NOT_IMPLEMENTED, what + " " + why); };
  const uint32_t req[3] = {kp.requiredGroupSizeX, kp.requiredGroupSizeY, kp.requiredGroupSizeZ};
  if ((req[0] | req[1] | req[2]) != 0 && (req[0] != local[0] || req[1] != local[1] || req[2] != local[2]))
    refuse("differs from the kernel's required group size " + std::to_string(req[0]) + "x" + std::to_string(req[1]) +
           "x" + std::to_string(req[2]) + " (the SPIR-V was built for another XD_WG)");
  const uint64_t total = uint64_t{local[0]} * local[1] * local[2];
  if (total > dev.max_group_size)
    refuse("(" + std::to_string(total) + " work-items) exceeds the device's maxTotalGroupSize " +
           std::to_string(dev.max_group_size) +
           "; the SPIR-V modules are compiled for XD_WG=" + std::to_string(kWorkGroup));
  for (int d = 0; d < 3; ++d)
    if (local[d] > dev.max_group_size_dim[d])
      refuse("exceeds the device's maxGroupSize" + std::string(1, static_cast<char>('X' + d)) + " " +
             std::to_string(dev.max_group_size_dim[d]));
  // The compiler picks a SIMD width per kernel; maxSubgroupSize * maxNumSubgroups is then the
  // largest group this kernel can run (register pressure can lower it below the device's limit).
  if (kp.maxSubgroupSize != 0 && kp.maxNumSubgroups != 0 && total > uint64_t{kp.maxSubgroupSize} * kp.maxNumSubgroups)
    refuse("exceeds this kernel's limit of " + std::to_string(uint64_t{kp.maxSubgroupSize} * kp.maxNumSubgroups) +
           " work-items (maxSubgroupSize " + std::to_string(kp.maxSubgroupSize) + " x maxNumSubgroups " +
           std::to_string(kp.maxNumSubgroups) + ")");
  if (kp.localMemSize > dev.max_local_memory)
    refuse("needs " + std::to_string(kp.localMemSize) + " bytes of local memory, more than the device's " +
           std::to_string(dev.max_local_memory));
}

// The group size and count of a launch of `items` work-items, from zeKernelSuggestGroupSize: for
// kernels without a required group size (pointwise, the _lane kernels).
void size_for_items(const device& dev, const kernel_object& k, uint64_t items, uint32_t local[3], uint64_t count[3]) {
  if (items > 0xffffffffull * 1024) plugin::invalid(k.name + ": too many work-items");
  // Asked for a multiple of 256 so that a prime work size does not get a group size of 1; the
  // kernels ignore work-items past `items`.
  const uint64_t padded = (items + 255) / 256 * 256;
  uint32_t gy = 1, gz = 1;
  const uint32_t hint = padded > 0xffffffffull ? 0xffffff00u : static_cast<uint32_t>(padded);
  check(zeKernelSuggestGroupSize(k.handle, hint, 1, 1, &local[0], &gy, &gz), "zeKernelSuggestGroupSize");
  local[1] = local[2] = 1;
  count[0] = (items + local[0] - 1) / local[0];
  count[1] = count[2] = 1;
  if (count[0] > dev.max_group_count[0])
    plugin::invalid(k.name + ": " + std::to_string(count[0]) + " work-groups exceed the device's maxGroupCountX " +
                    std::to_string(dev.max_group_count[0]));
}

class levelzero_api final : public xpu::api {
 public:
  int32_t device_count() const override { return l0::device_count(); }
  const xpu::device_info& device(int32_t index) const override {
    if (index < 0 || index >= device_count()) plugin::invalid("no device " + std::to_string(index));
    return device_at(index).launch;
  }

  void enqueue(const xd_kernel_call* c, const xpu::program& p, const char* entry, std::span<const xpu::kernel_arg> args,
               const xpu::grid& g) override {
    (void)device(c->device);  // the index, checked
    l0::device& dev = device_at(c->device);
    stream& s = *static_cast<stream*>(c->stream);
    kernel_object& k = find_kernel(dev, p, entry);
    // Arguments live in the kernel object until the append captures them.
    const std::lock_guard lock(k.mutex);
    for (size_t i = 0; i < args.size(); ++i) {
      const ze_result_t r = zeKernelSetArgumentValue(k.handle, static_cast<uint32_t>(i), args[i].size, args[i].value);
      if (r != ZE_RESULT_SUCCESS) fail(r, "zeKernelSetArgumentValue(" + k.name + ", " + std::to_string(i) + ")");
    }
    uint32_t local[3] = {1, 1, 1};
    uint64_t count[3] = {1, 1, 1};
    if (g.by_groups) {
      for (uint32_t d = 0; d < g.dims; ++d) {
        local[d] = g.local[d];
        count[d] = g.count[d];
      }
      check_group_size(dev, k, local);
      for (int d = 0; d < 3; ++d)
        if (count[d] > dev.max_group_count[d])
          plugin::invalid(k.name + ": " + std::to_string(count[d]) + " work-groups along " +
                          std::string(1, static_cast<char>('x' + d)) + " exceed the device's maxGroupCount " +
                          std::to_string(dev.max_group_count[d]));
    } else {
      size_for_items(dev, k, g.items, local, count);
    }
    check(zeKernelSetGroupSize(k.handle, local[0], local[1], local[2]),
          ("zeKernelSetGroupSize(" + k.name + ")").c_str());
    const ze_group_count_t groups{static_cast<uint32_t>(count[0]), static_cast<uint32_t>(count[1]),
                                  static_cast<uint32_t>(count[2])};
    s.submit([&](ze_command_list_handle_t l) {
      check(zeCommandListAppendLaunchKernel(l, k.handle, &groups, nullptr, 0, nullptr),
            ("zeCommandListAppendLaunchKernel(" + k.name + ")").c_str());
    });
  }
};

}  // namespace

xpu::device_info launch_info(const device& d) {
  xpu::device_info i;
  i.name = d.props.name;
  i.fp64_feature = "fp64 (ZE_DEVICE_MODULE_FLAG_FP64)";
  i.fp64 = d.fp64;
  i.compute_units = d.compute_units;
  i.work_group = kWorkGroup;
  i.max_work_group = std::max<int64_t>(d.max_group_size, 1);
  i.row_items = xpu::kRowItems;
  for (int k = 0; k < 3; ++k) i.max_groups[k] = std::max<int64_t>(d.max_group_count[k], 1);
  i.matmul_dpas_sg = d.dpas_sub_group;
  i.matmul_dpas_why = d.dpas_why.c_str();
  return i;
}

xpu::api& launch_api() {
  static levelzero_api api;
  return api;
}

}  // namespace xd::l0
