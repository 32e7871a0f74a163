// EQ, LT, GT (output bool, one byte 0/1) and WHERE (keyed on a's dtype; cond is bool).
// Comparisons are exact in the compute type: f16/bf16 widen to float without loss, every
// integer dtype fits int64. NaN compares unequal and unordered, as IEEE says.
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"
#include "kernels/register.hpp"

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

void register_compare(plugin::registrar& r) {
  add_kernels<compare_kernel<std::equal_to<>>>(r, XD_OP_EQ, "cpu.eq", numeric_bool_dtypes{});
  add_kernels<compare_kernel<std::less<>>>(r, XD_OP_LT, "cpu.lt", numeric_dtypes{});
  add_kernels<compare_kernel<std::greater<>>>(r, XD_OP_GT, "cpu.gt", numeric_dtypes{});
  add_kernels<where_kernel>(r, XD_OP_WHERE, "cpu.where", numeric_bool_dtypes{});
}

}  // namespace xd::cpu
