// SUM, MEAN, AMAX, AMIN, ARGMAX (reduce.cl), planned as the OpenCL plugin plans them
// (plugins/xpu/common/xpu_plan.hpp): a work-item per output (_lane) for reduced dims outside the
// innermost and for short floating sums; else a work-group per (output, split) (_group), with
// the splits' partials in the host's workspace combined by a work-group per output (_finish).
// The work-group kernels have reqd_work_group_size(XD_WG): their group size is kWorkGroup.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_plan.hpp"

namespace xd::l0 {

namespace {

xpu::reduce_op reduce_op_of(int32_t op) {
  switch (op) {
    case XD_OP_SUM: return xpu::reduce_op::sum;
    case XD_OP_MEAN: return xpu::reduce_op::mean;
    case XD_OP_AMAX: return xpu::reduce_op::amax;
    case XD_OP_AMIN: return xpu::reduce_op::amin;
    case XD_OP_ARGMAX: return xpu::reduce_op::argmax;
    default: invalid("op " + std::to_string(op) + " is not a reduction");
  }
}

}  // namespace

xd_status run_reduction(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::reduce_op op = reduce_op_of(c->op);
    const xpu::reduce_entries names = xpu::entries_of(op);
    const xd_view& in = input(c, 0);
    const xd_view& out = output(c, 0);
    const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
    const xpu::reduce_shape shape = xpu::make_reduce_shape(op, in, out, mask, kBackend);
    const xpu::layout& K = shape.K;
    const xpu::layout& R = shape.R;
    if (K.numel == 0) return;
    device& dev = call_device(c);
    const xpu::reduce_plan plan =
        xpu::plan_reduce(op, in.dtype, K.numel, R.numel, shape.dense, kWorkGroup, dev.compute_units, dev.fp64);

    if (!plan.by_group) {
      launch k(c, "reduce", in.dtype, names.lane);
      k.ptr(out).ptr(in).value(K).value(R);
      k.run(static_cast<uint64_t>(K.numel));
      return;
    }
    const int64_t splits = plan.splits, chunk = plan.chunk;
    // With one split the kernels never touch the partial buffers; the output is a valid pointer.
    scratch ws{out.handle, 0};
    if (plan.splits > 1) ws = workspace(c, plan.workspace_bytes);
    const xpu::partial_offsets at = xpu::partials_at(plan, ws.offset);
    {
      launch k(c, "reduce", in.dtype, names.group);
      k.ptr(out).ptr(in).value(K).value(R).value(splits).value(chunk).ptr(ws.base).value(at.value);
      if (op == xpu::reduce_op::argmax) k.ptr(ws.base).value(at.index);
      k.run_groups(static_cast<uint64_t>(plan.groups));
    }
    if (plan.splits == 1) return;
    launch k(c, "reduce", in.dtype, names.finish);
    k.ptr(out).ptr(ws.base).value(at.value);
    if (op == xpu::reduce_op::argmax) {
      k.ptr(ws.base).value(at.index).value(K).value(splits);
    } else {
      const int64_t n = R.numel;
      k.value(K).value(splits).value(n);
    }
    k.run_groups(static_cast<uint64_t>(K.numel));
  });
}

}  // namespace xd::l0
