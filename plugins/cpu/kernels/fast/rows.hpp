// What the CPU backend's fast kernels share: which dtypes they take, f32 views of narrow rows,
// stores that bypass the caches for large outputs, the check that a set of dims is one
// contiguous run, and the XD_CPU_KERNELS option that can switch them all off.
#pragma once

#include "kernels/common.hpp"
#include "kernels/fast/simd.hpp"

#include <algorithm>
#include <array>
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

// Whether a row loop over T asks for its next rows into L2 (x86's prefetcht1) rather than L1: f32
// rows, which with a weight (and the backward's accumulator) fill a 32 KiB L1 by themselves, so
// that lines asked for into L1 evict what the row being written still reads. Measured with rows
// of 4096 (docs/performance.md, "rms_norm's sum of squares in f32; the next rows into L2"): the
// forward with a weight took 0.93 of the time with them into L2, the backward 0.87-0.95; the
// backward's 16-bit rows took 1.00-1.13 of the time into L2, so they stay with L1.
template <class T>
inline constexpr bool kNextRowsIntoL2 = sizeof(T) == 4;

// Longest row the row-wise kernels take (their per-thread scratch holds a few rows); longer rows
// run the reference loops.
inline constexpr int64_t kMaxRow = int64_t{1} << 22;

// The element type of T's rows for the vector primitives.
template <class T>
constexpr simd::elem elem_of() {
  if constexpr (std::is_same_v<T, ::xd::bfloat16>) {
    return simd::elem::bf16;
  } else if constexpr (std::is_same_v<T, ::xd::half>) {
    return simd::elem::f16;
  } else {
    static_assert(std::is_same_v<T, float>);
    return simd::elem::f32;
  }
}

// The end of a thread's parallel range that wrote with non-temporal stores: fences them, so
// they are visible before the range's end is.
struct stream_scope {
  stream_scope() = default;
  ~stream_scope() { simd::stream_fence(); }
  stream_scope(const stream_scope&) = delete;
  stream_scope& operator=(const stream_scope&) = delete;
};

// Per-thread scratch of a parallel range: `rows` f32 rows of n. Its end is the end of the
// thread's range, so it fences the thread's non-temporal stores.
class scratch {
 public:
  scratch(int rows, int64_t n) : n_(n), f_(new float[static_cast<size_t>(rows * n + 1)]) {}
  float* row(int i) { return f_.get() + i * n_; }

 private:
  stream_scope fence_;
  int64_t n_;
  std::unique_ptr<float[]> f_;
};

// The n values at p as f32: p itself for f32, else converted into buf.
template <class T>
const float* load_f32(const T* p, int64_t n, float* buf) {
  if constexpr (std::is_same_v<T, float>) {
    (void)n;
    (void)buf;
    return p;
  } else {
    simd::convert(p, elem_of<T>(), buf, simd::elem::f32, n);
    return buf;
  }
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

// Whether v has out's shape (an operand the core broadcast arrives expanded to it, stride 0).
inline bool same_shape(const xd_view& v, const xd_view& out) {
  if (v.ndim != out.ndim) return false;
  for (int d = 0; d < out.ndim; ++d)
    if (v.sizes[d] != out.sizes[d]) return false;
  return true;
}

// The byte steps of each tensor along l's innermost merged dim (`none` when l has no element):
// what an elementwise kernel checks to know whether its vector loops can walk l's runs.
template <int N>
std::array<int64_t, N> inner_steps(const strided_layout<N>& l, std::array<int64_t, N> none) {
  l.for_each_run({}, 0, std::min<int64_t>(l.numel(), 1),
                 [&](const std::array<char*, N>&, int64_t, const std::array<int64_t, N>& s) { none = s; });
  return none;
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
