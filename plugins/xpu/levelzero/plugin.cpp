// The Level Zero backend as an XPU variant (common/variant.hpp; the entry points are
// common/entry_points.cpp). The kernels are the shared OpenCL C sources of plugins/xpu/kernels,
// compiled to SPIR-V when the plugin was built. Its query touches no Level Zero function, so a
// machine without a driver still lists the plugin; opening it runs zeInit first and reports
// XD_ERR_UNAVAILABLE ("no Level Zero driver: ...", with the loader's result code) when there is
// none, so that such a machine registers nothing.
#include "codegen.hpp"
#include "common/variant.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "runtime/driver.hpp"
#include "runtime/runtime.hpp"

#ifndef XD_LEVELZERO_PLUGIN_VERSION
#define XD_LEVELZERO_PLUGIN_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kDescription =
    "Intel GPUs through Level Zero (the XPU kernels as SPIR-V compiled at build time, generated kernels at run time)";

void open_driver() { xd::l0::init_platform(); }

}  // namespace

const xd::xpu::variant& xd::xpu::this_variant() {
  static const variant v{"levelzero",
                         XD_LEVELZERO_PLUGIN_VERSION,
                         kDescription,
                         XD_DEVICE_KIND_GPU,
                         2,
                         l0::declared_options(),
                         l0::launch_api,
                         open_driver,
                         std::array{l0::fill_device_api, l0::fill_memory_api, l0::fill_stream_api},
                         l0::fill_codegen_api};
  return v;
}
