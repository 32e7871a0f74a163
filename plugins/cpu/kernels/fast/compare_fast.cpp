// EQ, NE, LT, LE, GT, GE over f32, f16 and bf16, and WHERE over every dtype: the fast kernels in
// front of kernels/compare.cpp, for dense operands of the output's shape. The comparisons compare
// in f32 as the reference's compute type does and write bool bytes; where moves each element's
// bits unchanged, as the reference does (its scalar select also branched on a random condition,
// which cost f32 4096x4096 ~34 ms against ~3 for the vector select: docs/performance.md). They
// decline, with a reason, small tensors (the reference's inline path is cheaper there) and
// broadcast or strided operands.
#include "kernels/fast/rows.hpp"

namespace xd::cpu::fast {
namespace {

constexpr int64_t kSmall = 256;  // fewer elements: the reference loop

bool same_dense(const xd_view& v, const xd_view& out) {
  if (v.ndim != out.ndim) return false;
  for (int d = 0; d < out.ndim; ++d)
    if (v.sizes[d] != out.sizes[d]) return false;
  return contiguous_dims(v, ~uint64_t{0}, dtype_bytes(v.dtype));
}

const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& out = output(c, 0);
  if (out.ndim > kMaxDims || c->num_inputs < 2) return "a malformed call (the reference reports it)";
  if (numel(out) < kSmall) return "tensors under 256 elements run the reference loop";
  for (int i = 0; i < c->num_inputs; ++i)
    if (!same_dense(input(c, i), out))
      return "takes dense operands of the output's shape; broadcast or strided ones run the reference loop";
  if (!contiguous_dims(out, ~uint64_t{0}, dtype_bytes(out.dtype)))
    return "takes a dense output; a strided one runs the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

template <simd::compare_fn F>
struct compare_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("compare.fast ") + why);
      const xd_view& out = output(c, 0);
      check_dtype(out, XD_DTYPE_BOOL, "comparison output");
      check_dtype(input(c, 1), type_info<T>::id, "comparison input");
      const T* a = reinterpret_cast<const T*>(data(input(c, 0)));
      const T* b = reinterpret_cast<const T*>(data(input(c, 1)));
      auto* y = reinterpret_cast<uint8_t*>(data(out));
      parallel_for(numel(out), kElementGrain, [&](int64_t begin, int64_t end) {
        simd::compare(F, a + begin, b + begin, elem_of<T>(), y + begin, end - begin);
      });
    });
  }
};

struct where_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("where.fast ") + why);
      const xd_view& out = output(c, 0);
      if (c->num_inputs != 3) invalid("where takes a condition and two values");
      check_dtype(input(c, 0), XD_DTYPE_BOOL, "where condition");
      check_dtype(input(c, 1), type_info<T>::id, "where input");
      check_dtype(input(c, 2), type_info<T>::id, "where input");
      check_dtype(out, type_info<T>::id, "where output");
      const auto* k = reinterpret_cast<const uint8_t*>(data(input(c, 0)));
      const char* a = data(input(c, 1));
      const char* b = data(input(c, 2));
      char* y = data(out);
      constexpr int64_t sz = sizeof(T);
      parallel_for(numel(out), kElementGrain, [&](int64_t begin, int64_t end) {
        simd::select(k + begin, a + begin * sz, b + begin * sz, static_cast<int>(sz), y + begin * sz, end - begin);
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
    fast::fast_kernel<compare_fast<compare_fn::eq>>(XD_OP_EQ, "eq.fast", fast::check);
extern const plugin::kernel_def def_ne_fast =
    fast::fast_kernel<compare_fast<compare_fn::ne>>(XD_OP_NE, "ne.fast", fast::check);
extern const plugin::kernel_def def_lt_fast =
    fast::fast_kernel<compare_fast<compare_fn::lt>>(XD_OP_LT, "lt.fast", fast::check);
extern const plugin::kernel_def def_le_fast =
    fast::fast_kernel<compare_fast<compare_fn::le>>(XD_OP_LE, "le.fast", fast::check);
extern const plugin::kernel_def def_gt_fast =
    fast::fast_kernel<compare_fast<compare_fn::gt>>(XD_OP_GT, "gt.fast", fast::check);
extern const plugin::kernel_def def_ge_fast =
    fast::fast_kernel<compare_fast<compare_fn::ge>>(XD_OP_GE, "ge.fast", fast::check);
// Every dtype where's reference takes: selection moves bits of 1, 2, 4 or 8 bytes.
extern const plugin::kernel_def def_where_fast =
    fast::fast_kernel<fast::where_fast, dtypes::numeric_bool>(XD_OP_WHERE, "where.fast", fast::check);
}  // namespace xd::cpu
