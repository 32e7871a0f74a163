// LAYER_NORM: [x, weight?, bias?] -> [out, mean, rstd]. Rows are x's leading dims, a row the
// normalized_ndim trailing dims (n elements). Two passes per row, as an oracle should: the sum in
// double gives mean, then the sum of squared deviations from it (in double) the biased variance;
// mean and rstd = 1/sqrt(var + eps) are rounded to f32 (f64 for f64 x), var + eps added in that
// type as PyTorch adds them. out = (x - mean) * rstd * w + b in the compute type (float for
// f16/bf16), rounded once to x's dtype. A row of no elements gets mean 0 and rstd NaN, as PyTorch's
// kernel gives. For non-f64 x the statistics keep f32's range: a sum past FLT_MAX is Inf (so its
// row is NaN), as PyTorch's f32 accumulation and the XPU kernels give.
#include "kernels/layer_norm.hpp"

#include <cmath>
#include <limits>

namespace xd::cpu {

namespace {

// A sum rounded to R's range: +-Inf past R's largest finite value.
template <class R>
double in_range(double v) {
  if constexpr (!std::is_same_v<R, double>)
    if (std::abs(v) > static_cast<double>(std::numeric_limits<float>::max()))
      return std::copysign(std::numeric_limits<double>::infinity(), v);
  return v;
}

struct layer_norm_kernel {
  template <class T>
  static void body(const xd_kernel_call* c) {
    using C = compute_t<T>;
    using R = rstd_t<T>;
    const layer_norm_operands o = layer_norm_operands_of(c, false);
    const xd_view& x = o.x;
    const xd_view& y = o.like_x;
    const int lead = o.lead;
    const int k = o.normalized_ndim;

    constexpr int64_t sz = sizeof(T);
    constexpr int64_t rsz = sizeof(R);
    const strided_layout<4> rows(x.ndim, x.sizes, {x.strides, y.strides, o.mean.strides, o.rstd.strides},
                                 {sz, sz, rsz, rsz}, trailing_mask(lead));
    const strided_layout<4> row(
        k, x.sizes + lead,
        {x.strides + lead, y.strides + lead, o.w ? o.w->strides : zero_strides(), o.b ? o.b->strides : zero_strides()},
        {sz, sz, sz, sz});
    int64_t n = 1;
    for (int d = lead; d < x.ndim; ++d) n *= x.sizes[d];
    char* const w_base = o.w != nullptr ? data(*o.w) : nullptr;
    char* const b_base = o.b != nullptr ? data(*o.b) : nullptr;
    using run_ptrs = std::array<char*, 4>;
    using run_steps = std::array<int64_t, 4>;

    auto one_row = [&](char* px, char* py, char* pm, char* pr) {
      const run_ptrs base{px, py, w_base, b_base};
      rms_acc sum = 0;
      row.for_each_run(base, 0, n, [&](const run_ptrs& p, int64_t len, const run_steps& s) {
        for (int64_t i = 0; i < len; ++i) sum += static_cast<rms_acc>(load(at<const T>(p[0], i * s[0])));
      });
      const double mu = n == 0 ? 0.0 : in_range<R>(sum) / static_cast<double>(n);
      rms_acc ss = 0;
      row.for_each_run(base, 0, n, [&](const run_ptrs& p, int64_t len, const run_steps& s) {
        for (int64_t i = 0; i < len; ++i) {
          const double d = static_cast<double>(load(at<const T>(p[0], i * s[0]))) - mu;
          ss += d * d;
        }
      });
      const double var = n == 0 ? std::numeric_limits<double>::quiet_NaN() : in_range<R>(ss) / static_cast<double>(n);
      const R m = static_cast<R>(mu);
      const R r = static_cast<R>(1.0 / std::sqrt(static_cast<double>(static_cast<R>(var) + static_cast<R>(o.eps))));
      at<R>(pm, 0) = m;
      at<R>(pr, 0) = r;
      const C mc = static_cast<C>(m), rc = static_cast<C>(r);
      row.for_each_run(base, 0, n, [&](const run_ptrs& p, int64_t len, const run_steps& s) {
        for (int64_t i = 0; i < len; ++i) {
          C v = (load(at<const T>(p[0], i * s[0])) - mc) * rc;
          if (o.w != nullptr) v *= load(at<const T>(p[2], i * s[2]));
          if (o.b != nullptr) v += load(at<const T>(p[3], i * s[3]));
          at<T>(p[1], i * s[1]) = cast<T>(v);
        }
      });
    };
    const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(n, 1));
    parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
      rows.for_each_run({data(x), data(y), data(o.mean), data(o.rstd)}, begin, end,
                        [&](const run_ptrs& p, int64_t len, const run_steps& s) {
                          for (int64_t i = 0; i < len; ++i)
                            one_row(p[0] + i * s[0], p[1] + i * s[1], p[2] + i * s[2], p[3] + i * s[3]);
                        });
    });
  }
};

}  // namespace

extern const plugin::kernel_def def_layer_norm =
    layer_norm_kernel_def<layer_norm_kernel>(XD_OP_LAYER_NORM, "layer_norm");

}  // namespace xd::cpu
