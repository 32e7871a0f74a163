// The OpenCL backend: the two exported entry points of the plugin ABI.
//
// query touches no OpenCL function, so the plugin is listed even where no driver is installed.
// init enumerates platforms and devices; with no platform at all it reports "unavailable" and
// leaves every other backend untouched.
#include "kernels/register.hpp"
#include "program/program_cache.hpp"
#include "runtime/host.hpp"
#include "runtime/platform.hpp"
#include "runtime/runtime.hpp"

#include <xd/plugin.hpp>

#ifndef XD_OPENCL_PLUGIN_VERSION
#define XD_OPENCL_PLUGIN_VERSION "0.0.0"
#endif

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  xd::plugin::identity id{"opencl", XD_OPENCL_PLUGIN_VERSION,
                          "OpenCL backend (kernels built at run time, binary cache in XD_CACHE_DIR)",
                          XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_CPU | XD_DEVICE_KIND_ACCELERATOR};
  id.family = "xpu";  // after Level Zero; its GPUs, then accelerators, never its CPU devices
  id.family_preference = 1;
  id.family_kinds = XD_DEVICE_KIND_GPU | XD_DEVICE_KIND_ACCELERATOR;
  return xd::plugin::fill_info(info, id);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  if (host == nullptr || api == nullptr || host->set_error == nullptr || host->register_kernel == nullptr)
    return XD_ERR_INVALID_ARGUMENT;
  xd::ocl::set_host(host);
  return xd::plugin::guarded(host, [&]() -> xd_status {
    std::string reason;
    if (xd::ocl::discover(reason) != XD_OK) return host->set_error(host->ctx, XD_ERR_UNAVAILABLE, reason.c_str());
    xd_plugin_api mine{};
    mine.struct_size = sizeof mine;
    mine.ctx = nullptr;  // state is per process (runtime/platform.cpp)
    xd::ocl::fill_device_api(mine);
    xd::ocl::fill_memory_api(mine);
    xd::ocl::fill_stream_api(mine);
    mine.codegen_languages = 0;

    xd::plugin::registrar r(host);
    xd::ocl::register_pointwise(r);
    xd::ocl::register_random(r);
    xd::ocl::register_reduction(r);
    xd::ocl::register_softmax(r);
    xd::ocl::register_rms_norm(r);
    xd::ocl::register_matmul(r);
    xd::ocl::register_int4(r);
    xd::ocl::register_sparse(r);
    xd::ocl::register_quant_mm(r);
    xd::ocl::log(XD_LOG_DEBUG, std::to_string(xd::ocl::device_count()) + " device(s), " + std::to_string(r.count()) +
                                   " kernels registered");
    xd::plugin::fill_api(api, mine);
    return XD_OK;
  });
}
