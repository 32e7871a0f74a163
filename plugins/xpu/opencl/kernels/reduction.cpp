// SUM, MEAN, AMAX, AMIN, ARGMAX (reduce.cl). The input's index space is split into the kept dims
// (K, shared with the keepdim output) and the reduced dims (R). Strategy per call:
//  - work-group per output when the reduced elements are dense (the common "last dim" case) or
//    when outputs are too few to fill the device with one work-item each; long ranges are cut
//    into splits whose partials a second kernel combines, so one big sum still uses the whole
//    device;
//  - work-item per output otherwise (reduced dims outside the innermost: neighbouring outputs
//    read neighbouring addresses), and for short floating sums, which then add in the
//    reference's order (in double where the device has fp64, as the reference does).
#include "kernels/register.hpp"
#include "xpu_plan.hpp"

namespace xd::ocl {
namespace {

const xpu::reduce_op k_sum = xpu::reduce_op::sum, k_mean = xpu::reduce_op::mean, k_amax = xpu::reduce_op::amax,
                     k_amin = xpu::reduce_op::amin, k_argmax = xpu::reduce_op::argmax;

// The plan (xpu::plan_reduce) and the checks (xpu::make_reduce_shape) are shared with the Level
// Zero plugin; what is left here is OpenCL's way of passing buffers and sizing the NDRange.
xd_status run_reduction(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::reduce_op op = *static_cast<const xpu::reduce_op*>(c->user_data);
    const xpu::reduce_entries names = xpu::entries_of(op);
    const xd_view& in = input(c, 0);
    const xd_view& out = output(c, 0);
    const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
    const xpu::reduce_shape shape = xpu::make_reduce_shape(op, in, out, mask, kBackend);
    const cl_layout& K = shape.K;
    const cl_layout& R = shape.R;
    if (K.numel == 0) return;
    device& dev = call_device(c);
    const size_t wg = dev.work_group;
    const program_id prog{family::reduce, in.dtype};
    const xpu::reduce_plan plan = xpu::plan_reduce(op, in.dtype, K.numel, R.numel, shape.dense,
                                                   static_cast<int64_t>(wg), dev.compute_units, dev.fp64);
    if (!plan.by_group) {
      launch k(c, prog, names.lane);
      k.mem(out).mem(in).arg(K).arg(R);
      k.run(static_cast<size_t>(K.numel), wg);
      return;
    }
    const cl_long chunk = plan.chunk, nsplits = plan.splits;
    const size_t groups = static_cast<size_t>(plan.groups);
    scratch ws{mem_of(out), 0};
    if (plan.splits > 1) ws = workspace(c, plan.workspace_bytes);
    const xpu::partial_offsets at = xpu::partials_at(plan, static_cast<uint64_t>(ws.offset));
    const cl_long vo = at.value, io = at.index;
    {
      launch k(c, prog, names.group);
      k.mem(out).mem(in).arg(K).arg(R).arg(nsplits).arg(chunk).mem(ws.mem).arg(vo);
      if (op == xpu::reduce_op::argmax) k.mem(ws.mem).arg(io);
      k.run(groups * wg, wg);
    }
    if (plan.splits == 1) return;
    launch k(c, prog, names.finish);
    k.mem(out).mem(ws.mem).arg(vo);
    if (op == xpu::reduce_op::argmax) {
      k.mem(ws.mem).arg(io).arg(K).arg(nsplits);
    } else {
      const cl_long n = R.numel;
      k.arg(K).arg(nsplits).arg(n);
    }
    k.run(static_cast<size_t>(K.numel) * wg, wg);
  });
}

}  // namespace

void register_reduction(plugin::registrar& r) {
  add_kernels(r, XD_OP_SUM, "opencl.sum", run_reduction, kNumeric, const_cast<xpu::reduce_op*>(&k_sum));
  add_kernels(r, XD_OP_MEAN, "opencl.mean", run_reduction, kFloating, const_cast<xpu::reduce_op*>(&k_mean));
  add_kernels(r, XD_OP_AMAX, "opencl.amax", run_reduction, kNumeric, const_cast<xpu::reduce_op*>(&k_amax));
  add_kernels(r, XD_OP_AMIN, "opencl.amin", run_reduction, kNumeric, const_cast<xpu::reduce_op*>(&k_amin));
  add_kernels(r, XD_OP_ARGMAX, "opencl.argmax", run_reduction, kNumeric, const_cast<xpu::reduce_op*>(&k_argmax));
}

}  // namespace xd::ocl
