// What the OpenCL codegen tests share (codegen_test.cpp, codegen_probe.cpp): the plugin's
// xd_codegen_api as the core holds it (white-box: core/ headers), the plugin's handle of a tensor,
// and small kernels written the way docs/compiler.md says generated ones are: prelude names only,
// each buffer followed by its element offset, a 1-D grid whose extra work-items return.
#pragma once

#include <xd/xd.hpp>

#include "plugin/host_api.hpp"
#include "registry/registry.hpp"
#include "tensor/tensor_impl.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace xdo::cg {

// The opencl device's codegen table, with the plugin's numbering of the device.
struct Target {
  const xd_codegen_api* api = nullptr;
  void* ctx = nullptr;
  int32_t device = 0;
};

inline Target opencl_target(const xd::Device& d) {
  const xd::detail::DeviceRecord& rec = xd::detail::Registry::get().device(d);
  return {rec.backend->api.codegen, rec.backend->api.ctx, rec.plugin_device};
}

// The message the last failing plugin call reported through the host (and clears it).
inline std::string last_error() { return xd::detail::take_plugin_error(); }

// A BUFFER argument (the plugin's handle: a cl_mem) and the VALUE of its element offset.
struct BufferArgs {
  void* handle;
  int64_t offset;
};
inline BufferArgs buffer_of(const xd::Tensor& t) {
  const xd::detail::TensorImpl& i = t.impl();
  return {i.storage->handle, static_cast<int64_t>(i.byte_offset() / xd::itemsize(i.dtype))};
}

// A kernel's arguments in order: buffer() adds (buffer, offset), value() a long; `values` owns
// the bytes the VALUE arguments point to (a deque: they never move).
struct Args {
  std::vector<xd_codegen_arg> list;
  std::deque<int64_t> values;
  void buffer(const xd::Tensor& t) {
    const BufferArgs b = buffer_of(t);
    list.push_back({XD_CODEGEN_ARG_BUFFER, 0, b.handle});
    value(b.offset);
  }
  void value(int64_t v) {
    values.push_back(v);
    list.push_back({XD_CODEGEN_ARG_VALUE, sizeof(int64_t), &values.back()});
  }
};

inline xd_codegen_grid grid_1d(uint64_t global, uint64_t local) {
  xd_codegen_grid g{};
  g.dims = 1;
  g.global[0] = global;
  g.local[0] = local;
  return g;
}

// y = exp(tanh(x * w)) in dtype `tag`, rounded to the dtype after each op as the eager ops round.
inline std::string chain_kernel(const std::string& tag) {
  const std::string T = "xd_T_" + tag, dec = "xd_dec_" + tag, enc = "xd_from_f_" + tag;
  return "XD_KERNEL void chain_" + tag + "(__global " + T + "* y, long y_off, __global const " + T +
         "* x, long x_off, __global const " + T + "* w, long w_off, long n) {\n" +
         "  const long i = get_global_id(0);\n"
         "  if (i >= n) return;\n"
         "  const float m = " +
         dec + "(" + enc + "(" + dec + "(x[x_off + i]) * " + dec + "(w[w_off + i])));\n" + "  const float t = " + dec +
         "(" + enc + "(xd_tanh_f(m)));\n" + "  y[y_off + i] = " + enc +
         "(xd_exp_f(t));\n"
         "}\n";
}

// The probe's kernel: y = x * 2 + 1 over f32, constants written as bits.
inline const char* kAffineKernel =
    "XD_KERNEL void affine(__global xd_T_f32* y, long y_off, __global const xd_T_f32* x, long x_off, long n) {\n"
    "  const long i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  y[y_off + i] = xd_from_f_f32(xd_dec_f32(x[x_off + i]) * xd_bits_f(0x40000000u) + xd_bits_f(0x3f800000u));\n"
    "}\n";

}  // namespace xdo::cg
