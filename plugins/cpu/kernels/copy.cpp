// COPY: dst = src with a cast, keyed on the source dtype; the destination (outputs[0]) may have
// any dtype and any strides, and exactly the elements its view covers are written. All casting
// rules live in types.hpp (bool = x != 0, fp8 non-saturating, float -> int NaN->0 then clamp).
#include "kernels/common.hpp"
#include "kernels/elementwise.hpp"

#include <cstring>

namespace xd::cpu {
namespace {

bool dense(const xd_view& v) { return plugin::view(v).is_contiguous(); }

struct copy_kernel {
  template <class S>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view& src = input(c, 0);
      const xd_view& dst = output(c, 0);
      if (dst.dtype == src.dtype && dense(src) && dense(dst)) {
        // Same dtype, both row-major dense: one memcpy (bits preserved, NaN payloads too).
        const int64_t n = numel(dst);
        if (n > 0) std::memcpy(data(dst), data(src), static_cast<size_t>(n) * sizeof(S));
        return;
      }
      visit_dtype(dst.dtype, [&]<class D>(std::type_identity<D>) {
        map_elements<D, S>([](S x) { return convert<D>(x); }, dst, {&src});
      });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_copy = typed_kernel<copy_kernel, dtypes::all>(XD_OP_COPY, "copy");

}  // namespace xd::cpu
