#include "kernels/launch.hpp"

#include "kernel_table.hpp"
#include "xpu_plan.hpp"

namespace xd::l0 {

xpu::operand operand_of(const xd_view& v) { return {v.strides, xpu::element_offset(v, kBackend)}; }

xpu::layout layout_of(int ndim, const int64_t* sizes, std::initializer_list<xpu::operand> ops, uint64_t skip) {
  xpu::layout L{};
  if (!xpu::make_layout(L, ndim, sizes, ops, skip))
    throw plugin::error(XD_ERR_NOT_IMPLEMENTED, "levelzero: views of more than " + std::to_string(xpu::kMaxDims) +
                                                    " dims are not supported (this one has " + std::to_string(ndim) +
                                                    ")");
  return L;
}

device& call_device(const xd_kernel_call* c) {
  if (c->device < 0 || c->device >= device_count()) invalid("no device " + std::to_string(c->device));
  return device_at(c->device);
}

scratch workspace(const xd_kernel_call* c, uint64_t nbytes) {
  const xpu::host_scratch s = xpu::host_workspace(c, nbytes, kBackend);
  return {s.handle, s.offset};
}

int supports_device(const xd_kernel_call* c) {
  if (c->device < 0 || c->device >= device_count()) return 0;
  return device_at(c->device).fp64 || !xpu::has_f64_view(c) ? 1 : 0;
}

namespace {

kernel_object& find_kernel(device& d, const char* source, const std::string& tag, const std::string& entry) {
  int32_t dtype = -1, wtype = -1;
  if (!xpu::parse_module_tag(tag, dtype, wtype))
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: unknown module variant '" + tag + "'");
  if (xpu::module_needs_fp64(dtype, wtype) && !d.fp64)
    throw plugin::error(XD_ERR_NOT_IMPLEMENTED, std::string("levelzero: ") + d.props.name +
                                                    " has no fp64 support; f64 kernels cannot run on it");
  return d.modules->kernel(source, tag.c_str(), entry);
}

std::string tag_of(int32_t dtype) {
  const std::string tag = xpu::module_tag(dtype);
  if (tag.empty()) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: unknown dtype " + std::to_string(dtype));
  return tag;
}

}  // namespace

launch::launch(const xd_kernel_call* c, const char* source, const std::string& tag, const std::string& entry)
    : dev_(call_device(c)),
      stream_(*static_cast<stream*>(c->stream)),
      kernel_(find_kernel(dev_, source, tag, entry)),
      lock_(kernel_.mutex) {}

launch::launch(const xd_kernel_call* c, const char* source, int32_t dtype, const std::string& entry)
    : launch(c, source, tag_of(dtype), entry) {}

void launch::set(size_t size, const void* value) {
  const ze_result_t r = zeKernelSetArgumentValue(kernel_.handle, next_, size, value);
  if (r != ZE_RESULT_SUCCESS) fail(r, "zeKernelSetArgumentValue(" + kernel_.name + ", " + std::to_string(next_) + ")");
  ++next_;
}

launch& launch::ptr(const xd_view& v) {
  if (v.handle == nullptr) invalid("a view has no memory handle");
  void* p = v.handle;
  return value(p);
}

void launch::run(uint64_t work) {
  if (work == 0) return;
  if (work > 0xffffffffull * 1024)
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: " + kernel_.name + ": too many work-items");
  // Asked for a multiple of 256 so that a prime work size does not get a group size of 1; the
  // kernels ignore work-items past `work`.
  const uint64_t padded = (work + 255) / 256 * 256;
  uint32_t gx = 1, gy = 1, gz = 1;
  const uint32_t hint = padded > 0xffffffffull ? 0xffffff00u : static_cast<uint32_t>(padded);
  check(zeKernelSuggestGroupSize(kernel_.handle, hint, 1, 1, &gx, &gy, &gz), "zeKernelSuggestGroupSize");
  check(zeKernelSetGroupSize(kernel_.handle, gx, 1, 1), "zeKernelSetGroupSize");
  const uint64_t count = (work + gx - 1) / gx;
  if (count > dev_.max_group_count[0])
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: " + kernel_.name + ": " + std::to_string(count) +
                                                     " work-groups exceed the device's maxGroupCountX " +
                                                     std::to_string(dev_.max_group_count[0]));
  ze_group_count_t groups{static_cast<uint32_t>(count), 1, 1};
  stream_.submit([&](ze_command_list_handle_t l) {
    check(zeCommandListAppendLaunchKernel(l, kernel_.handle, &groups, nullptr, 0, nullptr),
          ("zeCommandListAppendLaunchKernel(" + kernel_.name + ")").c_str());
  });
}

void launch::run_groups(uint64_t groups) {
  const uint32_t local[3] = {kWorkGroup, 1, 1};
  const uint64_t count[3] = {groups, 1, 1};
  run_groups(local, count);
}

void launch::check_group_size(const uint32_t local[3]) const {
  const ze_kernel_properties_t& kp = kernel_.props;
  const std::string what = "levelzero: " + kernel_.name + " on " + dev_.props.name + ": work-group " +
                           std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" + std::to_string(local[2]);
  auto refuse = [&](const std::string& why) { throw plugin::error(XD_ERR_NOT_IMPLEMENTED, what + " " + why); };
  const uint32_t req[3] = {kp.requiredGroupSizeX, kp.requiredGroupSizeY, kp.requiredGroupSizeZ};
  if ((req[0] | req[1] | req[2]) != 0 && (req[0] != local[0] || req[1] != local[1] || req[2] != local[2]))
    refuse("differs from the kernel's required group size " + std::to_string(req[0]) + "x" + std::to_string(req[1]) +
           "x" + std::to_string(req[2]) + " (the SPIR-V was built for another XD_WG)");
  const uint64_t total = uint64_t{local[0]} * local[1] * local[2];
  if (total > dev_.max_group_size)
    refuse("(" + std::to_string(total) + " work-items) exceeds the device's maxTotalGroupSize " +
           std::to_string(dev_.max_group_size) + "; the SPIR-V modules are compiled for XD_WG=" +
           std::to_string(kWorkGroup));
  for (int d = 0; d < 3; ++d)
    if (local[d] > dev_.max_group_size_dim[d])
      refuse("exceeds the device's maxGroupSize" + std::string(1, static_cast<char>('X' + d)) + " " +
             std::to_string(dev_.max_group_size_dim[d]));
  // The compiler picks a SIMD width per kernel; maxSubgroupSize * maxNumSubgroups is then the
  // largest group this kernel can run (register pressure can lower it below the device's limit).
  if (kp.maxSubgroupSize != 0 && kp.maxNumSubgroups != 0 && total > uint64_t{kp.maxSubgroupSize} * kp.maxNumSubgroups)
    refuse("exceeds this kernel's limit of " + std::to_string(uint64_t{kp.maxSubgroupSize} * kp.maxNumSubgroups) +
           " work-items (maxSubgroupSize " + std::to_string(kp.maxSubgroupSize) + " x maxNumSubgroups " +
           std::to_string(kp.maxNumSubgroups) + ")");
  if (kp.localMemSize > dev_.max_local_memory)
    refuse("needs " + std::to_string(kp.localMemSize) + " bytes of local memory, more than the device's " +
           std::to_string(dev_.max_local_memory));
}

void launch::run_groups(const uint32_t local[3], const uint64_t groups[3]) {
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return;
  check_group_size(local);
  for (int d = 0; d < 3; ++d)
    if (groups[d] > dev_.max_group_count[d])
      throw plugin::error(XD_ERR_INVALID_ARGUMENT,
                          "levelzero: " + kernel_.name + ": " + std::to_string(groups[d]) + " work-groups along " +
                              std::string(1, static_cast<char>('x' + d)) + " exceed the device's maxGroupCount " +
                              std::to_string(dev_.max_group_count[d]));
  check(zeKernelSetGroupSize(kernel_.handle, local[0], local[1], local[2]),
        ("zeKernelSetGroupSize(" + kernel_.name + ")").c_str());
  ze_group_count_t count{static_cast<uint32_t>(groups[0]), static_cast<uint32_t>(groups[1]),
                         static_cast<uint32_t>(groups[2])};
  stream_.submit([&](ze_command_list_handle_t l) {
    check(zeCommandListAppendLaunchKernel(l, kernel_.handle, &count, nullptr, 0, nullptr),
          ("zeCommandListAppendLaunchKernel(" + kernel_.name + ")").c_str());
  });
}

}  // namespace xd::l0
