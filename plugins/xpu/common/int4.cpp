#include "int4.hpp"

#include "launchers.hpp"
#include "layout.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace xd::xpu {

namespace {

void check_dense(const xd_view& v, const char* what) {
  const bool ok =
      v.ndim == 2 && (v.sizes[1] <= 1 || v.strides[1] == 1) && (v.sizes[0] <= 1 || v.strides[0] == v.sizes[1]);
  if (!ok) plugin::invalid(std::string(what) + " must be a dense row-major 2-d view");
}

int64_t group_of(const xd_kernel_call* c, int64_t k) {
  const int64_t g = plugin::need_attrs<xd_attrs_int4>(c).group_size;
  if (g <= 0 || g % 32 != 0 || k % g != 0)
    plugin::invalid("int4 group_size " + std::to_string(g) +
                         " must be a positive multiple of 32 dividing K = " + std::to_string(k));
  return g;
}

bool is_int4_float(int32_t d) { return d == XD_DTYPE_F32 || d == XD_DTYPE_F16 || d == XD_DTYPE_BF16; }

}  // namespace

int4_mm_call make_int4_mm(const xd_kernel_call* c) {
  int4_mm_call r;
  r.x = &plugin::input(c, 0);
  r.w = &plugin::input(c, 1);
  r.s = &plugin::input(c, 2);
  r.z = &plugin::input(c, 3);
  r.out = &plugin::output(c, 0);
  check_dense(*r.x, "weight_int4_mm input");
  check_dense(*r.w, "weight_int4_mm weight");
  check_dense(*r.s, "weight_int4_mm scales");
  check_dense(*r.z, "weight_int4_mm zeros");
  check_dense(*r.out, "weight_int4_mm output");
  if (!is_int4_float(r.x->dtype)) plugin::invalid("weight_int4_mm input must be f32, f16 or bf16");
  plugin::check_dtype(*r.w, XD_DTYPE_U8, "weight_int4_mm weight");
  plugin::check_dtype(*r.s, r.x->dtype, "weight_int4_mm scales");
  plugin::check_dtype(*r.z, XD_DTYPE_I8, "weight_int4_mm zeros");
  plugin::check_dtype(*r.out, r.x->dtype, "weight_int4_mm output");
  int4_args& a = r.args;
  a.m = r.x->sizes[0];
  a.k = r.x->sizes[1];
  a.n = r.w->sizes[0];
  a.group = group_of(c, a.k);
  const int64_t groups = a.k / a.group;
  if (a.k % 2 != 0 || r.w->sizes[1] != a.k / 2 || r.s->sizes[0] != groups || r.s->sizes[1] != a.n ||
      r.z->sizes[0] != groups || r.z->sizes[1] != a.n || r.out->sizes[0] != a.m || r.out->sizes[1] != a.n)
    plugin::invalid("weight_int4_mm operand shapes do not agree");
  a.x_off = element_offset(*r.x, "weight_int4_mm input");
  a.w_off = element_offset(*r.w, "weight_int4_mm weight");
  a.s_off = element_offset(*r.s, "weight_int4_mm scales");
  a.z_off = element_offset(*r.z, "weight_int4_mm zeros");
  a.o_off = element_offset(*r.out, "weight_int4_mm output");
  return r;
}

quantize_int4_call make_quantize_int4(const xd_kernel_call* c) {
  quantize_int4_call r;
  r.w = &plugin::input(c, 0);
  r.packed = &plugin::output(c, 0);
  r.s = &plugin::output(c, 1);
  r.z = &plugin::output(c, 2);
  check_dense(*r.w, "quantize_int4 weight");
  check_dense(*r.packed, "quantize_int4 packed");
  check_dense(*r.s, "quantize_int4 scales");
  check_dense(*r.z, "quantize_int4 zeros");
  if (r.w->dtype != XD_DTYPE_F32 && r.w->dtype != XD_DTYPE_BF16)
    plugin::invalid("quantize_int4 weight must be f32 or bf16");
  plugin::check_dtype(*r.packed, XD_DTYPE_U8, "quantize_int4 packed");
  plugin::check_dtype(*r.s, r.w->dtype, "quantize_int4 scales");
  plugin::check_dtype(*r.z, XD_DTYPE_I8, "quantize_int4 zeros");
  int4_args& a = r.args;
  a.n = r.w->sizes[0];
  a.k = r.w->sizes[1];
  a.group = group_of(c, a.k);
  const int64_t groups = a.k / a.group;
  if (a.k % 2 != 0 || r.packed->sizes[0] != a.n || r.packed->sizes[1] != a.k / 2 || r.s->sizes[0] != groups ||
      r.s->sizes[1] != a.n || r.z->sizes[0] != groups || r.z->sizes[1] != a.n)
    plugin::invalid("quantize_int4 operand shapes do not agree");
  a.x_off = element_offset(*r.w, "quantize_int4 weight");
  a.w_off = element_offset(*r.packed, "quantize_int4 packed");
  a.s_off = element_offset(*r.s, "quantize_int4 scales");
  a.z_off = element_offset(*r.z, "quantize_int4 zeros");
  r.items = groups * a.n;
  return r;
}

int4_plan plan_int4_mm(const int4_args& a, int64_t wg, int64_t max_groups_y, bool mma, const int4_tuning& tune) {
  int4_plan p;
  // One row stays on xd_int4_gemv_m1, not the tensor cores (measured: docs/performance.md,
  // "weight_int4_mm tuned").
  if (mma && a.m > 1 && a.group % kInt4MmaPiece == 0) {
    // The _dense kernels: the weight 16-byte aligned, the input's rows 8-element aligned, scales
    // 8-element (16-byte loads) and zero points 4-element aligned, and only whole tiles of columns
    // (N a multiple of a group's columns; tiles a multiple of 4, for those wide loads).
    const int64_t cols = tune.mma_tiles * 8;
    const bool dense = a.w_off % 16 == 0 && a.x_off % 8 == 0 && a.k % 8 == 0 && a.s_off % 8 == 0 && a.z_off % 4 == 0 &&
                       tune.mma_tiles % 4 == 0 && a.n % cols == 0;
    p.entry = a.m <= 8 ? (dense ? "xd_int4_mma_m8_dense" : "xd_int4_mma_m8")
                       : (dense ? "xd_int4_mma_m16_dense" : "xd_int4_mma_m16");
    p.local[0] = 32 * tune.mma_split_k;
    p.local[1] = 1;
    p.local_bytes = tune.mma_split_k * tune.mma_tiles * 32 * 16;  // a float4 per lane and tile per warp
    for (int64_t r = 0; r < a.m && a.n > 0; r += kInt4MmaRows) {
      int4_launch l;
      l.row0 = r;
      l.groups[0] = (a.n + cols - 1) / cols;
      l.groups[1] = 1;
      p.launches.push_back(l);
    }
    return p;
  }
  if (a.m <= kInt4GemvMaxM) {
    p.gemv = true;
    // xd_int4_gemv_m1_dense: every operand aligned for its wide loads, whole column groups of
    // XD_I4D_R (a multiple of 4, for the scales' and zero points' loads), 32-bit chunk indices.
    const bool dense = a.m <= 1 && a.w_off % 16 == 0 && a.x_off % 4 == 0 && a.s_off % 4 == 0 && a.z_off % 4 == 0 &&
                       tune.direct_cols % 4 == 0 && a.n >= tune.direct_cols && a.n % tune.direct_cols == 0 &&
                       a.k <= INT32_MAX;
    p.entry = dense      ? "xd_int4_gemv_m1_dense"
              : a.m <= 1 ? "xd_int4_gemv_m1"
              : a.m <= 2 ? "xd_int4_gemv_m2"
              : a.m <= 4 ? "xd_int4_gemv_m4"
              : a.m <= 8 ? "xd_int4_gemv_m8"
                         : "xd_int4_gemv_m16";
    // xd_int4_gemv_m1: XD_I4D_COLS columns per group; the others XD_I4_COLS.
    const int64_t lanes = std::min<int64_t>(a.m <= 1 ? tune.direct_lanes : 16, wg);
    const int64_t cols = (wg / lanes) * (a.m <= 1 ? tune.direct_cols : 1);
    p.local[0] = wg;
    p.local[1] = 1;
    int4_launch l;
    l.groups[0] = (a.n + cols - 1) / cols;
    l.groups[1] = 1;
    if (a.m > 0 && a.n > 0) p.launches.push_back(l);
    return p;
  }
  const int64_t t = wg >= 256 ? 16 : wg >= 64 ? 8 : 4;  // XD_I4_T
  p.entry = "xd_int4_mm_tiled";
  p.local[0] = p.local[1] = t;
  const int64_t row_groups = (a.m + t - 1) / t;
  const int64_t per = std::max<int64_t>(1, max_groups_y);
  for (int64_t g0 = 0; g0 < row_groups && a.n > 0; g0 += per) {
    int4_launch l;
    l.row0 = g0 * t;
    l.groups[0] = (a.n + t - 1) / t;
    l.groups[1] = std::min(per, row_groups - g0);
    p.launches.push_back(l);
  }
  return p;
}

xd_status run_int4_mm(const xd_kernel_call* c) {
  return guard(c, [&] {
    const int4_mm_call call = make_int4_mm(c);
    const device_info& dev = device_of(c);
    const bool mma = dev.int4_mma && (call.x->dtype == XD_DTYPE_F16 || call.x->dtype == XD_DTYPE_BF16);
    const int4_plan plan = plan_int4_mm(call.args, dev.work_group, dev.max_groups[1], mma, dev.int4);
    const int64_t local[3] = {plan.local[0], plan.local[1], 1};
    for (const int4_launch& l : plan.launches) {
      launch k(c, {"int4", call.x->dtype}, plan.entry);
      k.buffer(*call.out).buffer(*call.x).buffer(*call.w).buffer(*call.s).buffer(*call.z).value(call.args);
      if (!plan.gemv) k.value(l.row0);
      if (plan.local_bytes > 0) k.local_bytes(static_cast<size_t>(plan.local_bytes));
      const int64_t groups[3] = {l.groups[0], l.groups[1], 1};
      k.run(grid::of_groups(2, local, groups));
    }
  });
}

xd_status run_quantize_int4(const xd_kernel_call* c) {
  return guard(c, [&] {
    const quantize_int4_call call = make_quantize_int4(c);
    launch k(c, {"int4", call.w->dtype}, "xd_quantize_int4");
    k.buffer(*call.packed).buffer(*call.s).buffer(*call.z).buffer(*call.w).value(call.args);
    k.run_items(static_cast<uint64_t>(call.items));
  });
}

}  // namespace xd::xpu
