#include "softmax.hpp"

#include "launchers.hpp"
#include "layout.hpp"
#include "rows.hpp"

#include <string>

namespace xd::xpu {

const char* softmax_entry(bool log, bool by_group, bool short_row) {
  if (by_group && short_row) return log ? "xd_log_softmax_row_short" : "xd_softmax_row_short";
  if (by_group) return log ? "xd_log_softmax_row" : "xd_softmax_row";
  return log ? "xd_log_softmax_lane" : "xd_softmax_lane";
}

xd_status run_softmax(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& in = plugin::input(c, 0);
    const xd_view& out = plugin::output(c, 0);
    if (!plugin::same_sizes(out, in.ndim, in.sizes)) plugin::invalid("softmax output must have the input's shape");
    plugin::check_dtype(out, in.dtype, "softmax output");
    const int dim = plugin::need_attrs<xd_attrs_dim>(c).dim;
    if (dim < 0 || dim >= in.ndim) plugin::invalid("softmax dim " + std::to_string(dim) + " out of range");
    const int64_t len = in.sizes[dim];
    const int64_t step_out = out.strides[dim], step_in = in.strides[dim];
    const layout L = layout_of(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, uint64_t{1} << dim);
    if (len == 0 || L.numel == 0) return;
    const device_info& dev = device_of(c);
    const bool by_group = softmax_by_group(step_in, L.numel);
    const bool short_row = step_in == 1 && step_out == 1 && row_is_short(len, dev.work_group, dev.row_items);
    launch k(c, {"softmax", in.dtype}, softmax_entry(c->op == XD_OP_LOG_SOFTMAX, by_group, short_row));
    k.buffer(out).buffer(in).value(L).value(len).value(step_out).value(step_in);
    if (by_group)
      k.run_groups(static_cast<uint64_t>(L.numel));
    else
      k.run_items(static_cast<uint64_t>(L.numel));
  });
}

}  // namespace xd::xpu
