// RMS_NORM: [x, weight?] -> [y, rstd]. Rows are x's leading dims, a row is the normalized_ndim
// trailing dims. rstd = 1/sqrt(mean(x^2) + eps), with the sum of squares in double and rstd
// rounded to f32 (f64 for f64 x); y = x * rstd * w in the compute type (float for f16/bf16),
// rounded once to x's dtype. weight may have another floating dtype than x.
// The statistics have f32's range for every non-f64 dtype, as PyTorch's (opmath f32) and the
// XPU kernels' have: each square is formed in f32 (so |x| > ~1.8e19 squares to +Inf and a tiny
// x to 0) and a sum of squares past FLT_MAX is +Inf, making rstd 0 — the double sum only makes
// the oracle more accurate inside that range, never finite where the others overflow. The mean
// and eps are added in the same f32 (f64 for f64 x).
#include "kernels/rms_norm.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu {


namespace {

template <class T, class W>
void rms_norm(const xd_kernel_call* c) {
  using C = compute_t<T>;
  using R = rstd_t<T>;
  const rms_norm_operands o = rms_norm_operands_of(c);
  const xd_view& x = o.x;
  const xd_view* w = o.w;
  const xd_view& y = o.y;
  const xd_view& rstd = o.rstd;
  const auto& attrs = o.attrs;
  const int lead = o.lead;
  const int k = attrs.normalized_ndim;

  constexpr int64_t sz = sizeof(T);
  const strided_layout<3> rows(x.ndim, x.sizes, {x.strides, y.strides, rstd.strides}, {sz, sz, int64_t{sizeof(R)}},
                               trailing_mask(lead));
  const strided_layout<3> row(k, x.sizes + lead, {x.strides + lead, y.strides + lead, w ? w->strides : zero_strides()},
                              {sz, sz, int64_t{sizeof(W)}});
  int64_t n = 1;
  for (int d = lead; d < x.ndim; ++d) n *= x.sizes[d];
  char* const w_base = w != nullptr ? data(*w) : nullptr;

  auto one_row = [&](char* px, char* py, char* pr) {
    rms_acc ss = 0;
    row.for_each_run({px, py, w_base}, 0, n,
                     [&](const std::array<char*, 3>& p, int64_t len, const std::array<int64_t, 3>& s) {
                       for (int64_t i = 0; i < len; ++i) {
                         const C v = load(at<const T>(p[0], i * s[0]));
                         ss += static_cast<rms_acc>(v * v);
                       }
                     });
    if constexpr (!std::is_same_v<T, double>)
      if (ss > static_cast<rms_acc>(std::numeric_limits<float>::max())) ss = std::numeric_limits<rms_acc>::infinity();
    // An empty row has mean NaN, hence rstd NaN, as PyTorch's mean gives.
    const double ms = n == 0 ? std::numeric_limits<double>::quiet_NaN() : ss / static_cast<double>(n);
    // mean + eps in R (f32 unless x is f64), as PyTorch adds them: eps = 1e-45 is f32's smallest
    // subnormal then, not a double's 1e-45.
    const R r = static_cast<R>(1.0 / std::sqrt(static_cast<double>(static_cast<R>(ms) + static_cast<R>(attrs.eps))));
    at<R>(pr, 0) = r;
    const C rc = static_cast<C>(r);
    row.for_each_run({px, py, w_base}, 0, n,
                     [&](const std::array<char*, 3>& p, int64_t len, const std::array<int64_t, 3>& s) {
                       for (int64_t i = 0; i < len; ++i) {
                         C v = load(at<const T>(p[0], i * s[0])) * rc;
                         if (w != nullptr) v *= static_cast<C>(load(at<const W>(p[2], i * s[2])));
                         at<T>(p[1], i * s[1]) = cast<T>(v);
                       }
                     });
  };
  const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(n, 1));
  parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
    rows.for_each_run({data(x), data(y), data(rstd)}, begin, end,
                      [&](const std::array<char*, 3>& p, int64_t len, const std::array<int64_t, 3>& s) {
                        for (int64_t i = 0; i < len; ++i) one_row(p[0] + i * s[0], p[1] + i * s[1], p[2] + i * s[2]);
                      });
  });
}

struct rms_norm_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view* w = optional_input(c, 1);
      visit_floating(w != nullptr ? w->dtype : type_info<T>::id,
                     [&]<class W>(std::type_identity<W>) { rms_norm<T, W>(c); });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_rms_norm = typed_kernel<rms_norm_kernel, dtypes::compute_floating>(XD_OP_RMS_NORM, "rms_norm");

}  // namespace xd::cpu
