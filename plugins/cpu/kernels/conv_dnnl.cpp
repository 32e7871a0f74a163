// CONV2D through oneDNN's convolution primitive ("cpu.conv2d.dnnl"), listed before the reference
// loop (conv.cpp) for f32, f16 and bf16. Every dtype runs oneDNN's f32 convolution: f16 and bf16
// operands are widened to f32 (exactly), the f32 result is rounded once to the dtype, so the
// contract (f32 accumulation, bias added to the sum, rounded once) holds and only the order of
// the f32 additions is oneDNN's. oneDNN 2.x has no f16 convolution on x86 and a bf16 one only with
// AVX-512; one f32 path keeps the results the same on every CPU.
//
// oneDNN picks its own memory layouts (format_tag::any: the blocked nChw8c/nChw16c its fast
// kernels want); the operands are reordered into them and the result back into the plain NCHW
// output. The weights are reordered on every call: the kernel keeps no state between calls but
// the last problem's primitive per thread, built in check() and reused by the run() after it and
// by repeated calls of one shape.
//
// f64 is not registered (oneDNN has no f64 convolution). check() declines, with the reason, empty problems (the
// loop writes the bias or nothing) and problems oneDNN builds no primitive for; the loop then
// runs them, visibly in xd::kernels()' call counts.
#include "kernels/common.hpp"
#include "kernels/conv.hpp"

#ifdef XD_CPU_HAVE_DNNL

#include <dnnl.hpp>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace xd::cpu {

bool dnnl_engine_available();  // matmul_dnnl.cpp

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Everything the primitive depends on.
struct conv_key {
  dnnl::memory::dims src, weights, dst, strides, dilates, pad_l, pad_r;
  bool bias = false;
  bool operator==(const conv_key&) const = default;
};

conv_key key_of(const conv2d_problem& p, bool bias) {
  conv_key k;
  k.src = {p.n, p.c, p.h, p.w};
  if (p.groups == 1)
    k.weights = {p.o, p.c, p.kh, p.kw};
  else
    k.weights = {p.groups, p.o / p.groups, p.c / p.groups, p.kh, p.kw};
  k.dst = {p.n, p.o, p.oh, p.ow};
  k.strides = {p.stride[0], p.stride[1]};
  k.dilates = {p.dilation[0] - 1, p.dilation[1] - 1};  // oneDNN counts the gaps: 0 is dense
  k.pad_l = {p.pad[0], p.pad[1]};
  // The bottom/right padding that gives the output size the host chose: the host's size lies in
  // [needed, needed + stride - 1] of padding, so the smallest non-negative one does.
  const int64_t ek[2] = {(p.kh - 1) * p.dilation[0] + 1, (p.kw - 1) * p.dilation[1] + 1};
  const int64_t in[2] = {p.h, p.w}, out[2] = {p.oh, p.ow};
  k.pad_r.resize(2);
  for (int d = 0; d < 2; ++d) k.pad_r[d] = std::max<int64_t>(0, (out[d] - 1) * p.stride[d] + ek[d] - in[d] - p.pad[d]);
  k.bias = bias;
  return k;
}

struct conv_primitive {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
};

// The primitive for `k` (nullptr when oneDNN declines it); the last one per thread is kept.
const conv_primitive* primitive_for(const conv_key& k) {
  struct entry {
    bool valid = false, ok = false;
    conv_key key;
    conv_primitive p;
  };
  thread_local entry last;
  if (last.valid && last.key == k) return last.ok ? &last.p : nullptr;
  last.valid = false;
  try {
    const dnnl::memory::desc src(k.src, dt::f32, tag::any);
    const dnnl::memory::desc weights(k.weights, dt::f32, tag::any);
    const dnnl::memory::desc dst(k.dst, dt::f32, tag::any);
    const dnnl::memory::desc bias = k.bias ? dnnl::memory::desc({k.dst[1]}, dt::f32, tag::a) : dnnl::memory::desc();
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                            src, weights, bias, dst, k.strides, k.dilates, k.pad_l, k.pad_r);
    last.p.pd = dnnl::convolution_forward::primitive_desc(d, engine());
    last.p.prim = dnnl::convolution_forward(last.p.pd);
    last.ok = true;
  } catch (const dnnl::error&) {
    last.ok = false;
  }
  last.key = k;
  last.valid = true;
  return last.ok ? &last.p : nullptr;
}

bool empty_problem(const conv2d_problem& p) {
  return p.n == 0 || p.o == 0 || p.oh == 0 || p.ow == 0 || p.c == 0 || p.kh == 0 || p.kw == 0;
}

int32_t conv_dnnl_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    const conv2d_problem p = describe_conv2d(c);
    if (empty_problem(p))
      return plugin::decline(reason, reason_size, "an empty problem (the loop writes the bias or nothing)");
    if (primitive_for(key_of(p, optional_input(c, 2) != nullptr)) == nullptr)
      return plugin::decline(reason, reason_size, "oneDNN builds no convolution primitive for this problem");
    return 1;
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, std::string("a malformed call: ") + e.what());
  }
}

// A view of `n` dims gathered into a dense f32 buffer in its index order (row-major).
template <class T>
void gather_f32(const xd_view& v, float* dst) {
  const T* src = reinterpret_cast<const T*>(data(v));
  const int nd = v.ndim;
  int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= v.sizes[d];
  int64_t idx[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < total; ++i) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[d] * v.strides[d];
    dst[i] = static_cast<float>(load(src[off]));
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < v.sizes[d]) break;
      idx[d] = 0;
    }
  }
}

bool dense(const xd_view& v) {
  int64_t expect = 1;
  for (int d = v.ndim - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expect) return false;
    expect *= v.sizes[d];
  }
  return true;
}

// `v` as dense f32: the view's own memory when it already is, else `buffer` filled from it.
template <class T>
float* as_dense_f32(const xd_view& v, std::vector<float>& buffer) {
  if constexpr (std::is_same_v<T, float>)
    if (dense(v)) return reinterpret_cast<float*>(data(v));
  int64_t total = 1;
  for (int d = 0; d < v.ndim; ++d) total *= v.sizes[d];
  buffer.resize(static_cast<size_t>(total));
  gather_f32<T>(v, buffer.data());
  return buffer.data();
}

struct conv2d_dnnl_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const conv2d_problem p = describe_conv2d(c);
      const xd_view& in = input(c, 0);
      const xd_view& w = input(c, 1);
      const xd_view* bias = optional_input(c, 2);
      const xd_view& out = output(c, 0);
      const conv_key k = key_of(p, bias != nullptr);
      const conv_primitive* cp = empty_problem(p) ? nullptr : primitive_for(k);
      if (cp == nullptr)
        plugin::fail(XD_ERR_INTERNAL, "oneDNN has no primitive for this conv2d problem, which check() declines");
      std::vector<float> src_buf, w_buf, b_buf, dst_buf;
      float* src = as_dense_f32<T>(in, src_buf);
      float* wts = as_dense_f32<T>(w, w_buf);
      float* b = bias ? as_dense_f32<T>(*bias, b_buf) : nullptr;
      const bool direct_out = std::is_same_v<T, float> && dense(out);
      float* dst = nullptr;
      if (direct_out) {
        dst = reinterpret_cast<float*>(data(out));
      } else {
        dst_buf.resize(static_cast<size_t>(p.n * p.o * p.oh * p.ow));
        dst = dst_buf.data();
      }
      dnnl::engine& e = engine();
      dnnl::stream s(e);
      const dnnl::memory user_src({k.src, dt::f32, tag::nchw}, e, src);
      const dnnl::memory user_w({k.weights, dt::f32, p.groups == 1 ? tag::oihw : tag::goihw}, e, wts);
      const dnnl::memory user_dst({k.dst, dt::f32, tag::nchw}, e, dst);
      // Operands in the layouts the primitive chose (a reorder only where they differ).
      auto placed = [&](dnnl::memory user, const dnnl::memory::desc& want) {
        if (user.get_desc() == want) return user;
        dnnl::memory m(want, e);
        dnnl::reorder(user, m).execute(s, {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, m}});
        return m;
      };
      const dnnl::memory src_m = placed(user_src, cp->pd.src_desc());
      const dnnl::memory w_m = placed(user_w, cp->pd.weights_desc());
      const bool dst_plain = cp->pd.dst_desc() == user_dst.get_desc();
      const dnnl::memory dst_m = dst_plain ? user_dst : dnnl::memory(cp->pd.dst_desc(), e);
      std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, w_m}, {DNNL_ARG_DST, dst_m}};
      if (b != nullptr) args.emplace(DNNL_ARG_BIAS, dnnl::memory({{p.o}, dt::f32, tag::a}, e, b));
      cp->prim.execute(s, args);
      if (!dst_plain) dnnl::reorder(dst_m, user_dst).execute(s, {{DNNL_ARG_FROM, dst_m}, {DNNL_ARG_TO, user_dst}});
      s.wait();
      if (direct_out) return;
      // Round once into the output, whatever its strides.
      T* po = reinterpret_cast<T*>(data(out));
      const int64_t* so = out.strides;
      for (int64_t n = 0; n < p.n; ++n)
        for (int64_t o = 0; o < p.o; ++o)
          for (int64_t y = 0; y < p.oh; ++y) {
            const float* row = dst + ((n * p.o + o) * p.oh + y) * p.ow;
            for (int64_t x = 0; x < p.ow; ++x) po[n * so[0] + o * so[1] + y * so[2] + x * so[3]] = cast<T>(row[x]);
          }
    });
  }
};

bool conv_dnnl_available(xd_dtype) { return dnnl_engine_available(); }

constexpr DtypeSet kDnnlConv = {XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16};

constexpr plugin::kernel_def conv_def() {
  plugin::kernel_def d = typed_kernel<conv2d_dnnl_kernel, kDnnlConv>(XD_OP_CONV2D, "conv2d.dnnl", conv_dnnl_check);
  d.available = conv_dnnl_available;
  return d;
}

}  // namespace

// Entry of the registration list (kernel_list.cpp), before the reference loop.
extern const plugin::kernel_def def_conv2d_dnnl = conv_def();

}  // namespace xd::cpu

#endif  // XD_CPU_HAVE_DNNL
