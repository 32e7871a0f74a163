// CONV2D, the reference: for every output element, the sum over the group's input channels c
// and the kernel taps (i, j), in that order (c outermost, j innermost), of input * weight in the
// compute type C (float for f16/bf16 and f32, double for f64), positions outside the input
// skipped (zero padding); the bias is added to the finished sum and the result rounded once.
// Any strides on every view. The order never depends on threads: one (batch, output channel)
// plane per work item. oneDNN's kernel (conv_dnnl.cpp) is listed before this one; the tests and
// xd-conform compare the two.
#include "kernels/conv.hpp"

#include "kernels/common.hpp"

#include <algorithm>
#include <vector>

namespace xd::cpu {

conv2d_problem describe_conv2d(const xd_kernel_call* c) {
  const xd_view& in = input(c, 0);
  const xd_view& w = input(c, 1);
  const xd_view* bias = optional_input(c, 2);
  const xd_view& out = output(c, 0);
  const xd_attrs_conv2d& a = need_attrs<xd_attrs_conv2d>(c);
  if (in.ndim != 4 || w.ndim != 4 || out.ndim != 4 || (bias && bias->ndim != 1))
    invalid("conv2d: input, weight and out must be rank 4 [N, C, H, W] / [O, C/groups, kH, kW], bias rank 1");
  conv2d_problem p;
  p.n = in.sizes[0], p.c = in.sizes[1], p.h = in.sizes[2], p.w = in.sizes[3];
  p.o = w.sizes[0], p.kh = w.sizes[2], p.kw = w.sizes[3];
  p.oh = out.sizes[2], p.ow = out.sizes[3];
  p.groups = a.groups;
  for (int d = 0; d < 2; ++d) {
    p.stride[d] = a.stride[d];
    p.pad[d] = a.padding[d];
    p.dilation[d] = a.dilation[d];
    if (a.stride[d] < 1 || a.dilation[d] < 1 || a.padding[d] < 0)
      invalid("conv2d: malformed stride, padding or dilation");
  }
  if (p.groups < 1 || p.c % p.groups != 0 || p.o % p.groups != 0 || w.sizes[1] != p.c / p.groups ||
      out.sizes[0] != p.n || out.sizes[1] != p.o || (bias && bias->sizes[0] != p.o))
    invalid("conv2d: malformed views (shapes or groups do not agree)");
  check_dtype(w, in.dtype, "conv2d weight");
  check_dtype(out, in.dtype, "conv2d out");
  if (bias) check_dtype(*bias, in.dtype, "conv2d bias");
  return p;
}

namespace {

struct conv2d_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const conv2d_problem p = describe_conv2d(c);
      const xd_view& in = input(c, 0);
      const xd_view& w = input(c, 1);
      const xd_view* bias = optional_input(c, 2);
      const xd_view& out = output(c, 0);
      const int64_t cg = p.c / p.groups, og = p.o / p.groups;
      const int64_t* si = in.strides;
      const int64_t* sw = w.strides;
      const int64_t* so = out.strides;
      const T* pi = reinterpret_cast<const T*>(data(in));
      const T* pw = reinterpret_cast<const T*>(data(w));
      const T* pb = bias ? reinterpret_cast<const T*>(data(*bias)) : nullptr;
      T* po = reinterpret_cast<T*>(data(out));
      const int64_t plane = p.oh * p.ow;
      const int64_t taps = cg * p.kh * p.kw;
      const int64_t grain = std::max<int64_t>(1, kElementGrain / 4 / std::max<int64_t>(1, plane * taps));
      parallel_for(p.n * p.o, grain, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const int64_t n = item / p.o, o = item % p.o;
          const int64_t g = o / og;
          const C b = pb ? load(pb[o * bias->strides[0]]) : C(0);
          for (int64_t y = 0; y < p.oh; ++y) {
            for (int64_t x = 0; x < p.ow; ++x) {
              C acc = 0;
              for (int64_t ci = 0; ci < cg; ++ci) {
                const int64_t cin = g * cg + ci;
                for (int64_t i = 0; i < p.kh; ++i) {
                  const int64_t iy = y * p.stride[0] - p.pad[0] + i * p.dilation[0];
                  if (iy < 0 || iy >= p.h) continue;
                  for (int64_t j = 0; j < p.kw; ++j) {
                    const int64_t ix = x * p.stride[1] - p.pad[1] + j * p.dilation[1];
                    if (ix < 0 || ix >= p.w) continue;
                    acc += load(pi[n * si[0] + cin * si[1] + iy * si[2] + ix * si[3]]) *
                           load(pw[o * sw[0] + ci * sw[1] + i * sw[2] + j * sw[3]]);
                  }
                }
              }
              po[n * so[0] + o * so[1] + y * so[2] + x * so[3]] = cast<T>(acc + b);
            }
          }
        }
      });
    });
  }
};

}  // namespace

// Entry of the registration list (kernel_list.cpp), after oneDNN's.
extern const plugin::kernel_def def_conv2d =
    typed_kernel<conv2d_kernel, dtypes::compute_floating>(XD_OP_CONV2D, "conv2d");

}  // namespace xd::cpu
