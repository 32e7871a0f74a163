// SOFTMAX and LOG_SOFTMAX (softmax.cl): a work-group per row (_row, reqd_work_group_size(XD_WG))
// when rows are dense along the dim or too few to fill the device one work-item each, else a
// work-item per row (_lane): xpu::softmax_by_group, as in the OpenCL plugin.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_op_checks.hpp"
#include "xpu_plan.hpp"

namespace xd::l0 {

namespace {

xd_status run(const xd_kernel_call* c, bool log) {
  return kernel_guard(c, [&] {
    const auto [in, out, dim] = xpu::make_softmax(c, kBackend);  // checks shared with OpenCL
    const int64_t len = in.sizes[dim];
    const int64_t step_out = out.strides[dim], step_in = in.strides[dim];
    const xpu::layout L = layout_of(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, uint64_t{1} << dim);
    if (len == 0 || L.numel == 0) return;
    const bool by_group = xpu::softmax_by_group(step_in, L.numel);
    const bool short_row = step_in == 1 && step_out == 1 && xpu::row_is_short(len, kWorkGroup, xpu::kRowItems);
    launch k(c, "softmax", in.dtype, xpu::softmax_entry(log, by_group, short_row));
    k.ptr(out).ptr(in).value(L).value(len).value(step_out).value(step_in);
    if (by_group)
      k.run_groups(static_cast<uint64_t>(L.numel));
    else
      k.run(static_cast<uint64_t>(L.numel));
  });
}

}  // namespace

xd_status run_softmax(const xd_kernel_call* c) { return run(c, false); }
xd_status run_log_softmax(const xd_kernel_call* c) { return run(c, true); }

}  // namespace xd::l0
