// CONV2D's problem as the CPU kernels see it, read from a call and checked once
// (describe_conv2d, conv.cpp) for the reference loop and oneDNN's kernel (conv_dnnl.cpp).
#pragma once

#include <xd/plugin_abi.h>

#include <cstdint>

namespace xd::cpu {

struct conv2d_problem {
  int64_t n = 0, c = 0, h = 0, w = 0;  // input [N, C, H, W]
  int64_t o = 0, kh = 0, kw = 0;       // weight [O, C / groups, kH, kW]
  int64_t oh = 0, ow = 0;              // out [N, O, oH, oW]
  int64_t groups = 1;
  int64_t stride[2] = {1, 1}, pad[2] = {0, 0}, dilation[2] = {1, 1};  // pad: top and left
};

// The call's views and attributes as a problem; a malformed call is an invalid-argument error.
conv2d_problem describe_conv2d(const xd_kernel_call* c);

}  // namespace xd::cpu
