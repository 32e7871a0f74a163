#include "rms_norm.hpp"

#include <xd/dtype_set.hpp>

#include "launchers.hpp"
#include "layout.hpp"
#include "rows.hpp"

#include <algorithm>
#include <string>

namespace xd::xpu {

using plugin::check_dtype;
using plugin::invalid;
using plugin::same_sizes;

int norm_leading_dims(const xd_view& x, int32_t normalized_ndim, const char* op) {
  if (normalized_ndim < 1 || normalized_ndim > x.ndim)
    invalid(std::string(op) + " normalized_ndim " + std::to_string(normalized_ndim) + " for an input of rank " +
            std::to_string(x.ndim));
  return x.ndim - normalized_ndim;
}

void check_norm_statistic(const xd_view& s, const xd_view& x, int lead, const char* what) {
  bool ok = s.ndim == x.ndim;
  for (int d = 0; ok && d < x.ndim; ++d) ok = s.sizes[d] == (d < lead ? x.sizes[d] : 1);
  if (!ok) invalid(std::string(what) + " must have shape x.shape[:axis] + [1]*normalized_ndim");
  check_dtype(s, x.dtype == XD_DTYPE_F64 ? XD_DTYPE_F64 : XD_DTYPE_F32, what);
}

namespace {

void check_weight(const xd_view* w, const xd_view& x, int lead, const char* op) {
  if (w != nullptr && (!same_sizes(*w, x.ndim - lead, x.sizes + lead) || !dtypes::compute_floating.contains(w->dtype)))
    invalid(std::string(op) + " weight must be floating with the normalized shape");
}

// The program of (x dtype, weight dtype); x's own when there is no weight.
program norm_program(const xd_view& x, const xd_view* w) {
  return {"rms_norm", x.dtype, w != nullptr ? w->dtype : x.dtype};
}

}  // namespace

rms_norm_call make_rms_norm(const xd_kernel_call* c) {
  const xd_view& x = plugin::input(c, 0);
  const xd_view* w = plugin::optional_input(c, 1);
  const xd_view& y = plugin::output(c, 0);
  const xd_view& rstd = plugin::output(c, 1);
  const auto& attrs = plugin::need_attrs<xd_attrs_rms_norm>(c);
  const int lead = norm_leading_dims(x, attrs.normalized_ndim, "rms_norm");
  if (!same_sizes(y, x.ndim, x.sizes)) invalid("rms_norm output must have x's shape");
  check_dtype(y, x.dtype, "rms_norm output");
  check_norm_statistic(rstd, x, lead, "rms_norm rstd");
  check_weight(w, x, lead, "rms_norm");
  return {x, w, y, rstd, attrs, lead, attrs.normalized_ndim};
}

rms_norm_backward_call make_rms_norm_backward(const xd_kernel_call* c) {
  const xd_view& g = plugin::input(c, 0);
  const xd_view& x = plugin::input(c, 1);
  const xd_view& rstd = plugin::input(c, 2);
  const xd_view* w = plugin::optional_input(c, 3);
  const xd_view* dx = plugin::optional_output(c, 0);
  const xd_view* dw = plugin::optional_output(c, 1);
  const auto& attrs = plugin::need_attrs<xd_attrs_rms_norm_backward>(c);
  const int lead = norm_leading_dims(x, attrs.normalized_ndim, "rms_norm");
  const int k = attrs.normalized_ndim;
  if (!same_sizes(g, x.ndim, x.sizes)) invalid("rms_norm_backward grad_out must have x's shape");
  check_dtype(g, x.dtype, "rms_norm_backward grad_out");
  check_norm_statistic(rstd, x, lead, "rms_norm rstd");
  if (dx != nullptr && !same_sizes(*dx, x.ndim, x.sizes)) invalid("rms_norm_backward grad_input must have x's shape");
  check_weight(w, x, lead, "rms_norm_backward");
  if (dw != nullptr) {
    if (w == nullptr) invalid("rms_norm_backward: grad_weight requested without a weight");
    if (!same_sizes(*dw, k, x.sizes + lead)) invalid("rms_norm_backward grad_weight must have the weight's shape");
    check_dtype(*dw, w->dtype, "rms_norm_backward grad_weight");
  }
  return {g, x, rstd, w, dx, dw, lead, k};
}

int64_t rms_backward_groups(int64_t rows, int64_t compute_units, bool want_dw, int64_t groups_per_cu_with_dw) {
  const int64_t cus = std::max<int64_t>(compute_units, 1);
  return std::min<int64_t>(rows, (want_dw ? groups_per_cu_with_dw : 8) * cus);
}

xd_status run_rms_norm(const xd_kernel_call* c) {
  return guard(c, [&] {
    const auto [x, w, y, rstd, attrs, lead, k] = make_rms_norm(c);
    const layout L = layout_of(x.ndim, x.sizes, {operand_of(x), operand_of(y), operand_of(rstd)}, trailing_mask(lead));
    const layout RL =
        layout_of(k, x.sizes + lead,
                  {{x.strides + lead, 0}, {y.strides + lead, 0}, w != nullptr ? operand_of(*w) : absent_operand()});
    if (L.numel == 0) return;
    const int64_t n = RL.numel;
    const int64_t has_w = w != nullptr ? 1 : 0;
    const device_info& dev = device_of(c);
    const bool short_row = row_is_short(n, dev.work_group, dev.row_items);
    launch kl(c, norm_program(x, w), short_row ? "xd_rms_norm_short" : "xd_rms_norm");
    kl.buffer(y).buffer(rstd).buffer(x).buffer(w != nullptr ? *w : x).value(has_w).value(L).value(RL).value(n);
    kl.value(make_scalars(attrs.eps));
    kl.run_groups(static_cast<uint64_t>(L.numel));
  });
}

xd_status run_rms_norm_backward(const xd_kernel_call* c) {
  return guard(c, [&] {
    const auto [g, x, rstd, w, dx, dw, lead, k] = make_rms_norm_backward(c);
    if (dx == nullptr && dw == nullptr) return;
    const layout L =
        layout_of(x.ndim, x.sizes,
                  {operand_of(g), operand_of(x), operand_of(rstd), dx != nullptr ? operand_of(*dx) : absent_operand()},
                  trailing_mask(lead));
    const layout RL = layout_of(k, x.sizes + lead,
                                {{g.strides + lead, 0},
                                 {x.strides + lead, 0},
                                 w != nullptr ? operand_of(*w) : absent_operand(),
                                 {dx != nullptr ? dx->strides + lead : zero_strides(), 0}});
    const int64_t rows = L.numel;
    const int64_t n = RL.numel;
    const device_info& dev = device_of(c);
    const program prog = norm_program(x, w);
    if (n == 0) return;  // nothing to write in dx; dw (n elements) is empty too
    // k and dw captured by copy: clang before 16 cannot capture structured bindings by reference.
    const auto sum_partials = [&, k = k, dw = dw](const plugin::scratch& part, int64_t poff, int64_t groups) {
      const layout DL = layout_of(k, dw->sizes, {operand_of(*dw)});
      launch kf(c, prog, "xd_rms_norm_dw");
      kf.buffer(*dw).buffer(part.handle).value(poff).value(groups).value(DL).value(n);
      kf.run_groups(static_cast<uint64_t>(rms_dw_groups(n, dev.work_group)));
    };
    if (rows == 0) {
      // No rows: dw is a sum of nothing.
      if (dw != nullptr) sum_partials({dw->handle, 0}, 0, 0);
      return;
    }
    // With dw wanted, each work-group keeps an n-long partial, so their number trades filling the
    // device against the partials' traffic; it also stays within one wave (every group resident
    // at once: each has the same number of rows, so a second, partial wave would double the time).
    const int64_t groups = rms_backward_groups(rows, dev.compute_units, dw != nullptr, dev.rms_backward_groups_per_cu);
    const uint64_t psize = rms_partial_size(x.dtype);
    plugin::scratch part{x.handle, 0};
    int64_t poff = 0;
    if (dw != nullptr) {
      part = plugin::workspace(c, static_cast<uint64_t>(groups) * static_cast<uint64_t>(n) * psize);
      poff = static_cast<int64_t>(part.offset / psize);
    }
    const int64_t flags = (w != nullptr ? 1 : 0) | (dx != nullptr ? 2 : 0) | (dw != nullptr ? 4 : 0);
    {
      const bool short_row = row_is_short(n, dev.work_group, dev.row_items);
      launch kb(c, prog, short_row ? "xd_rms_norm_backward_short" : "xd_rms_norm_backward");
      kb.buffer(dx != nullptr ? *dx : x).buffer(part.handle).value(poff).buffer(g).buffer(x).buffer(rstd);
      kb.buffer(w != nullptr ? *w : x).value(flags).value(L).value(RL).value(n);
      kb.run_groups(static_cast<uint64_t>(groups));
    }
    if (dw != nullptr) sum_partials(part, poff, groups);
  });
}

}  // namespace xd::xpu
