// "toy": a complete xdispatch backend in one file, built from the installed package alone
// (docs/writing-a-backend.md walks through it). One device whose memory is ordinary host memory
// (so handle + offset is a host pointer), streams that run every call at once, and four f32
// kernels — copy (with the cast to every dtype), add, mul, relu — over any strides, broadcast
// operands included (the host hands them over with stride 0 on broadcast dims).
#include <xd/numeric.hpp>
#include <xd/plugin.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace {

namespace plugin = xd::plugin;

// ---------------------------------------------------------------- device, memory, streams
int32_t device_count(void*) { return 1; }

xd_status device_properties(void*, int32_t, xd_device_properties* out) {
  xd_device_properties p{};
  p.struct_size = sizeof p;
  plugin::copy_string(p.name, "toy device (host memory)");
  plugin::copy_string(p.vendor, "xdispatch example");
  plugin::copy_string(p.driver_version, "1");
  p.kind = XD_DEVICE_KIND_ACCELERATOR;
  p.flags = XD_DEVICE_FLAG_HOST_POINTERS;
  p.total_memory = uint64_t{1} << 30;
  p.compute_units = 1;
  plugin::copy_sized(out, p);
  return XD_OK;
}

xd_status mem_alloc(void*, int32_t, uint64_t nbytes, void** handle) {
  *handle = std::malloc(nbytes == 0 ? 1 : nbytes);
  if (*handle == nullptr)
    return plugin::report(XD_ERR_OUT_OF_MEMORY, "cannot allocate " + std::to_string(nbytes) + " bytes");
  return XD_OK;
}
xd_status mem_free(void*, int32_t, void* handle) {
  std::free(handle);
  return XD_OK;
}
xd_status copy_h2d(void*, int32_t, xd_stream, void* dst, uint64_t dst_offset, const void* src, uint64_t n, int32_t) {
  std::memcpy(static_cast<char*>(dst) + dst_offset, src, n);
  return XD_OK;
}
xd_status copy_d2h(void*, int32_t, xd_stream, void* dst, const void* src, uint64_t src_offset, uint64_t n, int32_t) {
  std::memcpy(dst, static_cast<const char*>(src) + src_offset, n);
  return XD_OK;
}
xd_status copy_d2d(void*, int32_t, xd_stream, void* dst, uint64_t dst_offset, const void* src, uint64_t src_offset,
                   uint64_t n) {
  std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, n);
  return XD_OK;
}

// Every call completes before it returns, so a stream or an event is only a token.
int g_token;
xd_status make_token(void*, int32_t, void** out) {
  *out = &g_token;
  return XD_OK;
}
xd_status no_op(void*, int32_t, void*) { return XD_OK; }
xd_status no_op2(void*, int32_t, void*, void*) { return XD_OK; }
xd_status no_timing(void*, int32_t, xd_event, xd_event, double*) {
  return plugin::report(XD_ERR_NOT_IMPLEMENTED, "events do not measure time (no XD_DEVICE_FLAG_TIMING)");
}

// ---------------------------------------------------------------- kernels
// Calls f(offsets...) for every element of `out`'s shape, with each operand's element offset.
template <int N, class F>
void for_each_element(const xd_view& out, const xd_view* const (&ops)[N], F&& f) {
  const int nd = out.ndim;
  int64_t index[8] = {};
  int64_t total = plugin::numel(out);
  for (int64_t done = 0; done < total; ++done) {
    int64_t off[N] = {};
    for (int k = 0; k < N; ++k)
      for (int d = 0; d < nd; ++d) off[k] += index[d] * ops[k]->strides[d];
    f(off);
    for (int d = nd - 1; d >= 0; --d) {  // next index, last dim fastest
      if (++index[d] < out.sizes[d]) break;
      index[d] = 0;
    }
  }
}

template <class Op>
xd_status binary(const xd_kernel_call* c, Op op) {
  const xd_view& a = plugin::input(c, 0);
  const xd_view& b = plugin::input(c, 1);
  const xd_view& out = plugin::output(c, 0);
  const float* pa = plugin::view(a).host_data<float>();
  const float* pb = plugin::view(b).host_data<float>();
  float* po = plugin::view(out).host_data<float>();
  const xd_view* const ops[3] = {&a, &b, &out};
  for_each_element(out, ops, [&](const int64_t* o) { po[o[2]] = op(pa[o[0]], pb[o[1]]); });
  return XD_OK;
}

xd_status add(const xd_kernel_call* c) {
  const float alpha = static_cast<float>(plugin::need_attrs<xd_attrs_scalar>(c).real);
  return binary(c, [alpha](float x, float y) { return x + alpha * y; });
}
xd_status mul(const xd_kernel_call* c) {
  return binary(c, [](float x, float y) { return x * y; });
}

xd_status relu(const xd_kernel_call* c) {
  const xd_view& a = plugin::input(c, 0);
  const xd_view& out = plugin::output(c, 0);
  const float* pa = plugin::view(a).host_data<float>();
  float* po = plugin::view(out).host_data<float>();
  const xd_view* const ops[2] = {&a, &out};
  // NaN stays NaN, as in PyTorch: max(x, 0) would turn it into 0.
  for_each_element(out, ops, [&](const int64_t* o) { po[o[1]] = pa[o[0]] > 0.0f || pa[o[0]] != pa[o[0]] ? pa[o[0]] : 0.0f; });
  return XD_OK;
}

// f32 -> any dtype, with the casting rules every backend shares with the CPU reference: narrow
// floats round to nearest even through xd/numeric.hpp (overflow gives Inf, or NaN for e4m3fn),
// float -> integer maps NaN to 0 and clamps to the range before truncating, bool is x != 0.
template <class I>
I to_integer(float x) {
  if (std::isnan(x)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<I>::min());
  const double hi = static_cast<double>(std::numeric_limits<I>::max());
  if (x <= lo) return std::numeric_limits<I>::min();
  if (x >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}

template <class T, class Convert>
void copy_as(const xd_view& src, const xd_view& dst, Convert convert) {
  const float* ps = plugin::view(src).host_data<float>();
  T* pd = plugin::view(dst).host_data<T>();
  const xd_view* const ops[2] = {&src, &dst};
  for_each_element(dst, ops, [&](const int64_t* o) { pd[o[1]] = convert(ps[o[0]]); });
}

xd_status copy(const xd_kernel_call* c) {
  const xd_view& src = plugin::input(c, 0);
  const xd_view& dst = plugin::output(c, 0);
  switch (dst.dtype) {
    case XD_DTYPE_F32: copy_as<float>(src, dst, [](float x) { return x; }); break;
    case XD_DTYPE_F64: copy_as<double>(src, dst, [](float x) { return static_cast<double>(x); }); break;
    case XD_DTYPE_F16: copy_as<uint16_t>(src, dst, [](float x) { return xd::half(x).bits; }); break;
    case XD_DTYPE_BF16: copy_as<uint16_t>(src, dst, [](float x) { return xd::bfloat16(x).bits; }); break;
    case XD_DTYPE_F8E4M3FN: copy_as<uint8_t>(src, dst, [](float x) { return xd::float8_e4m3fn(x).bits; }); break;
    case XD_DTYPE_F8E5M2: copy_as<uint8_t>(src, dst, [](float x) { return xd::float8_e5m2(x).bits; }); break;
    case XD_DTYPE_I8: copy_as<int8_t>(src, dst, to_integer<int8_t>); break;
    case XD_DTYPE_U8: copy_as<uint8_t>(src, dst, to_integer<uint8_t>); break;
    case XD_DTYPE_I32: copy_as<int32_t>(src, dst, to_integer<int32_t>); break;
    case XD_DTYPE_I64: copy_as<int64_t>(src, dst, to_integer<int64_t>); break;
    case XD_DTYPE_BOOL: copy_as<uint8_t>(src, dst, [](float x) { return static_cast<uint8_t>(x != 0.0f); }); break;
    default: return plugin::report(XD_ERR_INVALID_ARGUMENT, "copy to dtype " + std::to_string(dst.dtype));
  }
  return XD_OK;
}

// One list, in the order a slot tries the kernels (here one kernel per op).
const plugin::kernel_def kKernels[] = {
    {XD_OP_COPY, "copy", xd::DtypeSet{XD_DTYPE_F32}, copy},
    {XD_OP_ADD, "add", xd::DtypeSet{XD_DTYPE_F32}, add},
    {XD_OP_MUL, "mul", xd::DtypeSet{XD_DTYPE_F32}, mul},
    {XD_OP_RELU, "relu", xd::DtypeSet{XD_DTYPE_F32}, relu},
};

}  // namespace

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  return plugin::fill_info(info, plugin::identity{"toy", "0.1.0", "example backend built out of tree",
                                                  XD_DEVICE_KIND_ACCELERATOR});
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  return plugin::init(host, api, [](xd_plugin_api& mine, plugin::registrar& r) {
    plugin::set_devices(mine, {device_count, device_properties});
    plugin::set_memory(mine, {mem_alloc, mem_free, nullptr, nullptr, copy_h2d, copy_d2h, copy_d2d});
    plugin::set_streams(mine, {make_token, no_op, no_op, no_op, make_token, no_op, no_op2, no_op2, no_op, no_op,
                               no_timing});
    plugin::register_kernels(r, kKernels);
  });
}
