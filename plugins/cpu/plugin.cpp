// The CPU reference backend: the two exported entry points of the plugin ABI.
//
// It is the conformance oracle every other backend is compared with, so its kernels favour
// obvious correctness (accumulation in double, fixed summation orders independent of threads
// and layouts) and add contiguous fast paths and OpenMP only where they do not change results.
#include "kernels/register.hpp"
#include "runtime/host.hpp"
#include "runtime/runtime.hpp"

#include <xd/plugin.hpp>

#ifndef XD_CPU_PLUGIN_VERSION
#define XD_CPU_PLUGIN_VERSION "0.0.0"
#endif

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  return xd::plugin::fill_info(info, "cpu", XD_CPU_PLUGIN_VERSION,
                               "CPU reference backend (plain loops, OpenMP, oneDNN matmul where available)",
                               XD_DEVICE_KIND_CPU);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  if (host == nullptr || api == nullptr || host->set_error == nullptr || host->register_kernel == nullptr)
    return XD_ERR_INVALID_ARGUMENT;
  xd::cpu::set_host(host);
  return xd::plugin::guarded(host, [&] {
    xd_plugin_api mine{};
    mine.struct_size = sizeof mine;
    mine.ctx = nullptr;  // all state is global: one device, nothing per context
    xd::cpu::fill_device_api(mine);
    xd::cpu::fill_memory_api(mine);
    xd::cpu::fill_stream_api(mine);
    mine.codegen_languages = 0;

    xd::plugin::registrar r(host);
    xd::cpu::register_creation(r);
    xd::cpu::register_random(r);
    xd::cpu::register_copy(r);
    xd::cpu::register_binary(r);
    xd::cpu::register_compare(r);
    xd::cpu::register_unary(r);
    xd::cpu::register_reduction(r);
    xd::cpu::register_softmax(r);
    xd::cpu::register_matmul_loop(r);
    xd::cpu::register_matmul_dnnl(r);
    xd::cpu::register_int_mm(r);
    xd::cpu::register_scaled_mm(r);
    xd::cpu::register_rms_norm(r);
    xd::cpu::register_int4(r);
    xd::cpu::register_sparse(r);
    xd::cpu::log(XD_LOG_DEBUG, "registered " + std::to_string(r.count()) + " kernels");

    xd::plugin::fill_api(api, mine);
  });
}
