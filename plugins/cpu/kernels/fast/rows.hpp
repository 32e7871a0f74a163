// What the CPU backend's fast kernels share: which dtypes they take, f32 views of narrow rows,
// stores that bypass the caches for large outputs, the check that a set of dims is one
// contiguous run, and the XD_CPU_KERNELS option that can switch them all off.
#pragma once

#include "kernels/common.hpp"
#include "kernels/fast/simd.hpp"

#include <cstring>
#include <memory>
#include <type_traits>

namespace xd::cpu::fast {

// The fast kernels compute in f32: f32 itself, and f16/bf16 promoted to it (f64 stays with the
// reference loops, which compute it in double).
inline constexpr DtypeSet kDtypes{XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16};

// Whether the fast kernels are registered (XD_CPU_KERNELS, read once when the plugin initialises):
// the `available` hook of every fast kernel_def.
bool enabled(xd_dtype);

// Outputs at least this large are written with non-temporal stores: they cannot stay in the
// caches anyway, and skipping the read-for-ownership of each destination line saves a third of
// the memory traffic of a copy-like op.
int64_t stream_threshold_bytes();

// Longest row the row-wise kernels take (their per-thread scratch holds a few rows); longer rows
// run the reference loops.
inline constexpr int64_t kMaxRow = int64_t{1} << 22;

// Per-thread scratch of a parallel range: `rows` f32 rows of n and one 16-bit row. Its end is
// the end of the thread's range, so it fences the thread's non-temporal stores.
class scratch {
 public:
  scratch(int rows, int64_t n)
      : n_(n), f_(new float[static_cast<size_t>(rows * n + 1)]), h_(new uint16_t[static_cast<size_t>(n + 1)]) {}
  ~scratch() { simd::stream_fence(); }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  float* row(int i) { return f_.get() + i * n_; }
  uint16_t* half_row() { return h_.get(); }

 private:
  int64_t n_;
  std::unique_ptr<float[]> f_;
  std::unique_ptr<uint16_t[]> h_;
};

// The n values at p as f32: p itself for f32, else promoted into buf.
template <class T>
const float* load_f32(const T* p, int64_t n, float* buf) {
  if constexpr (std::is_same_v<T, float>) {
    (void)n;
    (void)buf;
    return p;
  } else if constexpr (std::is_same_v<T, ::xd::bfloat16>) {
    simd::promote_bf16(reinterpret_cast<const uint16_t*>(p), buf, n);
    return buf;
  } else {
    static_assert(std::is_same_v<T, ::xd::half>);
    simd::promote_f16(reinterpret_cast<const uint16_t*>(p), buf, n);
    return buf;
  }
}

// Writes n f32 values to dst as T, rounded once; through non-temporal stores when `stream`.
template <class T>
void store_f32(const float* src, T* dst, int64_t n, bool stream, uint16_t* buf16) {
  if constexpr (std::is_same_v<T, float>) {
    (void)buf16;
    if (stream) {
      simd::stream_copy(dst, src, static_cast<size_t>(n) * sizeof(float));
    } else if (src != dst) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float));
    }
  } else {
    uint16_t* out = stream ? buf16 : reinterpret_cast<uint16_t*>(dst);
    if constexpr (std::is_same_v<T, ::xd::bfloat16>) {
      simd::demote_bf16(src, out, n);
    } else {
      simd::demote_f16(src, out, n);
    }
    if (stream) simd::stream_copy(dst, out, static_cast<size_t>(n) * sizeof(T));
  }
}

// Where a row's f32 results go: straight into y for an f32 output (the vector loops write it,
// streaming when asked), else into buf, which finish_row() then rounds into y.
template <class T>
float* result_row(T* y, float* buf) {
  if constexpr (std::is_same_v<T, float>) {
    (void)buf;
    return y;
  } else {
    (void)y;
    return buf;
  }
}
template <class T>
void finish_row(const float* r, T* y, int64_t n, bool stream, uint16_t* buf16) {
  if constexpr (!std::is_same_v<T, float>) store_f32(r, y, n, stream, buf16);
}
// Whether the f32 vector loops themselves should stream (only when they write the output).
template <class T>
bool stream_f32(bool stream) {
  return stream && std::is_same_v<T, float>;
}

// Whether the dims of `v` selected by `mask` (bit d = dim d) form one contiguous run in
// row-major order (or hold at most one element): what a row-wise fast kernel walks as a plain
// array.
inline bool contiguous_dims(const xd_view& v, uint64_t mask, int64_t elem_bytes) {
  const strided_layout<1> l(v.ndim, v.sizes, {v.strides}, {elem_bytes}, ~mask);
  if (l.numel() <= 1) return true;
  int runs = 0;
  bool unit = true;
  l.for_each_run({data(v)}, 0, l.numel(), [&](const std::array<char*, 1>&, int64_t, const std::array<int64_t, 1>& s) {
    ++runs;
    unit = unit && s[0] == elem_bytes;
  });
  return runs == 1 && unit;
}

// Bytes of one element of a runtime dtype.
inline int64_t dtype_bytes(int32_t dtype) {
  return visit_dtype(dtype, []<class T>(std::type_identity<T>) { return static_cast<int64_t>(sizeof(T)); });
}

// Bits of dims [first, 64).
inline uint64_t dims_from(int first) { return first >= 64 ? 0 : ~((uint64_t{1} << first) - 1); }

}  // namespace xd::cpu::fast

namespace xd::cpu::fast {

// A fast kernel's entry of the registration list: K::run<T> for f32/f16/bf16 (or S), registered
// only while the fast kernels are enabled, declining through `check` what it does not take.
template <class K, DtypeSet S = kDtypes>
constexpr plugin::kernel_def fast_kernel(xd_op op, const char* name, xd_kernel_check_fn check) {
  plugin::kernel_def d = typed_kernel<K, S>(op, name, check);
  d.available = enabled;
  return d;
}

// A check body: runs f(), which returns nullptr to accept or the reason to decline. The reason
// is copied without building a std::string: small calls decline on every dispatch.
template <class F>
int32_t check_with(char* reason, size_t reason_size, F&& f) noexcept {
  try {
    const char* why = f();
    if (why == nullptr) return 1;
    if (reason != nullptr && reason_size > 0) {
      const size_t n = strnlen(why, reason_size - 1);
      std::memcpy(reason, why, n);
      reason[n] = '\0';
    }
    return 0;
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, std::string("a malformed call: ") + e.what());
  }
}

}  // namespace xd::cpu::fast
