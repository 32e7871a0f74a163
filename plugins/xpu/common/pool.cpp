// MAX_POOL2D and AVG_POOL2D for both XPU variants: one work-item per output element
// (kernels/pool.cl), every view [N, C, H, W] with its own strides.
#include "launchers.hpp"
#include "layout.hpp"

#include <algorithm>
#include <string>

namespace xd::xpu {

namespace {

// pool.cl's xd_pool_args, field for field (all 64-bit, so both sides lay it out alike).
struct pool_args {
  int64_t N, C, H, W, Ho, Wo;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t has_indices, count_include_pad, divisor;
  int64_t a[5], o[5], i[5];  // element offset, then the strides of [N, C, H, W]
};

void view_into(int64_t* dst, const xd_view& v, const char* what) {
  dst[0] = element_offset(v, what);
  for (int d = 0; d < 4; ++d) dst[1 + d] = v.strides[d];
}

// The views and attributes both ops take, checked against each other.
pool_args args_of(const xd_kernel_call* c, const char* op, const xd_view& a, const xd_view& out,
                  const xd_view* indices) {
  const xd_attrs_pool2d& p = plugin::need_attrs<xd_attrs_pool2d>(c);
  plugin::check_dtype(out, a.dtype, op);
  if (a.ndim != 4 || out.ndim != 4 || out.sizes[0] != a.sizes[0] || out.sizes[1] != a.sizes[1])
    plugin::invalid(std::string(op) + ": malformed views (a [N, C, H, W], out [N, C, Ho, Wo])");
  if (indices != nullptr) {
    plugin::check_dtype(*indices, XD_DTYPE_I64, op);
    if (indices->ndim != 4 || !std::equal(out.sizes, out.sizes + 4, indices->sizes))
      plugin::invalid(std::string(op) + ": indices must have out's shape");
  }
  for (int d = 0; d < 2; ++d)
    if (p.kernel[d] < 1 || p.stride[d] < 1 || p.dilation[d] < 1 || p.padding[d] < 0)
      plugin::invalid(std::string(op) + ": kernel, stride and dilation must be positive, padding non-negative");
  pool_args r{};
  r.N = a.sizes[0];
  r.C = a.sizes[1];
  r.H = a.sizes[2];
  r.W = a.sizes[3];
  r.Ho = out.sizes[2];
  r.Wo = out.sizes[3];
  r.kh = p.kernel[0];
  r.kw = p.kernel[1];
  r.sh = p.stride[0];
  r.sw = p.stride[1];
  r.ph = p.padding[0];
  r.pw = p.padding[1];
  r.dh = p.dilation[0];
  r.dw = p.dilation[1];
  r.has_indices = indices != nullptr;
  r.count_include_pad = p.count_include_pad != 0;
  r.divisor = p.divisor_override;
  view_into(r.a, a, "a");
  view_into(r.o, out, "out");
  if (indices) view_into(r.i, *indices, "indices");
  return r;
}

}  // namespace

xd_status run_max_pool2d(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& a = plugin::input(c, 0);
    const xd_view& out = plugin::output(c, 0);
    const xd_view* indices = plugin::optional_output(c, 1);
    const pool_args A = args_of(c, "max_pool2d", a, out, indices);
    const uint64_t n = static_cast<uint64_t>(A.N * A.C * A.Ho * A.Wo);
    if (n == 0) return;
    launch k(c, {"pool", a.dtype}, "xd_max_pool2d");
    // Absent indices are never written (has_indices 0); out's buffer stands in for the argument.
    k.buffer(out).buffer(indices ? *indices : out).buffer(a).value(A);
    k.run_items(n);
  });
}

xd_status run_avg_pool2d(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& a = plugin::input(c, 0);
    const xd_view& out = plugin::output(c, 0);
    const pool_args A = args_of(c, "avg_pool2d", a, out, nullptr);
    const uint64_t n = static_cast<uint64_t>(A.N * A.C * A.Ho * A.Wo);
    if (n == 0) return;
    launch k(c, {"pool", a.dtype}, "xd_avg_pool2d");
    k.buffer(out).buffer(a).value(A);
    k.run_items(n);
  });
}

}  // namespace xd::xpu
