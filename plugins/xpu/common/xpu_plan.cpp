#include "xpu_plan.hpp"

#include "xpu_call.hpp"

#include <xd/plugin.hpp>

#include <algorithm>
#include <bit>
#include <cstring>

namespace xd::xpu {

namespace {

layout layout_or_throw(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip,
                       const char* backend) {
  layout L{};
  if (!make_layout(L, ndim, sizes, ops, skip))
    invalid(backend, "a view has " + std::to_string(ndim) + " dims (at most " + std::to_string(kMaxDims) + ")");
  return L;
}

// Bytes of the compute type of a dtype: float for f32 and narrower, double for f64, long for
// integers (the accumulator of sum/mean/amax/amin and the value half of argmax partials).
uint64_t compute_size(int32_t dtype) {
  return dtype == XD_DTYPE_F32 || dtype == XD_DTYPE_F16 || dtype == XD_DTYPE_BF16 ? 4 : 8;
}

void check_rank(const xd_view& v, int rank, const char* what, const char* backend) {
  if (v.ndim != rank) invalid(backend, std::string(what) + " must have rank " + std::to_string(rank));
}

}  // namespace

// ---------------------------------------------------------------- reductions

reduce_entries entries_of(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return {"xd_sum_group", "xd_sum_finish", "xd_sum_lane"};
    case reduce_op::mean: return {"xd_mean_group", "xd_mean_finish", "xd_mean_lane"};
    case reduce_op::amax: return {"xd_amax_group", "xd_amax_finish", "xd_amax_lane"};
    case reduce_op::amin: return {"xd_amin_group", "xd_amin_finish", "xd_amin_lane"};
    case reduce_op::argmax: return {"xd_argmax_group", "xd_argmax_finish", "xd_argmax_lane"};
  }
  return {};
}

reduce_plan plan_reduce(reduce_op op, int32_t dtype, int64_t n_out, int64_t n_red, bool dense, int64_t wg,
                        int64_t compute_units, bool fp64) {
  reduce_plan p;
  const bool integer = !is_floating(dtype);
  const bool summing = op == reduce_op::sum || op == reduce_op::mean;
  const bool sequential = !integer && summing && n_red <= kSequentialSum;
  p.by_group = n_red > 0 && !sequential && ((dense && n_red >= 32) || n_out < 2048);
  if (!p.by_group) return p;
  // Enough work-groups to fill the device, each split at least 16 elements per work-item.
  const int64_t target = 4 * std::max<int64_t>(compute_units, 1);
  if (n_out < target) {
    const int64_t per_split = 16 * wg;
    p.splits = std::min<int64_t>((target + n_out - 1) / n_out, (n_red + per_split - 1) / per_split);
    p.splits = std::clamp<int64_t>(p.splits, 1, 1024);
  }
  p.chunk = (n_red + p.splits - 1) / p.splits;
  p.groups = n_out * p.splits;
  const uint64_t csize = compute_size(dtype);
  if (op == reduce_op::argmax) {
    p.partial_size = csize;
    // Values, then 8-byte indices; + 8 for the indices' alignment.
    if (p.splits > 1) p.workspace_bytes = static_cast<uint64_t>(p.groups) * (csize + 8) + 8;
    return p;
  }
  // sum/mean accumulate in long (integers) or double (floats, where the device has fp64).
  p.partial_size = summing && (integer || fp64) ? 8 : csize;
  if (p.splits > 1) p.workspace_bytes = static_cast<uint64_t>(p.groups) * p.partial_size;
  return p;
}

partial_offsets partials_at(const reduce_plan& p, uint64_t ws_offset) {
  partial_offsets o;
  if (p.splits <= 1 || p.partial_size == 0) return o;
  o.value = static_cast<int64_t>(ws_offset / p.partial_size);
  o.index = static_cast<int64_t>((ws_offset + static_cast<uint64_t>(p.groups) * p.partial_size + 7) / 8);
  return o;
}

reduce_shape make_reduce_shape(reduce_op op, const xd_view& in, const xd_view& out, uint64_t mask,
                               const char* backend) {
  bool keepdim = out.ndim == in.ndim;
  for (int d = 0; keepdim && d < in.ndim; ++d) keepdim = out.sizes[d] == (((mask >> d) & 1u) ? 1 : in.sizes[d]);
  if (!keepdim) invalid(backend, "reduction output must have the input's shape with size 1 on the reduced dims");
  if (op == reduce_op::argmax) {
    check_dtype(out, XD_DTYPE_I64, "argmax output", backend);
    if (std::popcount(mask) != 1 || std::countr_zero(mask) >= in.ndim)
      invalid(backend, "argmax reduces exactly one dim");
  } else {
    check_dtype(out, op == reduce_op::sum && !is_floating(in.dtype) ? XD_DTYPE_I64 : in.dtype, "reduction output",
                backend);
  }
  reduce_shape s;
  s.K = layout_or_throw(in.ndim, in.sizes,
                        {{out.strides, element_offset(out, backend)}, {in.strides, element_offset(in, backend)}},
                        mask, backend);
  s.R = layout_or_throw(in.ndim, in.sizes, {{in.strides, 0}}, ~mask, backend);
  if (s.K.numel > 0 && s.R.numel == 0 && op != reduce_op::sum && op != reduce_op::mean)
    invalid(backend, "reduction over an empty dim has no identity");
  s.dense = s.R.ndim == 1 && s.R.stride[0][0] == 1;
  return s;
}

// ---------------------------------------------------------------- softmax, rms_norm

const char* softmax_entry(bool log, bool by_group, bool short_row) {
  if (by_group && short_row) return log ? "xd_log_softmax_row_short" : "xd_softmax_row_short";
  if (by_group) return log ? "xd_log_softmax_row" : "xd_softmax_row";
  return log ? "xd_log_softmax_lane" : "xd_softmax_lane";
}

int64_t rms_backward_groups(int64_t rows, int64_t compute_units, bool want_dw, int64_t groups_per_cu_with_dw) {
  const int64_t cus = std::max<int64_t>(compute_units, 1);
  return std::min<int64_t>(rows, (want_dw ? groups_per_cu_with_dw : 8) * cus);
}

// ---------------------------------------------------------------- matmul

gemm_call make_gemm(const xd_kernel_call* c, const char* backend) {
  const bool batched = c->op == XD_OP_BMM || c->op == XD_OP_BADDBMM;
  const bool with_input = c->op == XD_OP_ADDMM || c->op == XD_OP_BADDBMM;
  const int first = with_input ? 1 : 0;
  gemm_call call;
  call.a = &input(c, first, backend);
  call.b = &input(c, first + 1, backend);
  call.out = &output(c, 0, backend);
  const xd_view &a = *call.a, &b = *call.b, &out = *call.out;
  const int rank = batched ? 3 : 2;
  check_rank(a, rank, "matmul operand a", backend);
  check_rank(b, rank, "matmul operand b", backend);
  check_rank(out, rank, "matmul output", backend);
  const int o = batched ? 1 : 0;
  gemm_args& g = call.args;
  g.batch = batched ? a.sizes[0] : 1;
  g.m = a.sizes[o];
  g.k = a.sizes[o + 1];
  g.n = b.sizes[o + 1];
  if (b.sizes[o] != g.k || out.sizes[o] != g.m || out.sizes[o + 1] != g.n ||
      (batched && (b.sizes[0] != g.batch || out.sizes[0] != g.batch)))
    invalid(backend, "matmul shapes do not agree");
  if (a.dtype != out.dtype || b.dtype != out.dtype) invalid(backend, "matmul operands and output must share a dtype");
  g.a_off = element_offset(a, backend), g.a_m = a.strides[o], g.a_k = a.strides[o + 1];
  g.b_off = element_offset(b, backend), g.b_k = b.strides[o], g.b_n = b.strides[o + 1];
  g.c_off = element_offset(out, backend), g.c_m = out.strides[o], g.c_n = out.strides[o + 1];
  if (batched) g.a_b = a.strides[0], g.b_b = b.strides[0], g.c_b = out.strides[0];
  double alpha = 1, beta = 0;
  call.input = &out;
  if (with_input) {
    const auto& blas = need_attrs<xd_attrs_blas>(c, backend);
    alpha = blas.alpha;
    beta = blas.beta;
    if (beta != 0) {  // beta == 0: input is not read, so a NaN in it cannot propagate
      const xd_view& in = input(c, 0, backend);
      check_rank(in, rank, "matmul input", backend);
      if (in.sizes[o] != g.m || in.sizes[o + 1] != g.n || (batched && in.sizes[0] != g.batch))
        invalid(backend, "matmul input must arrive broadcast to the output's shape");
      check_dtype(in, out.dtype, "matmul input", backend);
      call.input = &in;
      g.has_input = 1;
      g.i_off = element_offset(in, backend), g.i_m = in.strides[o], g.i_n = in.strides[o + 1];
      if (batched) g.i_b = in.strides[0];
    }
  }
  std::memcpy(&g.alpha_d, &alpha, 8);
  std::memcpy(&g.beta_d, &beta, 8);
  g.alpha_f = static_cast<float>(alpha);
  g.beta_f = static_cast<float>(beta);
  return call;
}

gemm_plan plan_gemm(const gemm_args& g, int64_t wg, int64_t max_groups_yz) {
  gemm_plan p;
  if (g.batch == 0 || g.m == 0 || g.n == 0) return p;
  // The register-tiled kernel needs tiles it fills (and 256 work-items); small, skinny or odd
  // shapes go to the plain tiled kernel, whose tile (XD_GT) follows the compiled XD_WG.
  p.big = wg >= 256 && (g.m >= 128 || g.n >= 128) && g.m >= 32 && g.n >= 32 && g.k >= 8;
  p.tile = p.big ? 128 : (wg >= 256 ? 16 : wg >= 64 ? 8 : 4);
  p.local[0] = p.local[1] = p.big ? 16 : p.tile;
  p.local[2] = 1;
  // xd_gemm_big_dense: A dense along k, B along n, every vector load aligned (offsets, row and
  // batch strides multiples of 4 elements; the buffers themselves are aligned far beyond that),
  // and n, k multiples of 4 so that a group of 4 is wholly inside or outside.
  const auto four = [](int64_t v) { return v % 4 == 0; };
  const bool dense = p.big && g.a_k == 1 && g.b_n == 1 && four(g.n) && four(g.k) && four(g.a_off) && four(g.a_m) &&
                     four(g.a_b) && four(g.b_off) && four(g.b_k) && four(g.b_b);
  p.entry = dense ? "xd_gemm_big_dense" : p.big ? "xd_gemm_big" : "xd_gemm_tiled";
  const int64_t max_yz = std::max<int64_t>(max_groups_yz, 1);
  const int64_t rows_per_launch = max_yz * p.tile;
  for (int64_t b0 = 0; b0 < g.batch; b0 += max_yz) {
    const int64_t nb = std::min(max_yz, g.batch - b0);
    for (int64_t r0 = 0; r0 < g.m; r0 += rows_per_launch) {
      const int64_t nr = std::min(rows_per_launch, g.m - r0);
      gemm_launch l;
      l.row0 = r0;
      l.batch0 = b0;
      l.groups[0] = (g.n + p.tile - 1) / p.tile;
      l.groups[1] = (nr + p.tile - 1) / p.tile;
      l.groups[2] = nb;
      p.launches.push_back(l);
    }
  }
  return p;
}

}  // namespace xd::xpu
