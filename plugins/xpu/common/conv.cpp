// CONV2D for both XPU variants: kernels/conv.cl's implicit GEMM, one launch per block of at most
// max_groups[2] convolution groups (depthwise convolutions can have more groups than a launch's
// third grid dim takes).
#include "launchers.hpp"
#include "layout.hpp"

#include <algorithm>
#include <string>

namespace xd::xpu {

namespace {

// conv.cl's xd_conv_args, field for field (all 64-bit, so both sides lay it out alike).
struct conv2d_args {
  int64_t N, C, H, W, O, KH, KW, OH, OW;
  int64_t cg, og, K, P;
  int64_t sy, sx, py, px, dy, dx;
  int64_t has_bias;
  int64_t in[5], w[5], b[2], o[5];  // element offset, then the strides
};

void view_into(int64_t* dst, const xd_view& v, const char* what) {
  dst[0] = element_offset(v, what);
  for (int d = 0; d < v.ndim; ++d) dst[1 + d] = v.strides[d];
}

// conv.cl's XD_CV_TILE for the compiled work-group size.
int64_t conv_tile(int64_t work_group) { return work_group >= 256 ? 64 : work_group >= 64 ? 32 : 16; }

}  // namespace

xd_status run_conv2d(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& in = plugin::input(c, 0);
    const xd_view& w = plugin::input(c, 1);
    const xd_view* bias = plugin::optional_input(c, 2);
    const xd_view& out = plugin::output(c, 0);
    const xd_attrs_conv2d& attrs = plugin::need_attrs<xd_attrs_conv2d>(c);
    if (in.ndim != 4 || w.ndim != 4 || out.ndim != 4 || (bias && bias->ndim != 1))
      plugin::invalid("conv2d: input, weight and out must be rank 4, bias rank 1");
    for (const xd_view* v : {&w, &out}) plugin::check_dtype(*v, in.dtype, "conv2d operand");
    if (bias) plugin::check_dtype(*bias, in.dtype, "conv2d bias");
    conv2d_args a{};
    a.N = in.sizes[0], a.C = in.sizes[1], a.H = in.sizes[2], a.W = in.sizes[3];
    a.O = w.sizes[0], a.KH = w.sizes[2], a.KW = w.sizes[3];
    a.OH = out.sizes[2], a.OW = out.sizes[3];
    const int64_t groups = attrs.groups;
    if (groups < 1 || a.C % groups != 0 || a.O % groups != 0 || w.sizes[1] != a.C / groups || out.sizes[0] != a.N ||
        out.sizes[1] != a.O || (bias && bias->sizes[0] != a.O))
      plugin::invalid("conv2d: malformed views (shapes or groups do not agree)");
    for (int d = 0; d < 2; ++d)
      if (attrs.stride[d] < 1 || attrs.dilation[d] < 1 || attrs.padding[d] < 0)
        plugin::invalid("conv2d: malformed stride, padding or dilation");
    a.cg = a.C / groups;
    a.og = a.O / groups;
    a.K = a.cg * a.KH * a.KW;
    a.P = a.N * a.OH * a.OW;
    a.sy = attrs.stride[0], a.sx = attrs.stride[1];
    a.py = attrs.padding[0], a.px = attrs.padding[1];
    a.dy = attrs.dilation[0], a.dx = attrs.dilation[1];
    a.has_bias = bias != nullptr;
    view_into(a.in, in, "input");
    view_into(a.w, w, "weight");
    if (bias) view_into(a.b, *bias, "bias");
    view_into(a.o, out, "out");
    if (a.P == 0 || a.O == 0) return;
    const device_info& dev = device_of(c);
    const int64_t tile = conv_tile(dev.work_group);
    const int64_t side = tile / 4;
    const int64_t local[3] = {side, side, 1};
    const int64_t channel_tiles = (a.og + tile - 1) / tile;
    if (channel_tiles > dev.max_groups[1])
      plugin::invalid("conv2d: " + std::to_string(a.og) + " output channels per group exceed one launch's grid");
    const int64_t max_z = std::max<int64_t>(1, dev.max_groups[2]);
    for (int64_t g0 = 0; g0 < groups; g0 += max_z) {
      const int64_t count[3] = {(a.P + tile - 1) / tile, channel_tiles, std::min(max_z, groups - g0)};
      launch l(c, {"conv", in.dtype}, "xd_conv2d");
      // An absent bias is never read (has_bias 0); the input's buffer stands in for the argument.
      l.buffer(out).buffer(in).buffer(w).buffer(bias ? *bias : in).value(a).value(g0);
      l.run(grid::of_groups(3, local, count));
    }
  });
}

}  // namespace xd::xpu
