// FILL and ARANGE: outputs written from attributes alone.
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"

namespace xd::cpu {
namespace {

// The fill value in T: `real` for floating and fp8 dtypes, `integer` for integers and bool (the
// host fills both fields of xd_attrs_scalar consistently).
template <class T>
T scalar_value(const xd_attrs_scalar& a) {
  if constexpr (is_floating_v<T>) {
    return cast<T>(a.real);
  } else {
    return cast<T>(a.integer);
  }
}

struct fill_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const T value = scalar_value<T>(need_attrs<xd_attrs_scalar>(c));
      map_elements<T>([value] { return value; }, output(c, 0), {});
    });
  }
};

// out[i] = start + i*step. Floating dtypes compute in double and round once (as PyTorch's CPU
// arange does); integers use int_start/int_step with wrapping arithmetic.
struct arange_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const auto& a = need_attrs<xd_attrs_arange>(c);
      const xd_view& out = output(c, 0);
      const std::array<const int64_t*, 1> strides{out.strides};
      const strided_layout<1> layout(out.ndim, out.sizes, strides, {static_cast<int64_t>(sizeof(T))});
      const std::array<char*, 1> base{data(out)};
      parallel_for(layout.numel(), kElementGrain, [&](int64_t begin, int64_t end) {
        int64_t i = begin;  // runs arrive in linear order
        layout.for_each_run(base, begin, end, [&](const std::array<char*, 1>& p, int64_t len,
                                                   const std::array<int64_t, 1>& s) {
          for (int64_t j = 0; j < len; ++j, ++i) {
            if constexpr (is_floating_v<T>) {
              at<T>(p[0], j * s[0]) = cast<T>(a.start + static_cast<double>(i) * a.step);
            } else {
              at<T>(p[0], j * s[0]) = cast<T>(wrap_add(a.int_start, wrap_mul(i, a.int_step)));
            }
          }
        });
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_fill = typed_kernel<fill_kernel, dtypes::all>(XD_OP_FILL, "fill");
extern const plugin::kernel_def def_arange = typed_kernel<arange_kernel, dtypes::numeric>(XD_OP_ARANGE, "arange");

}  // namespace xd::cpu
