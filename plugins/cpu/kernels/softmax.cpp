// SOFTMAX and LOG_SOFTMAX along one dim, numerically stable: the row maximum is subtracted
// before exp. Elementwise math runs in the compute type (float for f16/bf16), the sum of
// exponentials accumulates in double. A row whose maximum is not finite gives NaN throughout
// (all -inf, or a NaN, or +inf), matching PyTorch.
#include "kernels/common.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu {
namespace {

template <bool Log>
struct softmax_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      const int dim = checked_row_dim(c, in, out, "softmax");
      const int64_t len = in.sizes[dim];
      const int64_t step_in = in.strides[dim] * static_cast<int64_t>(sizeof(T));
      const int64_t step_out = out.strides[dim] * static_cast<int64_t>(sizeof(T));
      if (len == 0) return;

      auto row = [&](char* y, char* x) {
        C max = -std::numeric_limits<C>::infinity();
        for (int64_t j = 0; j < len; ++j) {
          const C v = load(at<const T>(x, j * step_in));
          if (is_nan(v) || v > max) max = v;
          if (is_nan(max)) break;
        }
        double sum = 0;
        for (int64_t j = 0; j < len; ++j) sum += static_cast<double>(std::exp(load(at<const T>(x, j * step_in)) - max));
        if constexpr (Log) {
          const double log_sum = std::log(sum);
          for (int64_t j = 0; j < len; ++j) {
            const C shifted = load(at<const T>(x, j * step_in)) - max;
            at<T>(y, j * step_out) = cast<T>(static_cast<double>(shifted) - log_sum);
          }
        } else {
          for (int64_t j = 0; j < len; ++j) {
            const C e = std::exp(load(at<const T>(x, j * step_in)) - max);
            at<T>(y, j * step_out) = cast<T>(static_cast<double>(e) / sum);
          }
        }
      };
      for_each_row_along<T>(out, in, dim, std::max<int64_t>(1, kElementGrain / 8 / len), row);
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_softmax = typed_kernel<softmax_kernel<false>, dtypes::compute_floating>(XD_OP_SOFTMAX, "softmax");
extern const plugin::kernel_def def_log_softmax = typed_kernel<softmax_kernel<true>, dtypes::compute_floating>(XD_OP_LOG_SOFTMAX, "log_softmax");

}  // namespace xd::cpu
