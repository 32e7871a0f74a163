#include "kernels/launch.hpp"

#include "kernel_table.hpp"

namespace xd::l0 {

int64_t element_size(int32_t dtype) {
  switch (dtype) {
    case XD_DTYPE_F64:
    case XD_DTYPE_I64: return 8;
    case XD_DTYPE_F32:
    case XD_DTYPE_I32: return 4;
    case XD_DTYPE_F16:
    case XD_DTYPE_BF16: return 2;
    default: return 1;
  }
}

namespace {

kernel_object& find_kernel(const xd_kernel_call* c, const char* source, int32_t dtype, const std::string& entry) {
  device& d = device_at(c->device);
  const char* tag = xpu::dtype_tag(dtype);
  if (tag == nullptr) throw plugin::error(XD_ERR_INVALID_ARGUMENT, "levelzero: unknown dtype " + std::to_string(dtype));
  if (dtype == XD_DTYPE_F64 && !d.fp64)
    throw plugin::error(XD_ERR_NOT_IMPLEMENTED, std::string("levelzero: ") + d.props.name +
                                                    " has no fp64 support; f64 kernels cannot run on it");
  return d.modules->kernel(source, tag, entry);
}

}  // namespace

launch::launch(const xd_kernel_call* c, const char* source, int32_t dtype, const std::string& entry)
    : stream_(*static_cast<stream*>(c->stream)),
      kernel_(find_kernel(c, source, dtype, entry)),
      lock_(kernel_.mutex) {}

launch& launch::ptr(const xd_view& v) {
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
  ze_group_count_t groups{static_cast<uint32_t>((work + gx - 1) / gx), 1, 1};
  stream_.submit([&](ze_command_list_handle_t l) {
    check(zeCommandListAppendLaunchKernel(l, kernel_.handle, &groups, nullptr, 0, nullptr),
          ("zeCommandListAppendLaunchKernel(" + kernel_.name + ")").c_str());
  });
}

}  // namespace xd::l0
