// MAX_POOL2D and AVG_POOL2D, the reference: PyTorch's CPU kernels (cpu_max_pool, cpu_avg_pool)
// written as plain loops, one output element at a time, reading the [N, C, H, W] input through
// its strides. The compute type C is float for f16/bf16 (and f32), double for f64.
//  - max: the running maximum starts at -inf and takes a tap when it is greater or NaN, scanning
//    the window's taps inside the input row-major; the index is h*W + w in the input plane, the
//    first tap row/column >= 0 when no tap replaces -inf.
//  - avg: the window's elements inside the input summed row-major in C, divided once in C by
//    divisor_override, or the window clipped at the padded input (count_include_pad), or the
//    number of elements summed, then rounded once.
#include "kernels/common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xd::cpu {
namespace {

// The views both kernels take, checked against each other: a [N, C, H, W], out (and indices)
// [N, C, Ho, Wo].
struct pool_views {
  const xd_view& a;
  const xd_view& out;
  const xd_view* indices;
  const xd_attrs_pool2d& p;
  int64_t H, W, Ho, Wo;
};

pool_views pool_views_of(const xd_kernel_call* c, const char* op, bool with_indices) {
  const xd_view& a = input(c, 0);
  const xd_view& out = output(c, 0);
  const xd_view* indices = with_indices ? optional_output(c, 1) : nullptr;
  const xd_attrs_pool2d& p = need_attrs<xd_attrs_pool2d>(c);
  check_dtype(out, a.dtype, op);
  if (a.ndim != 4 || out.ndim != 4 || out.sizes[0] != a.sizes[0] || out.sizes[1] != a.sizes[1])
    invalid(std::string(op) + ": malformed views (a [N, C, H, W], out [N, C, Ho, Wo])");
  if (indices != nullptr) {
    check_dtype(*indices, XD_DTYPE_I64, op);
    if (indices->ndim != 4 || !std::equal(out.sizes, out.sizes + 4, indices->sizes))
      invalid(std::string(op) + ": indices must have out's shape");
  }
  for (int d = 0; d < 2; ++d)
    if (p.kernel[d] < 1 || p.stride[d] < 1 || p.dilation[d] < 1 || p.padding[d] < 0)
      invalid(std::string(op) + ": kernel, stride and dilation must be positive, padding non-negative");
  return {a, out, indices, p, a.sizes[2], a.sizes[3], out.sizes[2], out.sizes[3]};
}

// The first of start, start + step, ... that is >= 0 (PyTorch steps there one dilation at a time).
int64_t first_tap(int64_t start, int64_t step) {
  return start >= 0 ? start : start + (-start + step - 1) / step * step;
}

// The element offset of (n, c, h, w) in a 4-d view.
int64_t offset4(const xd_view& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return n * t.strides[0] + c * t.strides[1] + h * t.strides[2] + w * t.strides[3];
}

// f(n, ch, ho, wo, plane) for every output element of `v`, plane at input (n, ch), in parallel
// tasks of about kElementGrain window taps.
template <class T, class F>
void for_each_pool_output(const pool_views& v, F&& f) {
  const int64_t Cn = v.a.sizes[1], taps = std::max<int64_t>(1, v.p.kernel[0] * v.p.kernel[1]);
  char* pa = data(v.a);
  parallel_for(numel(v.out), std::max<int64_t>(1, kElementGrain / taps), [&](int64_t begin, int64_t end) {
    for (int64_t e = begin; e < end; ++e) {
      const int64_t wo = e % v.Wo, ho = e / v.Wo % v.Ho, ch = e / (v.Wo * v.Ho) % Cn;
      const int64_t n = e / (v.Wo * v.Ho * Cn);
      f(n, ch, ho, wo, pa + (n * v.a.strides[0] + ch * v.a.strides[1]) * static_cast<int64_t>(sizeof(T)));
    }
  });
}

struct max_pool2d_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const pool_views v = pool_views_of(c, "max_pool2d", true);
      const xd_attrs_pool2d& p = v.p;
      constexpr int64_t sz = sizeof(T);
      char* po = data(v.out);
      char* pi = v.indices ? data(*v.indices) : nullptr;
      for_each_pool_output<T>(v, [&](int64_t n, int64_t ch, int64_t ho, int64_t wo, char* plane) {
        const int64_t hs = ho * p.stride[0] - p.padding[0], ws = wo * p.stride[1] - p.padding[1];
        const int64_t h_end = std::min(hs + (p.kernel[0] - 1) * p.dilation[0] + 1, v.H);
        const int64_t w_end = std::min(ws + (p.kernel[1] - 1) * p.dilation[1] + 1, v.W);
        const int64_t h0 = first_tap(hs, p.dilation[0]), w0 = first_tap(ws, p.dilation[1]);
        C best = -std::numeric_limits<C>::infinity();
        int64_t best_index = h0 * v.W + w0;
        for (int64_t h = h0; h < h_end; h += p.dilation[0])
          for (int64_t w = w0; w < w_end; w += p.dilation[1]) {
            const C x = load(at<const T>(plane, (h * v.a.strides[2] + w * v.a.strides[3]) * sz));
            if (x > best || std::isnan(x)) {
              best = x;
              best_index = h * v.W + w;
            }
          }
        at<T>(po, offset4(v.out, n, ch, ho, wo) * sz) = cast<T>(best);
        if (pi) at<int64_t>(pi, offset4(*v.indices, n, ch, ho, wo) * 8) = best_index;
      });
    });
  }
};

struct avg_pool2d_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const pool_views v = pool_views_of(c, "avg_pool2d", false);
      const xd_attrs_pool2d& p = v.p;
      constexpr int64_t sz = sizeof(T);
      char* po = data(v.out);
      for_each_pool_output<T>(v, [&](int64_t n, int64_t ch, int64_t ho, int64_t wo, char* plane) {
        int64_t h0 = ho * p.stride[0] - p.padding[0], w0 = wo * p.stride[1] - p.padding[1];
        int64_t h1 = std::min(h0 + p.kernel[0], v.H + p.padding[0]);
        int64_t w1 = std::min(w0 + p.kernel[1], v.W + p.padding[1]);
        const int64_t padded_size = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, v.H);
        w1 = std::min(w1, v.W);
        C result = 0;
        if (h0 < h1 && w0 < w1) {
          C sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w)
              sum += load(at<const T>(plane, (h * v.a.strides[2] + w * v.a.strides[3]) * sz));
          const int64_t d = p.divisor_override != 0 ? p.divisor_override
                            : p.count_include_pad   ? padded_size
                                                    : (h1 - h0) * (w1 - w0);
          result = sum / static_cast<C>(d);
        }
        at<T>(po, offset4(v.out, n, ch, ho, wo) * sz) = cast<T>(result);
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_max_pool2d =
    typed_kernel<max_pool2d_kernel, dtypes::compute_floating>(XD_OP_MAX_POOL2D, "max_pool2d");
extern const plugin::kernel_def def_avg_pool2d =
    typed_kernel<avg_pool2d_kernel, dtypes::compute_floating>(XD_OP_AVG_POOL2D, "avg_pool2d");

}  // namespace xd::cpu
