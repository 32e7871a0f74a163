// N-d strided iteration shared by every kernel.
//
// A strided_layout<N> describes one index space (a shape) walked by N operands at once, each with
// its own strides. Construction drops size-1 dims and merges dims that are contiguous with their
// inner neighbour for every operand, so a contiguous tensor of any rank becomes one long run and
// the inner loops stay simple and vectorisable. Iteration hands out "runs": stretches of
// consecutive linear indices along the innermost dim, with a base pointer and a byte stride per
// operand. Runs come in row-major linear order, which is what makes results independent of the
// operands' memory layout (reductions sum in the same order whatever the strides).
//
// No heap: everything lives in fixed arrays of kMaxDims, so tiny tensors pay only a few loads.
#pragma once

#include <xd/plugin.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

namespace xd::cpu {

// The most dims a kernel accepts. Attribute masks are 64-bit, so no op can address more.
inline constexpr int kMaxDims = 64;

template <int N>
class strided_layout {
 public:
  using ptrs = std::array<char*, N>;
  using steps = std::array<int64_t, N>;

  // `sizes` has `ndim` entries; strides[k] has `ndim` entries in elements of `elem_bytes[k]`
  // bytes. Dims whose bit is set in `skip` are left out of the index space (the dims a row-wise
  // kernel walks itself).
  strided_layout(int ndim, const int64_t* sizes, const std::array<const int64_t*, N>& strides,
                 const std::array<int64_t, N>& elem_bytes, uint64_t skip = 0) {
    if (ndim > kMaxDims)
      throw plugin::error(XD_ERR_NOT_IMPLEMENTED,
                          "cpu: tensors of more than 64 dims are not supported (got " + std::to_string(ndim) + ")");
    for (int d = ndim - 1; d >= 0; --d) {
      if ((skip >> d) & 1u) continue;
      const int64_t size = sizes[d];
      if (size == 0) {
        numel_ = 0;
        ndim_ = 0;
        return;
      }
      if (size == 1) continue;
      numel_ *= size;
      steps st;
      for (int k = 0; k < N; ++k) st[k] = strides[k][d] * elem_bytes[k];
      if (ndim_ > 0) {
        bool merge = true;
        for (int k = 0; k < N; ++k) merge = merge && st[k] == stride_[ndim_ - 1][k] * size_[ndim_ - 1];
        if (merge) {
          size_[ndim_ - 1] *= size;
          continue;
        }
      }
      size_[ndim_] = size;
      stride_[ndim_] = st;
      ++ndim_;
    }
  }

  int64_t numel() const { return numel_; }
  int ndim() const { return ndim_; }  // after merging; dim 0 is the innermost

  // Calls f(ptrs, len, steps) for each run covering linear indices [begin, end) in order.
  // Offsets are tracked as integers and a pointer is formed only for an element that exists, so
  // no out-of-range pointer arithmetic happens even with broadcast (zero) strides.
  template <class F>
  void for_each_run(const ptrs& base, int64_t begin, int64_t end, F&& f) const {
    if (begin >= end) return;
    if (ndim_ == 0) {
      f(base, end - begin, steps{});
      return;
    }
    int64_t idx[kMaxDims];
    steps off{};
    int64_t rem = begin;
    for (int d = 0; d < ndim_; ++d) {
      idx[d] = rem % size_[d];
      rem /= size_[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * stride_[d][k];
    }
    int64_t cur = begin;
    for (;;) {
      const int64_t len = std::min(size_[0] - idx[0], end - cur);
      ptrs p;
      for (int k = 0; k < N; ++k) p[k] = base[k] + off[k];
      f(p, len, stride_[0]);
      cur += len;
      if (cur >= end) return;
      // The run ended at the end of the innermost dim: carry into the outer ones.
      for (int k = 0; k < N; ++k) off[k] -= idx[0] * stride_[0][k];
      idx[0] = 0;
      for (int d = 1; d < ndim_; ++d) {
        ++idx[d];
        for (int k = 0; k < N; ++k) off[k] += stride_[d][k];
        if (idx[d] < size_[d]) break;
        for (int k = 0; k < N; ++k) off[k] -= size_[d] * stride_[d][k];
        idx[d] = 0;
      }
    }
  }

 private:
  int ndim_ = 0;
  int64_t numel_ = 1;
  int64_t size_[kMaxDims];
  steps stride_[kMaxDims];
};

// Bytes -> typed reference, for the inner loops.
template <class T>
inline T& at(char* p, int64_t byte_offset) {
  return *reinterpret_cast<T*>(p + byte_offset);
}

}  // namespace xd::cpu
