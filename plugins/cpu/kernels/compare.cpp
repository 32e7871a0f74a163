// EQ, LT, GT, NE, GE, LE (output bool, one byte 0/1) and WHERE (keyed on a's dtype; cond is bool).
// Comparisons are exact in the compute type: f16/bf16 widen to float without loss, every
// integer dtype fits int64. NaN compares unequal and unordered, as IEEE says.
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"

#include <functional>

namespace xd::cpu {
namespace {

template <class Cmp>
struct compare_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view& out = output(c, 0);
      check_dtype(out, XD_DTYPE_BOOL, "comparison output");
      map_elements<boolean, T, T>(
          [](T a, T b) { return boolean{static_cast<uint8_t>(Cmp{}(load(a), load(b)) ? 1 : 0)}; }, out,
          {&input(c, 0), &input(c, 1)});
    });
  }
};

struct where_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view& cond = input(c, 0);
      check_dtype(cond, XD_DTYPE_BOOL, "where condition");
      // Values are moved bit for bit: where never rounds or canonicalises a NaN.
      map_elements<T, boolean, T, T>([](boolean k, T a, T b) { return k.v != 0 ? a : b; }, output(c, 0),
                                     {&cond, &input(c, 1), &input(c, 2)});
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_eq = typed_kernel<compare_kernel<std::equal_to<>>, dtypes::numeric_bool>(XD_OP_EQ, "eq");
extern const plugin::kernel_def def_lt = typed_kernel<compare_kernel<std::less<>>, dtypes::numeric>(XD_OP_LT, "lt");
extern const plugin::kernel_def def_gt = typed_kernel<compare_kernel<std::greater<>>, dtypes::numeric>(XD_OP_GT, "gt");
extern const plugin::kernel_def def_ne =
    typed_kernel<compare_kernel<std::not_equal_to<>>, dtypes::numeric_bool>(XD_OP_NE, "ne");
extern const plugin::kernel_def def_ge =
    typed_kernel<compare_kernel<std::greater_equal<>>, dtypes::numeric>(XD_OP_GE, "ge");
extern const plugin::kernel_def def_le =
    typed_kernel<compare_kernel<std::less_equal<>>, dtypes::numeric>(XD_OP_LE, "le");
extern const plugin::kernel_def def_where = typed_kernel<where_kernel, dtypes::numeric_bool>(XD_OP_WHERE, "where");

}  // namespace xd::cpu
