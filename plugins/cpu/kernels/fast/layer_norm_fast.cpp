// LAYER_NORM over rows whose normalized dims are contiguous: the fast kernel in front of
// kernels/layer_norm.cpp, with its arithmetic (see there): the mean from the row's sum in double,
// the biased variance from the squared deviations from that mean, mean and rstd rounded to f32,
// y = ((x - mean) * rstd) * w + b in f32, each step rounded as the reference rounds it. The
// squared deviations are summed by f32 fma in vector lanes (added in double at the row's end), the
// mean split into two floats for them (simd::sum_squared_deviations), and redone in double as
// the reference sums them where that sum is not finite. A row is read from memory once and
// revisited in L1/L2; large outputs are written with non-temporal stores, and f32 rows ask for
// the next row while a row is written, as rms_norm's do (rms_norm_fast.cpp).
#include "kernels/fast/norm_rows.hpp"
#include "kernels/fast/rows.hpp"
#include "kernels/layer_norm.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu::fast {
namespace {

const char* decline_reason(const xd_kernel_call* c) {
  const layer_norm_operands o = layer_norm_operands_of(c, false);  // throws on a malformed call
  const int64_t sz = dtype_bytes(o.x.dtype);
  if (!row_contiguous(&o.x, o.lead, sz) || !row_contiguous(&o.like_x, o.lead, sz) || !all_contiguous(o.w, sz) ||
      !all_contiguous(o.b, sz))
    return "takes rows (and weight, bias) contiguous over the normalized dims; strided ones run the reference loop";
  const int64_t n = row_length(o.x, o.lead);
  if (n == 0) return "empty rows run the reference loop";
  if (n > kMaxRow) return "rows longer than 4194304 elements run the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

// A sum past f32's range is +-Inf, as the reference keeps its statistics in f32's range.
double in_f32_range(double v) {
  return std::abs(v) > static_cast<double>(std::numeric_limits<float>::max())
             ? std::copysign(std::numeric_limits<double>::infinity(), v)
             : v;
}

struct layer_norm_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c)) plugin::fail(XD_ERR_INTERNAL, std::string("layer_norm.fast ") + why);
      const layer_norm_operands o = layer_norm_operands_of(c, false);
      const xd_view& x = o.x;
      const xd_view& y = o.like_x;
      const int64_t n = row_length(x, o.lead);
      constexpr int64_t sz = sizeof(T);
      const strided_layout<4> rows(x.ndim, x.sizes, {x.strides, y.strides, o.mean.strides, o.rstd.strides},
                                   {sz, sz, 4, 4}, trailing_mask(o.lead));
      if (rows.numel() == 0) return;
      const std::vector<float> wf = weight_f32(o.w, n), bf = weight_f32(o.b, n);
      const float* wp = o.w != nullptr ? wf.data() : nullptr;
      const float* bp = o.b != nullptr ? bf.data() : nullptr;
      const bool stream = rows.numel() * n * sz >= stream_threshold_bytes();
      const float eps = static_cast<float>(o.eps);
      constexpr simd::elem e = elem_of<T>();
      constexpr bool kAskNext = std::is_same_v<T, float>;  // as rms_norm_fast.cpp
      auto row = [&](const T* xp, T* yp, float* mp, float* rp, const T* next) {
        const double mu = in_f32_range(simd::sum_f64(xp, e, n)) / static_cast<double>(n);
        double ss = simd::sum_squared_deviations(xp, e, n, mu);
        if (!std::isfinite(ss)) {  // the reference's sum, in double
          ss = 0;
          for (int64_t i = 0; i < n; ++i) {
            const double d = static_cast<double>(static_cast<float>(xp[i])) - mu;
            ss += d * d;
          }
        }
        const double var = in_f32_range(ss) / static_cast<double>(n);
        const float m = static_cast<float>(mu);
        const float r = static_cast<float>(1.0 / std::sqrt(static_cast<double>(static_cast<float>(var) + eps)));
        *mp = m;
        *rp = r;
        simd::layer_norm_row(xp, e, m, r, wp, bp, yp, n, stream, {{next, nullptr}, kNextRowsIntoL2<T>});
      };
      parallel_for(rows.numel(), std::max<int64_t>(1, kElementGrain / n), [&](int64_t begin, int64_t end) {
        stream_scope fence;
        rows.for_each_run(
            {data(x), data(y), data(o.mean), data(o.rstd)}, begin, end,
            [&](const std::array<char*, 4>& p, int64_t len, const std::array<int64_t, 4>& st) {
              for (int64_t i = 0; i < len; ++i)
                row(reinterpret_cast<const T*>(p[0] + i * st[0]), reinterpret_cast<T*>(p[1] + i * st[1]),
                    reinterpret_cast<float*>(p[2] + i * st[2]), reinterpret_cast<float*>(p[3] + i * st[3]),
                    kAskNext && i + 1 < len ? reinterpret_cast<const T*>(p[0] + (i + 1) * st[0]) : nullptr);
            });
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// An entry of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_layer_norm_fast =
    fast::fast_kernel<fast::layer_norm_fast>(XD_OP_LAYER_NORM, "layer_norm.fast", fast::check);
}  // namespace xd::cpu
