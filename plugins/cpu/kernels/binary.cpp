// ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM. Inputs arrive broadcast to the output's shape (stride 0 where broadcast).
// Floating dtypes compute in their compute type (f16/bf16 in float) and round once; integers
// wrap in two's complement like PyTorch.
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"

namespace xd::cpu {
namespace {

// The alpha of add/sub (a + alpha*b): `real` for floating dtypes, `integer` for integers. A host
// that passes no attributes means alpha = 1.
template <class C>
C alpha_of(const xd_kernel_call* c) {
  const auto* a = find_attrs<xd_attrs_scalar>(c);
  if (a == nullptr) return C{1};
  if constexpr (std::is_floating_point_v<C>) {
    return static_cast<C>(a->real);
  } else {
    return a->integer;
  }
}

template <class C>
struct add_op {
  C alpha;
  explicit add_op(const xd_kernel_call* c) : alpha(alpha_of<C>(c)) {}
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return a + alpha * b;
    } else {
      return wrap_add(a, wrap_mul(alpha, b));
    }
  }
};

template <class C>
struct sub_op {
  C alpha;
  explicit sub_op(const xd_kernel_call* c) : alpha(alpha_of<C>(c)) {}
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return a - alpha * b;
    } else {
      return wrap_sub(a, wrap_mul(alpha, b));
    }
  }
};

template <class C>
struct mul_op {
  explicit mul_op(const xd_kernel_call*) {}
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return a * b;
    } else {
      return wrap_mul(a, b);
    }
  }
};

template <class C>
struct div_op {  // registered for floating dtypes only (true division)
  explicit div_op(const xd_kernel_call*) {}
  C operator()(C a, C b) const { return a / b; }
};

// MAXIMUM and MINIMUM (plugin_abi.h): NaN in either operand gives NaN (a's when both are);
// of two equal values, a.
template <class C>
struct maximum_op {
  explicit maximum_op(const xd_kernel_call*) {}
  C operator()(C a, C b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return a < b ? b : a;
  }
};

template <class C>
struct minimum_op {
  explicit minimum_op(const xd_kernel_call*) {}
  C operator()(C a, C b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    return b < a ? b : a;
  }
};

template <template <class> class Op>
struct binary_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const Op<C> op(c);
      map_elements<T, T, T>([op](T a, T b) { return cast<T>(op(load(a), load(b))); }, output(c, 0),
                            {&input(c, 0), &input(c, 1)});
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_add = typed_kernel<binary_kernel<add_op>, dtypes::numeric>(XD_OP_ADD, "add");
extern const plugin::kernel_def def_sub = typed_kernel<binary_kernel<sub_op>, dtypes::numeric>(XD_OP_SUB, "sub");
extern const plugin::kernel_def def_mul = typed_kernel<binary_kernel<mul_op>, dtypes::numeric>(XD_OP_MUL, "mul");
extern const plugin::kernel_def def_div =
    typed_kernel<binary_kernel<div_op>, dtypes::compute_floating>(XD_OP_DIV, "div");
extern const plugin::kernel_def def_maximum =
    typed_kernel<binary_kernel<maximum_op>, dtypes::numeric>(XD_OP_MAXIMUM, "maximum");
extern const plugin::kernel_def def_minimum =
    typed_kernel<binary_kernel<minimum_op>, dtypes::numeric>(XD_OP_MINIMUM, "minimum");

}  // namespace xd::cpu
