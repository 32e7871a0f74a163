// The OpenCL backend as an XPU variant (common/variant.hpp; the entry points are
// common/entry_points.cpp). Its query touches no OpenCL function, so the plugin is listed even
// where no driver is installed; opening it enumerates platforms and devices, and with no platform
// at all it reports "unavailable" and leaves every other backend untouched.
#include "codegen.hpp"
#include "common/variant.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "runtime/platform.hpp"
#include "runtime/runtime.hpp"

#ifndef XD_OPENCL_PLUGIN_VERSION
#define XD_OPENCL_PLUGIN_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kDescription = "OpenCL backend (kernels built at run time, binary cache in XD_CACHE_DIR)";
constexpr uint32_t kDeviceKinds = XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_CPU | XD_DEVICE_KIND_ACCELERATOR;

constexpr std::array kFillRuntime = {xd::ocl::fill_device_api, xd::ocl::fill_memory_api, xd::ocl::fill_stream_api};

void discover_or_fail() {
  std::string reason;
  if (xd::ocl::discover(reason) != XD_OK) throw xd::plugin::error(XD_ERR_UNAVAILABLE, reason);
}

}  // namespace

const xd::xpu::variant& xd::xpu::this_variant() {
  using namespace xd::ocl;
  static const variant v{"opencl",   XD_OPENCL_PLUGIN_VERSION, kDescription, kDeviceKinds,    1, declared_options(),
                         launch_api, discover_or_fail,         kFillRuntime, fill_codegen_api};
  return v;
}
