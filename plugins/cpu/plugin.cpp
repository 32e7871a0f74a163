// The CPU backend: the two exported entry points of the plugin ABI (docs/backends/cpu.md).
//
// Its reference loops (kernels/) are the conformance oracle every other backend is compared
// with, so they favour obvious correctness (accumulation in double, fixed summation orders
// independent of threads and layouts). The fast kernels (kernels/fast/) stand in front of them
// in each slot, declining what they do not take; XD_CPU_KERNELS=reference leaves them out.
// It declares itself the host reference (XD_PLUGIN_FLAG_HOST_REFERENCE): xd::cpu(), the default
// device and the target of XD_FALLBACK=cpu.
#include <xd/plugin.hpp>

#include "codegen/codegen.hpp"
#include "kernels/kernel_list.hpp"
#include "runtime/runtime.hpp"

#include <vector>

#ifndef XD_CPU_PLUGIN_VERSION
#define XD_CPU_PLUGIN_VERSION "0.0.0"
#endif

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  xd::plugin::identity id{
      "cpu", XD_CPU_PLUGIN_VERSION,
      "CPU backend (Highway-vectorised, OpenMP kernels in front of the reference loops; oneDNN matmul where available)",
      XD_DEVICE_KIND_CPU};
  id.flags = XD_PLUGIN_FLAG_HOST_REFERENCE;
  // The codegen's options (XD_CXX, XD_CACHE_DIR) and the kernels' (XD_CPU_KERNELS, XD_CPU_MAX_ISA).
  static const std::vector<xd_option_desc> options = [] {
    std::vector<xd_option_desc> all(xd::cpu::codegen::options().begin(), xd::cpu::codegen::options().end());
    all.push_back(xd::cpu::kernels_option());
    all.push_back(xd::cpu::isa_option());
    return all;
  }();
  id.options = options;
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
