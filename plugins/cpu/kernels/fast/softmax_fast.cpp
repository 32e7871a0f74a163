// SOFTMAX and LOG_SOFTMAX over rows contiguous along `dim`: the fast kernels in front of
// kernels/softmax.cpp. Per row, with the row in L1/L2: the maximum (one read of memory), the
// exponentials and their sum in double while the next row is prefetched (softmax keeps them in
// scratch, log_softmax only sums them), then the row written once (through non-temporal stores
// when the output is larger than the caches). Semantics as the reference: a row whose maximum is
// not finite is NaN throughout.
#include "kernels/fast/rows.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu::fast {
namespace {

const char* decline_reason(const xd_kernel_call* c) {
  const xd_view& in = input(c, 0);
  const xd_view& out = output(c, 0);
  const int dim = need_attrs<xd_attrs_dim>(c).dim;
  if (dim < 0 || dim >= in.ndim || in.ndim != out.ndim) return "a malformed call (the reference reports it)";
  if (in.sizes[dim] > 1 && (in.strides[dim] != 1 || out.strides[dim] != 1))
    return "takes rows contiguous along dim; strided rows run the reference loop";
  if (in.sizes[dim] > kMaxRow) return "rows longer than 4194304 elements run the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

template <bool Log>
struct softmax_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("softmax.fast ") + why);
      const xd_view& in = input(c, 0);
      const xd_view& out = output(c, 0);
      for (int d = 0; d < in.ndim; ++d)
        if (out.sizes[d] != in.sizes[d]) invalid("softmax output must have the input's shape");
      const int dim = need_attrs<xd_attrs_dim>(c).dim;
      const int64_t len = in.sizes[dim];
      constexpr int64_t sz = sizeof(T);
      const strided_layout<2> rows(in.ndim, in.sizes, {out.strides, in.strides}, {sz, sz}, uint64_t{1} << dim);
      if (len == 0 || rows.numel() == 0) return;
      const bool stream = rows.numel() * len * sz >= stream_threshold_bytes();
      const int64_t grain = std::max<int64_t>(1, kElementGrain / 8 / len);
      parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
        scratch s(2, len);
        // next: the row after this one in the run (null at a run's end), fetched during the
        // exponentials.
        auto row = [&](T* y, const T* xp, const T* next) {
          const float* x = load_f32(xp, len, s.row(0));
          const float m = simd::max(x, simd::elem::f32, len);
          if (!std::isfinite(m)) {
            std::fill(y, y + len, cast<T>(std::numeric_limits<double>::quiet_NaN()));
          } else if constexpr (Log) {
            const double log_sum = std::log(simd::exp_shifted(x, m, nullptr, len, next, len * sz));
            simd::subtract2(x, m, static_cast<float>(log_sum), y, elem_of<T>(), len, stream);
          } else {
            const double sum = simd::exp_shifted(x, m, s.row(1), len, next, len * sz);
            simd::scale(s.row(1), static_cast<float>(1.0 / sum), y, elem_of<T>(), len, stream);
          }
        };
        rows.for_each_run({data(out), data(in)}, begin, end,
                          [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
                            for (int64_t i = 0; i < n; ++i)
                              row(reinterpret_cast<T*>(p[0] + i * st[0]), reinterpret_cast<const T*>(p[1] + i * st[1]),
                                  i + 1 < n ? reinterpret_cast<const T*>(p[1] + (i + 1) * st[1]) : nullptr);
                          });
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_softmax_fast =
    fast::fast_kernel<fast::softmax_fast<false>>(XD_OP_SOFTMAX, "softmax.fast", fast::check);
extern const plugin::kernel_def def_log_softmax_fast =
    fast::fast_kernel<fast::softmax_fast<true>>(XD_OP_LOG_SOFTMAX, "log_softmax.fast", fast::check);
}  // namespace xd::cpu
