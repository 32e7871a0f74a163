// The Level Zero backend: the two exported entry points of the plugin ABI.
//
// The kernels are the shared OpenCL C sources of plugins/xpu/kernels, compiled to SPIR-V when the
// plugin was built. xd_plugin_query touches no Level Zero function, so a machine without a
// driver still lists the plugin; xd_plugin_init runs zeInit and reports XD_ERR_UNAVAILABLE
// ("no Level Zero driver: ...", with the loader's result code) when there is none.
#include "kernels/register.hpp"
#include "runtime/driver.hpp"
#include "runtime/host.hpp"
#include "runtime/runtime.hpp"

#include <xd/plugin.hpp>

#ifndef XD_LEVELZERO_PLUGIN_VERSION
#define XD_LEVELZERO_PLUGIN_VERSION "0.0.0"
#endif

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  xd::plugin::identity id{"levelzero", XD_LEVELZERO_PLUGIN_VERSION,
                          "Intel GPUs through Level Zero (the XPU kernels as SPIR-V compiled at build time)",
                          XD_DEVICE_KIND_GPU};
  id.family = "xpu";  // the XPU variant tried first
  id.family_preference = 2;
  id.family_kinds = XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_ACCELERATOR;
  return xd::plugin::fill_info(info, id);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  if (host == nullptr || api == nullptr || host->set_error == nullptr || host->register_kernel == nullptr)
    return XD_ERR_INVALID_ARGUMENT;
  xd::l0::set_host(host);
  return xd::plugin::guarded(host, [&] {
    // First, so that a machine without a driver registers nothing and says why.
    xd::l0::init_platform();

    xd_plugin_api mine{};
    mine.struct_size = sizeof mine;
    mine.ctx = nullptr;  // the platform is process-global: init runs at most once
    xd::l0::fill_device_api(mine);
    xd::l0::fill_memory_api(mine);
    xd::l0::fill_stream_api(mine);
    mine.codegen_languages = 0;

    xd::plugin::registrar r(host);
    xd::l0::register_kernels(r);
    xd::l0::log(XD_LOG_DEBUG, "registered " + std::to_string(r.count()) + " kernels");
    xd::plugin::fill_api(api, mine);
  });
}
