#include "quant_mm.hpp"

#include "launchers.hpp"
#include "layout.hpp"

#include <algorithm>
#include <optional>

namespace xd::xpu {

namespace {

void check_rank2(const xd_view& v, const char* what) {
  if (v.ndim != 2) plugin::invalid(std::string(what) + " must have rank 2");
}

// a [M,K], b [K,N], out [M,N]: the shape and stride fields common to both ops.
void fill_mm(qmm_call& call, const char* op) {
  const xd_view &a = *call.a, &b = *call.b, &out = *call.out;
  check_rank2(a, "operand a");
  check_rank2(b, "operand b");
  check_rank2(out, "output");
  qmm_args& g = call.args;
  g.m = a.sizes[0];
  g.k = a.sizes[1];
  g.n = b.sizes[1];
  if (b.sizes[0] != g.k || out.sizes[0] != g.m || out.sizes[1] != g.n)
    plugin::invalid(std::string(op) + " shapes do not agree");
  g.a_off = element_offset(a), g.a_m = a.strides[0], g.a_k = a.strides[1];
  g.b_off = element_offset(b), g.b_k = b.strides[0], g.b_n = b.strides[1];
  g.c_off = element_offset(out), g.c_m = out.strides[0], g.c_n = out.strides[1];
}

int64_t fp8_format(const xd_view& v, const char* what) {
  if (v.dtype == XD_DTYPE_F8E4M3FN) return 0;
  if (v.dtype == XD_DTYPE_F8E5M2) return 1;
  plugin::invalid(std::string("scaled_mm ") + what + " must be f8e4m3fn or f8e5m2");
}

int64_t float_kind(int32_t dtype, const char* what) {
  switch (dtype) {
    case XD_DTYPE_F32:
      return 0;
    case XD_DTYPE_F16:
      return 1;
    case XD_DTYPE_BF16:
      return 2;
    default:
      plugin::invalid(std::string("scaled_mm ") + what + " must be f32, f16 or bf16");
  }
}

}  // namespace

qmm_call make_int_mm(const xd_kernel_call* c) {
  qmm_call call;
  call.a = &plugin::input(c, 0);
  call.b = &plugin::input(c, 1);
  call.out = &plugin::output(c, 0);
  plugin::check_dtype(*call.a, XD_DTYPE_I8, "int_mm operand a");
  plugin::check_dtype(*call.b, XD_DTYPE_I8, "int_mm operand b");
  plugin::check_dtype(*call.out, XD_DTYPE_I32, "int_mm output");
  fill_mm(call, "int_mm");
  return call;
}

qmm_call make_scaled_mm(const xd_kernel_call* c) {
  qmm_call call;
  call.a = &plugin::input(c, 0);
  call.b = &plugin::input(c, 1);
  call.scale_a = &plugin::input(c, 2);
  call.scale_b = &plugin::input(c, 3);
  call.out = &plugin::output(c, 0);
  fill_mm(call, "scaled_mm");
  qmm_args& g = call.args;
  const xd_view &sa = *call.scale_a, &sb = *call.scale_b;
  check_rank2(sa, "scale_a (broadcast to [M,1])");
  check_rank2(sb, "scale_b (broadcast to [1,N])");
  if (sa.sizes[0] != g.m || sb.sizes[1] != g.n) plugin::invalid("scaled_mm scales must arrive as [M,1] and [1,N]");
  plugin::check_dtype(sa, XD_DTYPE_F32, "scaled_mm scale_a");
  plugin::check_dtype(sb, XD_DTYPE_F32, "scaled_mm scale_b");
  g.a_fmt = fp8_format(*call.a, "operand a");
  g.b_fmt = fp8_format(*call.b, "operand b");
  g.out_kind = float_kind(call.out->dtype, "output");
  g.sa_off = element_offset(sa), g.sa_m = sa.strides[0];
  g.sb_off = element_offset(sb), g.sb_n = sb.strides[1];
  call.bias = call.out;
  g.bias_kind = g.out_kind;
  if (const xd_view* bias = plugin::optional_input(c, 4)) {
    if (bias->ndim != 1 || bias->sizes[0] != g.n) plugin::invalid("scaled_mm bias must be 1-d of size N");
    if (bias->dtype != call.out->dtype && bias->dtype != XD_DTYPE_BF16)
      plugin::invalid("scaled_mm bias must have out's dtype or bf16");
    call.bias = bias;
    g.has_bias = 1;
    g.bias_kind = float_kind(bias->dtype, "bias");
    g.bias_off = element_offset(*bias), g.bias_n = bias->strides[0];
  }
  // A host before ABI 1.7 passes no attribute struct: fast accumulation off.
  if (const auto* at = plugin::find_attrs<xd_attrs_scaled_mm>(c)) call.fast_accum = at->use_fast_accum != 0;
  return call;
}

namespace {

// Launches of p.block x p.block tiles over g's output, the rows cut where they exceed
// max_groups_yz work-groups.
void add_row_launches(qmm_plan& p, const qmm_args& g, int64_t max_groups_yz) {
  const int64_t rows_per_launch = std::max<int64_t>(max_groups_yz, 1) * p.block;
  for (int64_t r0 = 0; r0 < g.m; r0 += rows_per_launch) {
    gemm_launch l;
    l.row0 = r0;
    l.groups[0] = (g.n + p.block - 1) / p.block;
    l.groups[1] = (std::min(rows_per_launch, g.m - r0) + p.block - 1) / p.block;
    l.groups[2] = 1;
    p.launches.push_back(l);
  }
}

}  // namespace

qmm_plan plan_qmm(const qmm_args& g, int64_t wg, int64_t max_groups_yz) {
  qmm_plan p;
  const int64_t ql = wg >= 256 ? 16 : wg >= 64 ? 8 : 4;  // XD_QL of quant_mm.cl
  p.block = ql * 4;                                      // XD_QB
  p.local[0] = p.local[1] = ql;
  p.local[2] = 1;
  if (g.m == 0 || g.n == 0) return p;
  add_row_launches(p, g, max_groups_yz);
  return p;
}

namespace {

// quant_mm_mma.cl's `tensor_cores` kernel (128 x 128 tiles, 128 work-items) where `mma` and the
// operands suit it (see plan_int_mm), else `portable` over plan_qmm's grid.
qmm_plan plan_with(const qmm_args& g, int64_t wg, int64_t max_groups_yz, bool mma, const char* tensor_cores,
                   const char* portable) {
  const auto sixteen = [](int64_t v) { return v % 16 == 0; };
  const bool fits = g.m > 16 && g.n >= 64 && g.k >= 64 && g.a_k == 1 && g.b_k == 1 && sixteen(g.a_off) &&
                    sixteen(g.a_m) && sixteen(g.b_off) && sixteen(g.b_n) && sixteen(g.k);
  if (!mma || !fits) {
    qmm_plan p = plan_qmm(g, wg, max_groups_yz);
    p.entry = portable;
    return p;
  }
  qmm_plan p;
  p.entry = tensor_cores;
  p.block = 128;
  p.local[0] = 128;
  p.local[1] = p.local[2] = 1;
  add_row_launches(p, g, max_groups_yz);
  return p;
}

}  // namespace

qmm_plan plan_int_mm(const qmm_args& g, int64_t wg, int64_t max_groups_yz, bool mma) {
  return plan_with(g, wg, max_groups_yz, mma, kIntMmMmaEntry, kIntMmEntry);
}

qmm_plan plan_scaled_mm(const qmm_args& g, int64_t wg, int64_t max_groups_yz, bool mma, bool fast_wgmma) {
  qmm_plan p = plan_with(g, wg, max_groups_yz, mma, g.b_fmt == 1 ? kScaledMmMmaE5m2 : kScaledMmMmaE4m3, kScaledMmEntry);
  if (fast_wgmma && p.block == 128 && g.m >= kPackedMin && g.n >= kPackedMin) {
    p.packed = true;
    p.unpacked_entry = p.entry;
    p.entry = g.b_fmt == 1 ? kScaledMmWgmmaE5m2 : kScaledMmWgmmaE4m3;
    p.steps = (g.k + 31) / 32;
  }
  return p;
}

namespace {

template <class SetArgs>
void run_grid(const xd_kernel_call* c, const qmm_call& call, const qmm_plan& plan, SetArgs&& set_args) {
  for (const gemm_launch& l : plan.launches) {
    launch k(c, {"quant_mm", call.a->dtype}, plan.entry);
    set_args(k);
    k.value(l.row0);
    k.run(grid::of_groups(2, plan.local, l.groups));
  }
}

}  // namespace

xd_status run_int_mm(const xd_kernel_call* c) {
  return guard(c, [&] {
    const qmm_call call = make_int_mm(c);
    const device_info& dev = device_of(c);
    run_grid(c, call, plan_int_mm(call.args, dev.work_group, dev.max_groups[1], dev.matmul_mma),
             [&](launch& k) { k.buffer(*call.out).buffer(*call.a).buffer(*call.b).value(call.args); });
  });
}

xd_status run_scaled_mm(const xd_kernel_call* c) {
  return guard(c, [&] {
    const qmm_call call = make_scaled_mm(c);
    const device_info& dev = device_of(c);
    qmm_plan plan = plan_scaled_mm(call.args, dev.work_group, dev.max_groups[1], dev.matmul_mma,
                                   dev.matmul_wgmma && call.fast_accum);
    const qmm_args& g = call.args;
    const int64_t a_tiles = (g.m + 127) / 128, b_tiles = (g.n + 127) / 128;
    const int64_t a_chunks = a_tiles * plan.steps * 256, b_chunks = b_tiles * plan.steps * 256;
    // The workspace is the operands' size again; without it the _mma_ kernel computes the call in f32.
    std::optional<plugin::scratch> space;
    if (plan.packed) space = packed_workspace(c, a_chunks + b_chunks, plan.steps);
    if (plan.packed && !space) plan.entry = plan.unpacked_entry;
    if (!space) {
      run_grid(c, call, plan, [&](launch& k) {
        k.buffer(*call.out).buffer(*call.a).buffer(*call.b).buffer(*call.scale_a).buffer(*call.scale_b);
        k.buffer(*call.bias).value(g);
      });
      return;
    }
    const plugin::scratch& ws = *space;
    const int64_t a0 = static_cast<int64_t>(ws.offset / 16), b0 = a0 + a_chunks;
    const auto pack = [&](int64_t dst0, const xd_view& src, int64_t off, int64_t ld, int64_t rows, int64_t tiles,
                          int64_t chunks) {
      launch k(c, {"quant_mm", call.a->dtype}, kQmmPackWgmma);
      k.buffer(ws.handle).value(dst0).buffer(src).value(off).value(ld).value(rows).value(g.k);
      k.value(static_cast<int32_t>(tiles)).value(static_cast<int32_t>(plan.steps));
      k.run(grid::of_groups(static_cast<uint64_t>(chunks / 256), 256));  // a work-group per 4 KiB image
    };
    pack(a0, *call.a, g.a_off, g.a_m, g.m, a_tiles, a_chunks);
    pack(b0, *call.b, g.b_off, g.b_n, g.n, b_tiles, b_chunks);
    run_grid(c, call, plan, [&](launch& k) {
      k.buffer(*call.out).buffer(ws.handle).buffer(ws.handle).buffer(*call.scale_a).buffer(*call.scale_b);
      k.buffer(*call.bias).value(g).value(a0).value(b0);
    });
  });
}

}  // namespace xd::xpu
