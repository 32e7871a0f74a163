// RMS_NORM and RMS_NORM_BACKWARD (rms_norm.cl). Programs are keyed on x's dtype and the weight's
// (family norm), so a weight of another floating dtype builds one more program, not a runtime
// switch in the inner loop.
#include "kernels/register.hpp"
#include "runtime/host.hpp"
#include "xpu_op_checks.hpp"
#include "xpu_plan.hpp"

#include <algorithm>
#include <cstdlib>

namespace xd::ocl {
namespace {

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

xd_status run_rms_norm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto [x, w, y, rstd, attrs, lead, k] = xpu::make_rms_norm(c, kBackend);  // checks shared with Level Zero
    const cl_layout L =
        make_layout(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(rstd)}, xpu::trailing_mask(lead));
    const cl_layout RL = make_layout(k, x.sizes + lead,
                                     {{x.strides + lead, 0}, {y.strides + lead, 0},
                                      w != nullptr ? operand_of(*w) : operand{xpu::zero_strides(), 0}});
    if (L.numel == 0) return;
    const cl_long n = RL.numel;
    const cl_long has_w = w != nullptr ? 1 : 0;
    device& dev = call_device(c);
    const bool short_row = xpu::row_is_short(n, static_cast<int64_t>(dev.work_group), dev.row_items);
    launch kl(c, {family::norm, x.dtype, w != nullptr ? w->dtype : x.dtype},
              short_row ? "xd_rms_norm_short" : "xd_rms_norm");
    kl.mem(y).mem(rstd).mem(x).mem(w != nullptr ? *w : x).arg(has_w).arg(L).arg(RL).arg(n);
    kl.arg(make_scalars(attrs.eps));
    kl.run(static_cast<size_t>(L.numel) * dev.work_group, dev.work_group);
  });
}

xd_status run_rms_norm_backward(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto [g, x, rstd, w, dx, dw, lead, k] = xpu::make_rms_norm_backward(c, kBackend);  // shared checks
    if (dx == nullptr && dw == nullptr) return;
    const int64_t* zero = xpu::zero_strides();
    const cl_layout L = make_layout(x.ndim, x.sizes,
                                    {operand_of(g), operand_of(x), operand_of(rstd),
                                     dx != nullptr ? operand_of(*dx) : operand{zero, 0}},
                                    xpu::trailing_mask(lead));
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
        kf.run(static_cast<size_t>(xpu::rms_dw_groups(n, static_cast<int64_t>(dev.work_group))) * dev.work_group,
               dev.work_group);
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
      const bool short_row = xpu::row_is_short(n, static_cast<int64_t>(dev.work_group), dev.row_items);
      launch kb(c, prog, short_row ? "xd_rms_norm_backward_short" : "xd_rms_norm_backward");
      kb.mem(dx != nullptr ? *dx : x).mem(part.mem).arg(poff).mem(g).mem(x).mem(rstd).mem(w != nullptr ? *w : x);
      kb.arg(flags).arg(L).arg(RL).arg(n);
      kb.run(static_cast<size_t>(groups) * dev.work_group, dev.work_group);
    }
    if (dw != nullptr) {
      const cl_layout DL = make_layout(k, dw->sizes, {operand_of(*dw)});
      const cl_long ngroups = groups;
      launch kf(c, prog, "xd_rms_norm_dw");
      kf.mem(*dw).mem(part.mem).arg(poff).arg(ngroups).arg(DL).arg(n);
      kf.run(static_cast<size_t>(xpu::rms_dw_groups(n, static_cast<int64_t>(dev.work_group))) * dev.work_group,
             dev.work_group);
    }
  });
}

}  // namespace

void register_rms_norm(plugin::registrar& r) {
  add_kernels(r, XD_OP_RMS_NORM, "opencl.rms_norm", run_rms_norm, kFloating);
  add_kernels(r, XD_OP_RMS_NORM_BACKWARD, "opencl.rms_norm_backward", run_rms_norm_backward, kFloating);
}

}  // namespace xd::ocl
