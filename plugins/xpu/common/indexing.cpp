// INDEX_SELECT and GATHER for both XPU variants: one work-item per output element
// (kernels/indexing.cl).
#include "launchers.hpp"
#include "layout.hpp"

#include <string>

namespace xd::xpu {

xd_status run_index_select(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& a = plugin::input(c, 0);
    const xd_view& index = plugin::input(c, 1);
    const xd_view& out = plugin::output(c, 0);
    plugin::check_dtype(out, a.dtype, "index_select output");
    plugin::check_dtype(index, XD_DTYPE_I64, "index_select index");
    const int dim = plugin::need_attrs<xd_attrs_dim>(c).dim;
    if (a.ndim < 1 || out.ndim != a.ndim || dim < 0 || dim >= a.ndim || index.ndim != 1)
      plugin::invalid("index_select: malformed views");
    for (int d = 0; d < a.ndim; ++d)
      if (out.sizes[d] != (d == dim ? index.sizes[0] : a.sizes[d])) plugin::invalid("index_select: output shape");
    const int64_t n = index.sizes[0];
    const layout L = layout_of(out.ndim, out.sizes, {operand_of(out), operand_of(a)}, uint64_t{1} << dim);
    if (n == 0 || L.numel == 0) return;
    launch k(c, {"indexing", a.dtype}, "xd_index_select");
    k.buffer(out).buffer(a).buffer(index).value(L).value(n).value(out.strides[dim]).value(a.strides[dim]);
    k.value(a.sizes[dim]).value(element_offset(index, "index")).value(index.strides[0]);
    k.run_items(static_cast<uint64_t>(L.numel) * static_cast<uint64_t>(n));
  });
}

xd_status run_gather(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& a = plugin::input(c, 0);
    const xd_view& index = plugin::input(c, 1);
    const xd_view& out = plugin::output(c, 0);
    plugin::check_dtype(out, a.dtype, "gather output");
    plugin::check_dtype(index, XD_DTYPE_I64, "gather index");
    const int dim = plugin::need_attrs<xd_attrs_dim>(c).dim;
    if (a.ndim < 1 || a.ndim > kMaxDims || out.ndim != a.ndim || index.ndim != a.ndim || dim < 0 || dim >= a.ndim)
      plugin::invalid("gather: malformed views");
    for (int d = 0; d < a.ndim; ++d)
      if (out.sizes[d] != index.sizes[d] || (d != dim && out.sizes[d] > a.sizes[d]))
        plugin::invalid("gather: output shape");
    // a walked over out's index space with no step along dim: the kernel adds index * step there.
    int64_t a_strides[kMaxDims];
    for (int d = 0; d < a.ndim; ++d) a_strides[d] = d == dim ? 0 : a.strides[d];
    const layout L = layout_of(out.ndim, out.sizes,
                               {operand_of(out), operand{a_strides, element_offset(a, "a")}, operand_of(index)});
    if (L.numel == 0) return;
    launch k(c, {"indexing", a.dtype}, "xd_gather");
    k.buffer(out).buffer(a).buffer(index).value(L).value(a.strides[dim]).value(a.sizes[dim]);
    k.run_items(static_cast<uint64_t>(L.numel));
  });
}

}  // namespace xd::xpu
