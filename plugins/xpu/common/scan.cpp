// CUMSUM and TOPK for both XPU variants (kernels/scan.cl). Views of any strides: the kernels walk
// the rows through a layout and each operand's step along `dim`, so nothing is copied first.
#include "launchers.hpp"
#include "layout.hpp"

#include <string>

namespace xd::xpu {

namespace {

// Rows this short run one per work-item (_lane): a work-group each would leave most of its
// work-items idle. Longer rows run one per work-group (_row) when they are dense along the dim or
// too few to fill the device a work-item each, as softmax chooses.
constexpr int64_t kCumsumLaneMax = 64;

bool cumsum_by_group(int64_t len, int64_t step_in, int64_t rows) {
  return len > kCumsumLaneMax && (step_in == 1 || rows < 2048);
}

}  // namespace

xd_status run_cumsum(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& in = plugin::input(c, 0);
    const xd_view& out = plugin::output(c, 0);
    if (!plugin::same_sizes(out, in.ndim, in.sizes)) plugin::invalid("cumsum output must have the input's shape");
    plugin::check_dtype(out, in.dtype, "cumsum output");
    const int dim = plugin::need_attrs<xd_attrs_dim>(c).dim;
    if (dim < 0 || dim >= in.ndim) plugin::invalid("cumsum dim " + std::to_string(dim) + " out of range");
    const int64_t len = in.sizes[dim];
    const layout L = layout_of(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, uint64_t{1} << dim);
    if (len == 0 || L.numel == 0) return;
    const bool by_group = cumsum_by_group(len, in.strides[dim], L.numel);
    launch k(c, {"scan", in.dtype}, by_group ? "xd_cumsum_row" : "xd_cumsum_lane");
    k.buffer(out)
        .buffer(in)
        .value(L)
        .value(len)
        .value(static_cast<int64_t>(out.strides[dim]))
        .value(static_cast<int64_t>(in.strides[dim]));
    if (by_group)
      k.run_groups(static_cast<uint64_t>(L.numel));
    else
      k.run_items(static_cast<uint64_t>(L.numel));
  });
}

xd_status run_topk(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& in = plugin::input(c, 0);
    const xd_view& values = plugin::output(c, 0);
    const xd_view& indices = plugin::output(c, 1);
    plugin::check_dtype(values, in.dtype, "topk values");
    plugin::check_dtype(indices, XD_DTYPE_I64, "topk indices");
    const xd_attrs_topk& attrs = plugin::need_attrs<xd_attrs_topk>(c);
    const int dim = attrs.dim;
    if (in.ndim < 1 || dim < 0 || dim >= in.ndim) plugin::invalid("topk: malformed views or dim");
    const int64_t len = in.sizes[dim], k = attrs.k;
    if (k < 0 || k > len) plugin::invalid("topk: k " + std::to_string(k) + " out of range");
    for (const xd_view* v : {&values, &indices})
      for (int d = 0; d < in.ndim; ++d)
        if (v->ndim != in.ndim || v->sizes[d] != (d == dim ? k : in.sizes[d])) plugin::invalid("topk: output shape");
    // The kernel keeps row positions in 32 bits in local memory.
    if (len > int64_t{0xFFFFFFFF})
      throw plugin::error(XD_ERR_NOT_IMPLEMENTED, "topk: rows of 2^32 elements or more are not supported");
    const layout L =
        layout_of(in.ndim, in.sizes, {operand_of(values), operand_of(indices), operand_of(in)}, uint64_t{1} << dim);
    if (k == 0 || L.numel == 0) return;
    launch l(c, {"scan", in.dtype}, "xd_topk");
    l.buffer(values).buffer(indices).buffer(in).value(L).value(len).value(k);
    l.value(static_cast<int64_t>(values.strides[dim])).value(static_cast<int64_t>(indices.strides[dim]));
    l.value(static_cast<int64_t>(in.strides[dim])).value(static_cast<int32_t>(attrs.largest != 0));
    l.run_groups(static_cast<uint64_t>(L.numel));
  });
}

}  // namespace xd::xpu
