#include "xpu_quant.hpp"

#include "xpu_call.hpp"
#include "xpu_dtype.hpp"

#include <algorithm>

namespace xd::xpu {

namespace {

void check_rank2(const xd_view& v, const char* what, const char* backend) {
  if (v.ndim != 2) invalid(backend, std::string(what) + " must have rank 2");
}

// a [M,K], b [K,N], out [M,N]: the shape and stride fields common to both ops.
void fill_mm(qmm_call& call, const char* op, const char* backend) {
  const xd_view &a = *call.a, &b = *call.b, &out = *call.out;
  check_rank2(a, "operand a", backend);
  check_rank2(b, "operand b", backend);
  check_rank2(out, "output", backend);
  qmm_args& g = call.args;
  g.m = a.sizes[0];
  g.k = a.sizes[1];
  g.n = b.sizes[1];
  if (b.sizes[0] != g.k || out.sizes[0] != g.m || out.sizes[1] != g.n)
    invalid(backend, std::string(op) + " shapes do not agree");
  g.a_off = element_offset(a, backend), g.a_m = a.strides[0], g.a_k = a.strides[1];
  g.b_off = element_offset(b, backend), g.b_k = b.strides[0], g.b_n = b.strides[1];
  g.c_off = element_offset(out, backend), g.c_m = out.strides[0], g.c_n = out.strides[1];
}

int64_t fp8_format(const xd_view& v, const char* what, const char* backend) {
  if (v.dtype == XD_DTYPE_F8E4M3FN) return 0;
  if (v.dtype == XD_DTYPE_F8E5M2) return 1;
  invalid(backend, std::string("scaled_mm ") + what + " must be f8e4m3fn or f8e5m2");
}

int64_t float_kind(int32_t dtype, const char* what, const char* backend) {
  switch (dtype) {
    case XD_DTYPE_F32:
      return 0;
    case XD_DTYPE_F16:
      return 1;
    case XD_DTYPE_BF16:
      return 2;
    default:
      invalid(backend, std::string("scaled_mm ") + what + " must be f32, f16 or bf16");
  }
}

}  // namespace

qmm_call make_int_mm(const xd_kernel_call* c, const char* backend) {
  qmm_call call;
  call.a = &input(c, 0, backend);
  call.b = &input(c, 1, backend);
  call.out = &output(c, 0, backend);
  check_dtype(*call.a, XD_DTYPE_I8, "int_mm operand a", backend);
  check_dtype(*call.b, XD_DTYPE_I8, "int_mm operand b", backend);
  check_dtype(*call.out, XD_DTYPE_I32, "int_mm output", backend);
  fill_mm(call, "int_mm", backend);
  return call;
}

qmm_call make_scaled_mm(const xd_kernel_call* c, const char* backend) {
  qmm_call call;
  call.a = &input(c, 0, backend);
  call.b = &input(c, 1, backend);
  call.scale_a = &input(c, 2, backend);
  call.scale_b = &input(c, 3, backend);
  call.out = &output(c, 0, backend);
  fill_mm(call, "scaled_mm", backend);
  qmm_args& g = call.args;
  const xd_view &sa = *call.scale_a, &sb = *call.scale_b;
  check_rank2(sa, "scale_a (broadcast to [M,1])", backend);
  check_rank2(sb, "scale_b (broadcast to [1,N])", backend);
  if (sa.sizes[0] != g.m || sb.sizes[1] != g.n) invalid(backend, "scaled_mm scales must arrive as [M,1] and [1,N]");
  check_dtype(sa, XD_DTYPE_F32, "scaled_mm scale_a", backend);
  check_dtype(sb, XD_DTYPE_F32, "scaled_mm scale_b", backend);
  g.a_fmt = fp8_format(*call.a, "operand a", backend);
  g.b_fmt = fp8_format(*call.b, "operand b", backend);
  g.out_kind = float_kind(call.out->dtype, "output", backend);
  g.sa_off = element_offset(sa, backend), g.sa_m = sa.strides[0];
  g.sb_off = element_offset(sb, backend), g.sb_n = sb.strides[1];
  call.bias = call.out;
  g.bias_kind = g.out_kind;
  if (const xd_view* bias = optional_input(c, 4)) {
    if (bias->ndim != 1 || bias->sizes[0] != g.n) invalid(backend, "scaled_mm bias must be 1-d of size N");
    if (bias->dtype != call.out->dtype && bias->dtype != XD_DTYPE_BF16)
      invalid(backend, "scaled_mm bias must have out's dtype or bf16");
    call.bias = bias;
    g.has_bias = 1;
    g.bias_kind = float_kind(bias->dtype, "bias", backend);
    g.bias_off = element_offset(*bias, backend), g.bias_n = bias->strides[0];
  }
  return call;
}

qmm_plan plan_qmm(const qmm_args& g, int64_t wg, int64_t max_groups_yz) {
  qmm_plan p;
  const int64_t ql = wg >= 256 ? 16 : wg >= 64 ? 8 : 4;  // XD_QL of quant_mm.cl
  p.block = ql * 4;                       // XD_QB
  p.local[0] = p.local[1] = ql;
  p.local[2] = 1;
  if (g.m == 0 || g.n == 0) return p;
  const int64_t rows_per_launch = std::max<int64_t>(max_groups_yz, 1) * p.block;
  for (int64_t r0 = 0; r0 < g.m; r0 += rows_per_launch) {
    gemm_launch l;
    l.row0 = r0;
    l.groups[0] = (g.n + p.block - 1) / p.block;
    l.groups[1] = (std::min(rows_per_launch, g.m - r0) + p.block - 1) / p.block;
    l.groups[2] = 1;
    p.launches.push_back(l);
  }
  return p;
}

}  // namespace xd::xpu
