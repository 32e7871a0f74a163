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
#include "xpu_plan.hpp"

namespace xd::l0 {

namespace {

int leading_dims(const xd_view& x, int32_t normalized_ndim) {
  if (normalized_ndim < 1 || normalized_ndim > x.ndim)
    invalid("rms_norm normalized_ndim " + std::to_string(normalized_ndim) + " for an input of rank " +
            std::to_string(x.ndim));
  return x.ndim - normalized_ndim;
}

uint64_t trailing_mask(int lead) { return ~((uint64_t{1} << lead) - 1); }

void check_rstd(const xd_view& rstd, const xd_view& x, int lead) {
  bool ok = rstd.ndim == x.ndim;
  for (int d = 0; ok && d < x.ndim; ++d) ok = rstd.sizes[d] == (d < lead ? x.sizes[d] : 1);
  if (!ok) invalid("rms_norm rstd must have shape x.shape[:axis] + [1]*normalized_ndim");
  check_dtype(rstd, x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, "rms_norm rstd");
}

void check_weight(const xd_view* w, const xd_view& x, int lead, const char* op) {
  if (w != nullptr && (!same_sizes(*w, x.ndim - lead, x.sizes + lead) || !xpu::is_floating(w->dtype)))
    invalid(std::string(op) + " weight must be floating with the normalized shape");
}

const int64_t* zero_strides() {
  static const int64_t zeros[xpu::kMaxDims] = {};
  return zeros;
}

// The module of (x dtype, weight dtype); x's own when there is no weight.
std::string norm_tag(const xd_view& x, const xd_view* w) {
  return xpu::module_tag(x.dtype, w != nullptr ? w->dtype : x.dtype);
}

void run_per_group(launch& k, uint64_t groups) {
  const uint32_t local[3] = {kWorkGroup, 1, 1};
  const uint64_t count[3] = {groups, 1, 1};
  k.run_groups(local, count);
}

}  // namespace

xd_status run_rms_norm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xd_view& x = input(c, 0);
    const xd_view* w = optional_input(c, 1);
    const xd_view& y = output(c, 0);
    const xd_view& rstd = output(c, 1);
    const auto& attrs = need_attrs<xd_attrs_rms_norm>(c);
    const int lead = leading_dims(x, attrs.normalized_ndim);
    const int k = attrs.normalized_ndim;
    if (!same_sizes(y, x.ndim, x.sizes)) invalid("rms_norm output must have x's shape");
    check_dtype(y, x.dtype, "rms_norm output");
    check_rstd(rstd, x, lead);
    check_weight(w, x, lead, "rms_norm");
    const xpu::layout L =
        layout_of(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(rstd)}, trailing_mask(lead));
    const xpu::layout RL = layout_of(k, x.sizes + lead,
                                     {{x.strides + lead, 0},
                                      {y.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : xpu::operand{zero_strides(), 0}});
    if (L.numel == 0) return;
    const int64_t n = RL.numel;
    const int64_t has_w = w != nullptr ? 1 : 0;
    launch kl(c, "rms_norm", norm_tag(x, w), "xd_rms_norm");
    kl.ptr(y).ptr(rstd).ptr(x).ptr(w != nullptr ? *w : x).value(has_w).value(L).value(RL).value(n);
    kl.value(xpu::make_scalars(attrs.eps));
    run_per_group(kl, static_cast<uint64_t>(L.numel));
  });
}

xd_status run_rms_norm_backward(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xd_view& g = input(c, 0);
    const xd_view& x = input(c, 1);
    const xd_view& rstd = input(c, 2);
    const xd_view* w = optional_input(c, 3);
    const xd_view* dx = optional_output(c, 0);
    const xd_view* dw = optional_output(c, 1);
    const auto& attrs = need_attrs<xd_attrs_rms_norm_backward>(c);
    const int lead = leading_dims(x, attrs.normalized_ndim);
    const int k = attrs.normalized_ndim;
    if (!same_sizes(g, x.ndim, x.sizes)) invalid("rms_norm_backward grad_out must have x's shape");
    check_dtype(g, x.dtype, "rms_norm_backward grad_out");
    check_rstd(rstd, x, lead);
    if (dx != nullptr && !same_sizes(*dx, x.ndim, x.sizes)) invalid("rms_norm_backward grad_input must have x's shape");
    check_weight(w, x, lead, "rms_norm_backward");
    if (dw != nullptr) {
      if (w == nullptr) invalid("rms_norm_backward: grad_weight requested without a weight");
      if (!same_sizes(*dw, k, x.sizes + lead)) invalid("rms_norm_backward grad_weight must have the weight's shape");
      check_dtype(*dw, w->dtype, "rms_norm_backward grad_weight");
    }
    if (dx == nullptr && dw == nullptr) return;
    const int64_t* zero = zero_strides();
    const xpu::layout L = layout_of(
        x.ndim, x.sizes,
        {operand_of(g), operand_of(x), operand_of(rstd), dx != nullptr ? operand_of(*dx) : xpu::operand{zero, 0}},
        trailing_mask(lead));
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
        kf.run(static_cast<uint64_t>(n));
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
      launch kb(c, "rms_norm", tag, "xd_rms_norm_backward");
      kb.ptr(dx != nullptr ? *dx : x).ptr(part.base).value(poff).ptr(g).ptr(x).ptr(rstd).ptr(w != nullptr ? *w : x);
      kb.value(flags).value(L).value(RL).value(n);
      run_per_group(kb, static_cast<uint64_t>(groups));
    }
    if (dw != nullptr) {
      const xpu::layout DL = layout_of(k, dw->sizes, {operand_of(*dw)});
      launch kf(c, "rms_norm", tag, "xd_rms_norm_dw");
      kf.ptr(*dw).ptr(part.base).value(poff).value(groups).value(DL).value(n);
      kf.run(static_cast<uint64_t>(n));
    }
  });
}

}  // namespace xd::l0
