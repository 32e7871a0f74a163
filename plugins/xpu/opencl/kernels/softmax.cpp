// SOFTMAX and LOG_SOFTMAX (softmax.cl): a work-group per row when rows are dense along the dim
// (or too few to fill the device one work-item each), else a work-item per row.
#include "kernels/register.hpp"
#include "xpu_op_checks.hpp"
#include "xpu_plan.hpp"

namespace xd::ocl {
namespace {

template <bool Log>
xd_status run_softmax(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto [in, out, dim] = xpu::make_softmax(c, kBackend);  // checks shared with Level Zero
    const cl_long len = in.sizes[dim];
    const cl_long step_out = out.strides[dim], step_in = in.strides[dim];
    const cl_layout L = make_layout(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, uint64_t{1} << dim);
    if (len == 0 || L.numel == 0) return;
    device& dev = call_device(c);
    const bool by_group = xpu::softmax_by_group(step_in, L.numel);  // shared with Level Zero
    const bool short_row = step_in == 1 && step_out == 1 && xpu::row_is_short(len, static_cast<int64_t>(dev.work_group), dev.row_items);
    launch k(c, {family::reduce, in.dtype}, xpu::softmax_entry(Log, by_group, short_row));
    k.mem(out).mem(in).arg(L).arg(len).arg(step_out).arg(step_in);
    if (by_group)
      k.run(static_cast<size_t>(L.numel) * dev.work_group, dev.work_group);
    else
      k.run(static_cast<size_t>(L.numel), dev.work_group);
  });
}

}  // namespace

void register_softmax(plugin::registrar& r) {
  add_kernels(r, XD_OP_SOFTMAX, "opencl.softmax", run_softmax<false>, kFloating);
  add_kernels(r, XD_OP_LOG_SOFTMAX, "opencl.log_softmax", run_softmax<true>, kFloating);
}

}  // namespace xd::ocl
