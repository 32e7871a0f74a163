// RMS_NORM and RMS_NORM_BACKWARD (rms_norm.cl). Programs are keyed on x's dtype and the weight's
// (family norm), so a weight of another floating dtype builds one more program, not a runtime
// switch in the inner loop.
#include "kernels/register.hpp"
#include "runtime/host.hpp"
#include "xpu_plan.hpp"

#include <algorithm>
#include <cstdlib>

namespace xd::ocl {
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

// Work-groups per compute unit of the backward pass when dw is wanted: xpu::kRmsBackwardGroupsPerCu
// (2) by default, XD_OPENCL_RMS_BWD_GROUPS_PER_CU to tune a device.
int64_t groups_per_cu_with_dw() {
  static const int64_t n = [] {
    const char* v = secure_getenv("XD_OPENCL_RMS_BWD_GROUPS_PER_CU");
    if (v == nullptr || *v == '\0') return xpu::kRmsBackwardGroupsPerCu;
    char* end = nullptr;
    const long parsed = std::strtol(v, &end, 10);
    if (*end != '\0' || parsed < 1 || parsed > 64) {
      log(XD_LOG_WARN, std::string("XD_OPENCL_RMS_BWD_GROUPS_PER_CU='") + v + "' is not a number in [1, 64]; using " +
                           std::to_string(xpu::kRmsBackwardGroupsPerCu));
      return xpu::kRmsBackwardGroupsPerCu;
    }
    return static_cast<int64_t>(parsed);
  }();
  return n;
}

const int64_t* zero_strides() {
  static const int64_t zeros[kMaxDims] = {};
  return zeros;
}

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
    if (w != nullptr && (!same_sizes(*w, k, x.sizes + lead) || !is_floating(w->dtype)))
      invalid("rms_norm weight must be floating with the normalized shape");
    const cl_layout L = make_layout(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(rstd)}, trailing_mask(lead));
    const cl_layout RL = make_layout(k, x.sizes + lead,
                                     {{x.strides + lead, 0}, {y.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : operand{zero_strides(), 0}});
    if (L.numel == 0) return;
    const cl_long n = RL.numel;
    const cl_long has_w = w != nullptr ? 1 : 0;
    device& dev = call_device(c);
    launch kl(c, {family::norm, x.dtype, w != nullptr ? w->dtype : x.dtype}, "xd_rms_norm");
    kl.mem(y).mem(rstd).mem(x).mem(w != nullptr ? *w : x).arg(has_w).arg(L).arg(RL).arg(n).arg(make_scalars(attrs.eps));
    kl.run(static_cast<size_t>(L.numel) * dev.work_group, dev.work_group);
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
    if (w != nullptr && (!same_sizes(*w, k, x.sizes + lead) || !is_floating(w->dtype)))
      invalid("rms_norm_backward weight must be floating with the normalized shape");
    if (dw != nullptr) {
      if (w == nullptr) invalid("rms_norm_backward: grad_weight requested without a weight");
      if (!same_sizes(*dw, k, x.sizes + lead)) invalid("rms_norm_backward grad_weight must have the weight's shape");
      check_dtype(*dw, w->dtype, "rms_norm_backward grad_weight");
    }
    if (dx == nullptr && dw == nullptr) return;
    const int64_t* zero = zero_strides();
    const cl_layout L = make_layout(x.ndim, x.sizes,
                                    {operand_of(g), operand_of(x), operand_of(rstd),
                                     dx != nullptr ? operand_of(*dx) : operand{zero, 0}},
                                    trailing_mask(lead));
    const cl_layout RL = make_layout(k, x.sizes + lead,
                                     {{g.strides + lead, 0}, {x.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : operand{zero, 0},
                                      {dx != nullptr ? dx->strides + lead : zero, 0}});
    const int64_t rows = L.numel;
    const cl_long n = RL.numel;
    device& dev = call_device(c);
    const program_id prog{family::norm, x.dtype, w != nullptr ? w->dtype : x.dtype};
    if (n == 0) return;  // nothing to write in dx; dw (n elements) is empty too
    if (rows == 0) {
      // No rows: dw is a sum of nothing.
      if (dw != nullptr) {
        const cl_layout DL = make_layout(k, dw->sizes, {operand_of(*dw)});
        const cl_long zero_groups = 0, poff = 0;
        launch kf(c, prog, "xd_rms_norm_dw");
        kf.mem(*dw).mem(*dw).arg(poff).arg(zero_groups).arg(DL).arg(n);
        kf.run(static_cast<size_t>(n), dev.work_group);
      }
      return;
    }
    // Work-groups walk rows with a stride. With dw wanted, each keeps an n-long partial, so their
    // number trades filling the device against the partials' traffic; it should also stay within
    // one wave (every group resident at once: each has the same number of rows, so a second,
    // partial wave would double the time).
    const int64_t groups = xpu::rms_backward_groups(rows, dev.compute_units, dw != nullptr, groups_per_cu_with_dw());
    const size_t csize = xpu::rms_partial_size(x.dtype);
    scratch part{mem_of(x), 0};
    cl_long poff = 0;
    if (dw != nullptr) {
      part = workspace(c, static_cast<uint64_t>(groups) * static_cast<uint64_t>(n) * csize);
      poff = part.offset / static_cast<cl_long>(csize);
    }
    const cl_long flags = (w != nullptr ? 1 : 0) | (dx != nullptr ? 2 : 0) | (dw != nullptr ? 4 : 0);
    {
      launch kb(c, prog, "xd_rms_norm_backward");
      kb.mem(dx != nullptr ? *dx : x).mem(part.mem).arg(poff).mem(g).mem(x).mem(rstd).mem(w != nullptr ? *w : x);
      kb.arg(flags).arg(L).arg(RL).arg(n);
      kb.run(static_cast<size_t>(groups) * dev.work_group, dev.work_group);
    }
    if (dw != nullptr) {
      const cl_layout DL = make_layout(k, dw->sizes, {operand_of(*dw)});
      const cl_long ngroups = groups;
      launch kf(c, prog, "xd_rms_norm_dw");
      kf.mem(*dw).mem(part.mem).arg(poff).arg(ngroups).arg(DL).arg(n);
      kf.run(static_cast<size_t>(n), dev.work_group);
    }
  });
}

}  // namespace

void register_rms_norm(plugin::registrar& r) {
  add_kernels(r, XD_OP_RMS_NORM, "opencl.rms_norm", run_rms_norm, kFloating);
  add_kernels(r, XD_OP_RMS_NORM_BACKWARD, "opencl.rms_norm_backward", run_rms_norm_backward, kFloating);
}

}  // namespace xd::ocl
