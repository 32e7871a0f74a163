// The CPU reference backend: the two exported entry points of the plugin ABI.
//
// It is the conformance oracle every other backend is compared with, so its kernels favour
// obvious correctness (accumulation in double, fixed summation orders independent of threads
// and layouts) and add contiguous fast paths and OpenMP only where they do not change results.
// It declares itself the host reference (XD_PLUGIN_FLAG_HOST_REFERENCE): xd::cpu(), the default
// device and the target of XD_FALLBACK=cpu.
#include "codegen/codegen.hpp"
#include "kernels/kernel_list.hpp"
#include "runtime/runtime.hpp"

#include <xd/plugin.hpp>

#ifndef XD_CPU_PLUGIN_VERSION
#define XD_CPU_PLUGIN_VERSION "0.0.0"
#endif

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  xd::plugin::identity id{"cpu", XD_CPU_PLUGIN_VERSION,
                          "CPU reference backend (plain loops, OpenMP, oneDNN matmul where available)",
                          XD_DEVICE_KIND_CPU};
  id.flags = XD_PLUGIN_FLAG_HOST_REFERENCE;
  id.options = xd::cpu::codegen::options();
  return xd::plugin::fill_info(info, id);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  return xd::plugin::init(host, api, [](xd_plugin_api& mine, xd::plugin::registrar& r) {
    mine.ctx = nullptr;  // all state is global: one device, nothing per context
    xd::cpu::fill_device_api(mine);
    xd::cpu::fill_memory_api(mine);
    xd::cpu::fill_stream_api(mine);
    xd::cpu::register_kernels(r);
    xd::cpu::codegen::fill_codegen_api(mine);  // generated C++ kernels (docs/compiler.md)
  });
}
