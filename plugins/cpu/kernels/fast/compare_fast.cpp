// EQ, NE, LT, LE, GT, GE over f32, f16 and bf16, and WHERE over every dtype: the fast kernels in
// front of kernels/compare.cpp. The comparisons compare in f32 as the reference's compute type
// does and write bool bytes; where moves each element's bits unchanged, as the reference does (its
// scalar select also branched on a random condition, which cost f32 4096x4096 ~33 ms against ~5
// for the vector select: docs/performance.md). They take any layout whose innermost merged dim is
// unit-stride in the output and unit-stride or broadcast (stride 0: a scalar, a row or column
// mask) in each input, walked as the reference walks it; they decline, with a reason, small
// tensors (the reference's inline path is cheaper there) and other strides.
#include "kernels/fast/rows.hpp"

namespace xd::cpu::fast {
namespace {

constexpr int64_t kSmall = 256;   // fewer elements: the reference loop
constexpr int64_t kChunk = 2048;  // elements per primitive call; a broadcast operand's value fills this much

// The layout of the output and the N - 1 inputs, merged as the reference walks them.
template <int N>
strided_layout<N> layout_of(const xd_kernel_call* c) {
  const xd_view& out = output(c, 0);
  std::array<const int64_t*, N> strides{};
  std::array<int64_t, N> bytes{};
  strides[0] = out.strides;
  bytes[0] = dtype_bytes(out.dtype);
  for (int k = 1; k < N; ++k) {
    strides[k] = input(c, k - 1).strides;
    bytes[k] = dtype_bytes(input(c, k - 1).dtype);
  }
  return strided_layout<N>(out.ndim, out.sizes, strides, bytes);
}

template <int N>
const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& out = output(c, 0);
  if (out.ndim > kMaxDims || c->num_inputs != N - 1) return "a malformed call (the reference reports it)";
  for (int k = 0; k < N - 1; ++k)
    if (!same_shape(input(c, k), out)) return "a malformed call (the reference reports it)";
  if (numel(out) < kSmall) return "tensors under 256 elements run the reference loop";
  const std::array<int64_t, N> st = inner_steps(layout_of<N>(c), {});
  bool unit = st[0] == dtype_bytes(out.dtype);
  for (int k = 1; k < N; ++k) unit = unit && (st[k] == 0 || st[k] == dtype_bytes(input(c, k - 1).dtype));
  if (!unit)
    return "takes operands unit-stride along the innermost dim, or broadcast along it; others run the reference loop";
  return nullptr;
}

template <int N>
int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason<N>(c); });
}

// Runs op(out, inputs, n) over the call's layout in chunks of at most kChunk elements, each input
// a unit-stride pointer: an input broadcast along the run (step 0) is its value repeated in a
// per-thread chunk of scratch.
template <int N, class Op>
void for_each_chunk(const xd_kernel_call* c, Op op) {
  const strided_layout<N> l = layout_of<N>(c);
  std::array<char*, N> base{};
  base[0] = data(output(c, 0));
  std::array<int64_t, N> sz{};
  sz[0] = dtype_bytes(output(c, 0).dtype);
  for (int k = 1; k < N; ++k) {
    base[k] = data(input(c, k - 1));
    sz[k] = dtype_bytes(input(c, k - 1).dtype);
  }
  parallel_for(l.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
    std::unique_ptr<char[]> fill;  // N - 1 chunks of up to 8-byte elements, made on first need
    l.for_each_run(base, begin, end, [&](const std::array<char*, N>& p, int64_t len, const std::array<int64_t, N>& st) {
      std::array<const char*, N - 1> in{};
      for (int k = 1; k < N; ++k) {
        if (st[k] != 0) continue;
        if (!fill) fill.reset(new char[static_cast<size_t>((N - 1) * kChunk * 8)]);
        char* f = fill.get() + (k - 1) * kChunk * 8;
        for (int64_t i = 0; i < std::min(len, kChunk); ++i)
          std::memcpy(f + i * sz[k], p[k], static_cast<size_t>(sz[k]));
        in[k - 1] = f;
      }
      for (int64_t i = 0; i < len; i += kChunk) {
        std::array<const char*, N - 1> at{};
        for (int k = 1; k < N; ++k) at[k - 1] = st[k] == 0 ? in[k - 1] : p[k] + i * sz[k];
        op(p[0] + i * sz[0], at, std::min(kChunk, len - i));
      }
    });
  });
}

template <simd::compare_fn F>
struct compare_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason<3>(c)) plugin::fail(XD_ERR_INTERNAL, std::string("compare.fast ") + why);
      check_dtype(output(c, 0), XD_DTYPE_BOOL, "comparison output");
      check_dtype(input(c, 1), type_info<T>::id, "comparison input");
      for_each_chunk<3>(c, [](char* y, const std::array<const char*, 2>& in, int64_t n) {
        simd::compare(F, in[0], in[1], elem_of<T>(), reinterpret_cast<uint8_t*>(y), n);
      });
    });
  }
};

struct where_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason<4>(c)) plugin::fail(XD_ERR_INTERNAL, std::string("where.fast ") + why);
      check_dtype(input(c, 0), XD_DTYPE_BOOL, "where condition");
      check_dtype(input(c, 1), type_info<T>::id, "where input");
      check_dtype(input(c, 2), type_info<T>::id, "where input");
      check_dtype(output(c, 0), type_info<T>::id, "where output");
      for_each_chunk<4>(c, [](char* y, const std::array<const char*, 3>& in, int64_t n) {
        simd::select(reinterpret_cast<const uint8_t*>(in[0]), in[1], in[2], static_cast<int>(sizeof(T)), y, n);
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
using fast::compare_fast;
using simd::compare_fn;
extern const plugin::kernel_def def_eq_fast =
    fast::fast_kernel<compare_fast<compare_fn::eq>>(XD_OP_EQ, "eq.fast", fast::check<3>);
extern const plugin::kernel_def def_ne_fast =
    fast::fast_kernel<compare_fast<compare_fn::ne>>(XD_OP_NE, "ne.fast", fast::check<3>);
extern const plugin::kernel_def def_lt_fast =
    fast::fast_kernel<compare_fast<compare_fn::lt>>(XD_OP_LT, "lt.fast", fast::check<3>);
extern const plugin::kernel_def def_le_fast =
    fast::fast_kernel<compare_fast<compare_fn::le>>(XD_OP_LE, "le.fast", fast::check<3>);
extern const plugin::kernel_def def_gt_fast =
    fast::fast_kernel<compare_fast<compare_fn::gt>>(XD_OP_GT, "gt.fast", fast::check<3>);
extern const plugin::kernel_def def_ge_fast =
    fast::fast_kernel<compare_fast<compare_fn::ge>>(XD_OP_GE, "ge.fast", fast::check<3>);
// Every dtype where's reference takes: selection moves bits of 1, 2, 4 or 8 bytes.
extern const plugin::kernel_def def_where_fast =
    fast::fast_kernel<fast::where_fast, dtypes::numeric_bool>(XD_OP_WHERE, "where.fast", fast::check<4>);
}  // namespace xd::cpu
