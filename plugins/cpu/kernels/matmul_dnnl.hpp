// What the oneDNN matmul kernels share (defined in matmul_dnnl.cpp): the problem as oneDNN sees
// it, the per-thread primitive cache and the call into a primitive. Included by matmul_dnnl.cpp
// and matmul_dnnl_convert.cpp only, and only where the plugin is built with oneDNN.
#pragma once

#ifdef XD_CPU_HAVE_DNNL

#include "kernels/matmul.hpp"

#include <dnnl.hpp>

namespace xd::cpu {

using dt = dnnl::memory::data_type;

// Dims and strides of a, b and the destination, as oneDNN's memory descriptors take them.
struct dnnl_shapes {
  dnnl::memory::dims a_dims, a_strides, b_dims, b_strides, dst_dims, dst_strides;
};

// Everything a matmul primitive depends on.
struct dnnl_key {
  dnnl_shapes s;
  dt src = dt::f32, dst = dt::f32;
  float alpha = 1;
  bool sum = false;  // beta * input added through a sum post-op
  float beta = 0;
  bool operator==(const dnnl_key& o) const {
    return s.a_dims == o.s.a_dims && s.a_strides == o.s.a_strides && s.b_dims == o.s.b_dims &&
           s.b_strides == o.s.b_strides && s.dst_dims == o.s.dst_dims && s.dst_strides == o.s.dst_strides &&
           src == o.src && dst == o.dst && alpha == o.alpha && sum == o.sum && beta == o.beta;
  }
};

// The primitive for `k`, or nullptr when oneDNN declines the problem. One entry per thread: the
// run() that follows check() on the same thread finds it.
const dnnl::matmul* primitive_for(const dnnl_key& k);

// Runs `prim` (built for `k`) with operands a, b and destination dst, and waits for it.
void execute(const dnnl::matmul& prim, const dnnl_key& k, const void* a, const void* b, void* dst);

// Whether oneDNN's CPU engine opens (said once in the log when it does not).
bool dnnl_engine_available();

// check()'s reason when oneDNN builds no primitive for a problem.
inline constexpr const char* kNoPrimitive = "oneDNN builds no matmul primitive for this problem";

// A run() that finds no primitive although check() accepted: an internal error, never quietly
// handed to the loops.
[[noreturn]] void declined_after_check(const char* op);

}  // namespace xd::cpu

#endif
