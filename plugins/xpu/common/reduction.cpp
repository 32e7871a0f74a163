#include "reduction.hpp"

#include <xd/dtype_set.hpp>

#include "launchers.hpp"

#include <algorithm>
#include <bit>
#include <string>

namespace xd::xpu {

namespace {

// Bytes of the compute type of a dtype: float for f32 and narrower, double for f64, long for
// integers (the accumulator of sum/mean/amax/amin and the value half of argmax partials).
uint64_t compute_size(int32_t dtype) {
  return dtype == XD_DTYPE_F32 || dtype == XD_DTYPE_F16 || dtype == XD_DTYPE_BF16 ? 4 : 8;
}

}  // namespace

reduce_entries entries_of(reduce_op op) {
  switch (op) {
    case reduce_op::sum:
      return {"xd_sum_group", "xd_sum_finish", "xd_sum_lane"};
    case reduce_op::mean:
      return {"xd_mean_group", "xd_mean_finish", "xd_mean_lane"};
    case reduce_op::amax:
      return {"xd_amax_group", "xd_amax_finish", "xd_amax_lane"};
    case reduce_op::amin:
      return {"xd_amin_group", "xd_amin_finish", "xd_amin_lane"};
    case reduce_op::argmax:
      return {"xd_argmax_group", "xd_argmax_finish", "xd_argmax_lane"};
  }
  return {};
}

reduce_plan plan_reduce(reduce_op op, int32_t dtype, int64_t n_out, int64_t n_red, bool dense, int64_t wg,
                        int64_t compute_units, bool fp64) {
  reduce_plan p;
  const bool integer = !dtypes::compute_floating.contains(dtype);
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

reduce_shape make_reduce_shape(reduce_op op, const xd_view& in, const xd_view& out, uint64_t mask) {
  bool keepdim = out.ndim == in.ndim;
  for (int d = 0; keepdim && d < in.ndim; ++d) keepdim = out.sizes[d] == (((mask >> d) & 1u) ? 1 : in.sizes[d]);
  if (!keepdim) plugin::invalid("reduction output must have the input's shape with size 1 on the reduced dims");
  if (op == reduce_op::argmax) {
    plugin::check_dtype(out, XD_DTYPE_I64, "argmax output");
    if (std::popcount(mask) != 1 || std::countr_zero(mask) >= in.ndim)
      plugin::invalid("argmax reduces exactly one dim");
  } else {
    const bool integer_sum = op == reduce_op::sum && !dtypes::compute_floating.contains(in.dtype);
    plugin::check_dtype(out, integer_sum ? XD_DTYPE_I64 : in.dtype, "reduction output");
  }
  reduce_shape s;
  s.K = layout_of(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, mask);
  s.R = layout_of(in.ndim, in.sizes, {{in.strides, 0}}, ~mask);
  if (s.K.numel > 0 && s.R.numel == 0 && op != reduce_op::sum && op != reduce_op::mean)
    plugin::invalid("reduction over an empty dim has no identity");
  s.dense = s.R.ndim == 1 && s.R.stride[0][0] == 1;
  return s;
}

namespace {

reduce_op reduce_op_of(int32_t op) {
  switch (op) {
    case XD_OP_SUM:
      return reduce_op::sum;
    case XD_OP_MEAN:
      return reduce_op::mean;
    case XD_OP_AMAX:
      return reduce_op::amax;
    case XD_OP_AMIN:
      return reduce_op::amin;
    case XD_OP_ARGMAX:
      return reduce_op::argmax;
    default:
      plugin::invalid("op " + std::to_string(op) + " is not a reduction");
  }
}

}  // namespace

xd_status run_reduction(const xd_kernel_call* c) {
  return guard(c, [&] {
    const reduce_op op = reduce_op_of(c->op);
    const reduce_entries names = entries_of(op);
    const xd_view& in = plugin::input(c, 0);
    const xd_view& out = plugin::output(c, 0);
    const uint64_t mask = plugin::need_attrs<xd_attrs_reduce>(c).dim_mask;
    const reduce_shape shape = make_reduce_shape(op, in, out, mask);
    const layout& K = shape.K;
    const layout& R = shape.R;
    if (K.numel == 0) return;
    const device_info& dev = device_of(c);
    const program prog{"reduce", in.dtype};
    const reduce_plan plan =
        plan_reduce(op, in.dtype, K.numel, R.numel, shape.dense, dev.work_group, dev.compute_units, dev.fp64);
    if (!plan.by_group) {
      launch k(c, prog, names.lane);
      k.buffer(out).buffer(in).value(K).value(R);
      k.run_items(static_cast<uint64_t>(K.numel));
      return;
    }
    // With one split the kernels never touch the partial buffers; the output is a valid buffer.
    plugin::scratch ws{out.handle, 0};
    if (plan.splits > 1) ws = plugin::workspace(c, plan.workspace_bytes);
    const partial_offsets at = partials_at(plan, ws.offset);
    {
      launch k(c, prog, names.group);
      k.buffer(out).buffer(in).value(K).value(R).value(plan.splits).value(plan.chunk).buffer(ws.handle).value(at.value);
      if (op == reduce_op::argmax) k.buffer(ws.handle).value(at.index);
      k.run_groups(static_cast<uint64_t>(plan.groups));
    }
    if (plan.splits == 1) return;
    launch k(c, prog, names.finish);
    k.buffer(out).buffer(ws.handle).value(at.value);
    if (op == reduce_op::argmax) {
      k.buffer(ws.handle).value(at.index).value(K).value(plan.splits);
    } else {
      k.value(K).value(plan.splits).value(R.numel);
    }
    k.run_groups(static_cast<uint64_t>(K.numel));
  });
}

}  // namespace xd::xpu
