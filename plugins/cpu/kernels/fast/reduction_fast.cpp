// SUM, MEAN, AMAX, AMIN over reduced dims that form one contiguous run per output (e.g. the last
// dim of a row-major tensor): the fast kernels in front of kernels/reduction.cpp. Sums accumulate
// in double as the reference does, in vector lanes rather than its fixed chunk order. The order
// can only matter when the sum cancels far below its largest terms (|sum| tiny against
// len * max|x| * 2^-52, e.g. +-3e38 beside small values): such a range is summed again in the
// reference's order, so the result never depends on which kernel ran beyond the last bits.
// max/min propagate NaN. Narrow dtypes are converted in the vector loops. Other layouts (a leading
// dim, strided runs) and empty ranges run the reference.
#include "kernels/fast/rows.hpp"

#include <cmath>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kChunk = int64_t{1} << 14;  // the reference's chunk (kernels/reduction.cpp)

enum class Kind { sum, mean, max, min };

const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& in = input(c, 0);
  const xd_view& out = output(c, 0);
  const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
  if (in.ndim > kMaxDims || out.ndim != in.ndim) return "a malformed call (the reference reports it)";
  if (in.ndim < 64 && (mask >> in.ndim) != 0) return "a malformed call (the reference reports it)";
  int64_t len = 1;
  for (int d = 0; d < in.ndim; ++d)
    if ((mask >> d) & 1u) len *= in.sizes[d];
  if (len == 0) return "an empty reduced range runs the reference loop";
  if (!contiguous_dims(in, mask, dtype_bytes(in.dtype)))
    return "takes reduced dims that are one contiguous run; other layouts run the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

template <Kind K>
struct reduce_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("reduction.fast ") + why);
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
      for (int d = 0; d < in.ndim; ++d)
        if (out.sizes[d] != (((mask >> d) & 1u) ? 1 : in.sizes[d]))
          invalid("reduction output must have the input's shape with size 1 on the reduced dims");
      check_dtype(out, static_cast<xd_dtype>(in.dtype), "reduction output");
      int64_t len = 1;
      for (int d = 0; d < in.ndim; ++d)
        if ((mask >> d) & 1u) len *= in.sizes[d];
      constexpr int64_t sz = sizeof(T);
      const strided_layout<2> outer(in.ndim, in.sizes, {in.strides, out.strides}, {sz, sz}, mask);
      const int64_t grain = std::max<int64_t>(1, kElementGrain / len);
      parallel_for(outer.numel(), grain, [&](int64_t begin, int64_t end) {
        // The reference's order: chunks of kChunk summed left to right, then added in order.
        auto reference_sum = [&](const T* x) {
          double total = 0;
          for (int64_t ch = 0; ch < len; ch += kChunk) {
            double part = 0;
            for (int64_t i = ch; i < std::min(len, ch + kChunk); ++i) part += static_cast<double>(load(x[i]));
            total += part;
          }
          return total;
        };
        auto reduce = [&](const T* x) -> double {
          if constexpr (K == Kind::sum || K == Kind::mean) {
            float largest = 0;
            double acc = simd::sum_max_abs(x, elem_of<T>(), len, &largest);
            const double bound = static_cast<double>(len) * static_cast<double>(largest) * 0x1p-52;
            if (std::isfinite(bound) && bound > std::fabs(acc) * 0x1p-30) acc = reference_sum(x);
            return K == Kind::sum ? acc : acc / static_cast<double>(len);
          } else {
            return K == Kind::max ? simd::max(x, elem_of<T>(), len) : simd::min(x, elem_of<T>(), len);
          }
        };
        outer.for_each_run({data(in), data(out)}, begin, end,
                           [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
                             for (int64_t i = 0; i < n; ++i) {
                               const T* x = reinterpret_cast<const T*>(p[0] + i * st[0]);
                               T* y = reinterpret_cast<T*>(p[1] + i * st[1]);
                               *y = cast<T>(reduce(x));
                             }
                           });
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_sum_fast =
    fast::fast_kernel<fast::reduce_fast<fast::Kind::sum>>(XD_OP_SUM, "sum.fast", fast::check);
extern const plugin::kernel_def def_mean_fast =
    fast::fast_kernel<fast::reduce_fast<fast::Kind::mean>>(XD_OP_MEAN, "mean.fast", fast::check);
extern const plugin::kernel_def def_amax_fast =
    fast::fast_kernel<fast::reduce_fast<fast::Kind::max>>(XD_OP_AMAX, "amax.fast", fast::check);
extern const plugin::kernel_def def_amin_fast =
    fast::fast_kernel<fast::reduce_fast<fast::Kind::min>>(XD_OP_AMIN, "amin.fast", fast::check);
}  // namespace xd::cpu
