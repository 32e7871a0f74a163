// RMS_NORM and RMS_NORM_BACKWARD (rms_norm.cl). Modules are keyed on x's dtype and the weight's
// (xpu::module_tag: "f32", "f32_bf16"), as the OpenCL plugin keys its norm programs, so a weight
// of another floating dtype loads one more module instead of a switch in the inner loop. The
// build makes a module for every (x, weight) pair of floating dtypes, the pairs the CPU
// reference accepts.
//
// Forward: a work-group per row. Backward: a persistent grid of xpu::rms_backward_groups
// work-groups walking rows with a stride, each with an n-long dw partial in the workspace, then
// xd_rms_norm_dw sums the partials per column.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "kernel_table.hpp"
#include "xpu_op_checks.hpp"
#include "xpu_plan.hpp"

namespace xd::l0 {

namespace {

// The module of (x dtype, weight dtype); x's own when there is no weight.
std::string norm_tag(const xd_view& x, const xd_view* w) {
  return xpu::module_tag(x.dtype, w != nullptr ? w->dtype : x.dtype);
}

}  // namespace

xd_status run_rms_norm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto [x, w, y, rstd, attrs, lead, k] = xpu::make_rms_norm(c, kBackend);  // checks shared with OpenCL
    const xpu::layout L =
        layout_of(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(rstd)}, xpu::trailing_mask(lead));
    const xpu::layout RL = layout_of(k, x.sizes + lead,
                                     {{x.strides + lead, 0},
                                      {y.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : xpu::operand{xpu::zero_strides(), 0}});
    if (L.numel == 0) return;
    const int64_t n = RL.numel;
    const int64_t has_w = w != nullptr ? 1 : 0;
    const bool short_row = xpu::row_is_short(n, kWorkGroup, xpu::kRowItems);
    launch kl(c, "rms_norm", norm_tag(x, w), short_row ? "xd_rms_norm_short" : "xd_rms_norm");
    kl.ptr(y).ptr(rstd).ptr(x).ptr(w != nullptr ? *w : x).value(has_w).value(L).value(RL).value(n);
    kl.value(xpu::make_scalars(attrs.eps));
    kl.run_groups(static_cast<uint64_t>(L.numel));
  });
}

xd_status run_rms_norm_backward(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto [g, x, rstd, w, dx, dw, lead, k] = xpu::make_rms_norm_backward(c, kBackend);  // shared checks
    if (dx == nullptr && dw == nullptr) return;
    const int64_t* zero = xpu::zero_strides();
    const xpu::layout L = layout_of(
        x.ndim, x.sizes,
        {operand_of(g), operand_of(x), operand_of(rstd), dx != nullptr ? operand_of(*dx) : xpu::operand{zero, 0}},
        xpu::trailing_mask(lead));
    const xpu::layout RL = layout_of(k, x.sizes + lead,
                                     {{g.strides + lead, 0},
                                      {x.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : xpu::operand{zero, 0},
                                      {dx != nullptr ? dx->strides + lead : zero, 0}});
    const int64_t rows = L.numel;
    const int64_t n = RL.numel;
    const std::string tag = norm_tag(x, w);
    if (n == 0) return;  // nothing to write in dx; dw (n elements) is empty too
    if (rows == 0) {
      // No rows: dw is a sum of nothing.
      if (dw != nullptr) {
        const xpu::layout DL = layout_of(k, dw->sizes, {operand_of(*dw)});
        const int64_t zero_groups = 0, poff = 0;
        launch kf(c, "rms_norm", tag, "xd_rms_norm_dw");
        kf.ptr(*dw).ptr(*dw).value(poff).value(zero_groups).value(DL).value(n);
        kf.run_groups(static_cast<uint64_t>(xpu::rms_dw_groups(n, kWorkGroup)));
      }
      return;
    }
    device& dev = call_device(c);
    const int64_t groups = xpu::rms_backward_groups(rows, dev.compute_units, dw != nullptr);
    scratch part{x.handle, 0};
    int64_t poff = 0;
    if (dw != nullptr) {
      const uint64_t psize = xpu::rms_partial_size(x.dtype);
      part = workspace(c, static_cast<uint64_t>(groups) * static_cast<uint64_t>(n) * psize);
      poff = static_cast<int64_t>(part.offset / psize);
    }
    const int64_t flags = (w != nullptr ? 1 : 0) | (dx != nullptr ? 2 : 0) | (dw != nullptr ? 4 : 0);
    {
      const bool short_row = xpu::row_is_short(n, kWorkGroup, xpu::kRowItems);
      launch kb(c, "rms_norm", tag, short_row ? "xd_rms_norm_backward_short" : "xd_rms_norm_backward");
      kb.ptr(dx != nullptr ? *dx : x).ptr(part.base).value(poff).ptr(g).ptr(x).ptr(rstd).ptr(w != nullptr ? *w : x);
      kb.value(flags).value(L).value(RL).value(n);
      kb.run_groups(static_cast<uint64_t>(groups));
    }
    if (dw != nullptr) {
      const xpu::layout DL = layout_of(k, dw->sizes, {operand_of(*dw)});
      launch kf(c, "rms_norm", tag, "xd_rms_norm_dw");
      kf.ptr(*dw).ptr(part.base).value(poff).value(groups).value(DL).value(n);
      kf.run_groups(static_cast<uint64_t>(xpu::rms_dw_groups(n, kWorkGroup)));
    }
  });
}

}  // namespace xd::l0
