// ARGMAX over a dim whose elements are contiguous (stride 1, e.g. the last dim of a row-major
// tensor): the fast kernel in front of kernels/reduction.cpp's loop, with its answer: the first
// index of the maximum, a NaN counting as the maximum and the first NaN winning. A row is taken in
// blocks that stay in L1: the block's maximum by vector max (simd::max, NaN-propagating), and only
// where that beats the best so far, the block searched again for its first index of it
// (simd::find_first) — one pass over memory, as the reference's scalar loop makes, at vector
// speed. Strided rows, empty rows and malformed calls run the reference (which reports the last).
#include "kernels/fast/rows.hpp"

#include <bit>
#include <cmath>
#include <limits>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kBlock = 2048;  // elements searched again at most once each: 8 KiB of f32, in L1

const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& in = input(c, 0);
  const xd_view& out = output(c, 0);
  const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
  if (in.ndim > kMaxDims || out.ndim != in.ndim || out.dtype != XD_DTYPE_I64 || std::popcount(mask) != 1 ||
      std::countr_zero(mask) >= in.ndim)
    return "a malformed call (the reference reports it)";
  for (int d = 0; d < in.ndim; ++d)
    if (out.sizes[d] != (((mask >> d) & 1u) ? 1 : in.sizes[d])) return "a malformed call (the reference reports it)";
  const int dim = std::countr_zero(mask);
  if (in.sizes[dim] == 0) return "an empty dim runs the reference loop (which reports it)";
  if (in.sizes[dim] > 1 && in.strides[dim] != 1)
    return "takes a dim of contiguous elements; a strided one runs the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

// The reference's answer for one row of len elements of T.
template <class T>
int64_t argmax_row(const T* x, int64_t len) {
  float best = -std::numeric_limits<float>::infinity();
  int64_t best_i = 0;
  for (int64_t b = 0; b < len; b += kBlock) {
    const int64_t n = std::min(kBlock, len - b);
    const float m = simd::max(x + b, elem_of<T>(), n);
    if (std::isnan(m)) return b + simd::find_first(x + b, elem_of<T>(), n, m);
    // Strictly greater: an equal maximum in a later block is not the first. A row of -Inf only
    // keeps index 0, as the reference's loop does.
    if (m > best) {
      best = m;
      best_i = b + simd::find_first(x + b, elem_of<T>(), n, m);
    }
  }
  return best_i;
}

struct argmax_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("argmax.fast ") + why);
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
      const int64_t len = in.sizes[std::countr_zero(mask)];
      const strided_layout<2> outer(in.ndim, in.sizes, {out.strides, in.strides},
                                    {int64_t{sizeof(int64_t)}, int64_t{sizeof(T)}}, mask);
      const int64_t grain = std::max<int64_t>(1, kElementGrain / len);
      parallel_for(outer.numel(), grain, [&](int64_t begin, int64_t end) {
        outer.for_each_run({data(out), data(in)}, begin, end,
                           [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& s) {
                             for (int64_t i = 0; i < n; ++i)
                               *reinterpret_cast<int64_t*>(p[0] + i * s[0]) =
                                   argmax_row(reinterpret_cast<const T*>(p[1] + i * s[1]), len);
                           });
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entry of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_argmax_fast =
    fast::fast_kernel<fast::argmax_fast>(XD_OP_ARGMAX, "argmax.fast", fast::check);
}  // namespace xd::cpu
