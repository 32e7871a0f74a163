// RMS_NORM_BACKWARD: [grad_out, x, rstd, weight?] -> [grad_input?, grad_weight?].
// With xh = x*rstd and w = weight (or 1), per row:
//   dx = rstd * (g*w - xh * mean(g*w*xh)),     dw = sum over rows of g*xh.
// Elementwise products run in the compute type, sums in double. dw is accumulated per fixed
// block of kRowBlock rows and the blocks are added in order, so the result does not depend on
// the thread count. An absent output is never written.
#include "kernels/rms_norm.hpp"

#include <vector>

namespace xd::cpu {


namespace {

constexpr int64_t kRowBlock = 256;

// Operand slots of the per-row layout.
enum { G = 0, X = 1, WT = 2, DW = 3, DX = 4 };

template <class T, class W>
void rms_norm_backward(const xd_kernel_call* c) {
  using C = compute_t<T>;
  using R = rstd_t<T>;
  const rms_norm_backward_operands o = rms_norm_backward_operands_of(c);
  const xd_view& g = o.g;
  const xd_view& x = o.x;
  const xd_view& rstd = o.rstd;
  const xd_view* w = o.w;
  const xd_view* dx = o.dx;
  const xd_view* dw = o.dw;
  const int lead = o.lead;
  const int k = o.attrs.normalized_ndim;
  if (dx == nullptr && dw == nullptr) return;

  constexpr int64_t sz = sizeof(T);
  constexpr int64_t wsz = sizeof(W);
  const int64_t* zero = zero_strides();
  const strided_layout<4> rows(x.ndim, x.sizes, {g.strides, x.strides, rstd.strides, dx ? dx->strides : zero},
                               {sz, sz, int64_t{sizeof(R)}, sz}, trailing_mask(lead));
  const strided_layout<5> row(k, x.sizes + lead,
                              {g.strides + lead, x.strides + lead, w ? w->strides : zero, dw ? dw->strides : zero,
                               dx ? dx->strides + lead : zero},
                              {sz, sz, wsz, wsz, sz});
  const int64_t n_rows = rows.numel();
  const int64_t n = row.numel();
  char* const w_base = w != nullptr ? data(*w) : nullptr;
  char* const dw_base = dw != nullptr ? data(*dw) : nullptr;

  const int64_t blocks = (n_rows + kRowBlock - 1) / kRowBlock;
  std::vector<rms_acc> partial(dw != nullptr ? static_cast<size_t>(blocks * n) : 0);

  // One row; `part` (n entries, or nullptr) receives g*xh for dw.
  auto one_row = [&](char* pg, char* px, char* pr, char* pdx, rms_acc* part) {
    const C r = static_cast<C>(load(at<const R>(pr, 0)));
    const std::array<char*, 5> base{pg, px, w_base, dw_base, pdx};
    auto gw_at = [&](const std::array<char*, 5>& p, const std::array<int64_t, 5>& s, int64_t i) {
      C v = load(at<const T>(p[G], i * s[G]));
      if (w != nullptr) v *= static_cast<C>(load(at<const W>(p[WT], i * s[WT])));
      return v;
    };
    if (dx != nullptr && n > 0) {
      rms_acc sum = 0;
      row.for_each_run(base, 0, n, [&](const std::array<char*, 5>& p, int64_t len, const std::array<int64_t, 5>& s) {
        for (int64_t i = 0; i < len; ++i) {
          const C xh = load(at<const T>(p[X], i * s[X])) * r;
          sum += static_cast<rms_acc>(gw_at(p, s, i)) * static_cast<rms_acc>(xh);
        }
      });
      const C mean = static_cast<C>(sum / static_cast<rms_acc>(n));
      row.for_each_run(base, 0, n, [&](const std::array<char*, 5>& p, int64_t len, const std::array<int64_t, 5>& s) {
        for (int64_t i = 0; i < len; ++i) {
          const C xh = load(at<const T>(p[X], i * s[X])) * r;
          at<T>(p[DX], i * s[DX]) = cast<T>(r * (gw_at(p, s, i) - xh * mean));
        }
      });
    }
    if (part != nullptr) {
      int64_t j = 0;
      row.for_each_run(base, 0, n, [&](const std::array<char*, 5>& p, int64_t len, const std::array<int64_t, 5>& s) {
        for (int64_t i = 0; i < len; ++i, ++j) {
          const C xh = load(at<const T>(p[X], i * s[X])) * r;
          part[j] += static_cast<rms_acc>(load(at<const T>(p[G], i * s[G]))) * static_cast<rms_acc>(xh);
        }
      });
    }
  };

  const int64_t grain = std::max<int64_t>(1, kElementGrain / (kRowBlock * std::max<int64_t>(n, 1)));
  parallel_for(blocks, grain, [&](int64_t begin, int64_t end) {
    for (int64_t blk = begin; blk < end; ++blk) {
      rms_acc* part = dw != nullptr ? partial.data() + blk * n : nullptr;
      rows.for_each_run({data(g), data(x), data(rstd), dx ? data(*dx) : nullptr}, blk * kRowBlock,
                        std::min(n_rows, (blk + 1) * kRowBlock),
                        [&](const std::array<char*, 4>& p, int64_t len, const std::array<int64_t, 4>& s) {
                          for (int64_t i = 0; i < len; ++i)
                            one_row(p[0] + i * s[0], p[1] + i * s[1], p[2] + i * s[2], p[3] + i * s[3], part);
                        });
    }
  });

  if (dw != nullptr) {
    const strided_layout<1> dw_layout(k, dw->sizes, {dw->strides}, {wsz});
    int64_t j = 0;
    dw_layout.for_each_run({dw_base}, 0, n, [&](const std::array<char*, 1>& p, int64_t len, const std::array<int64_t, 1>& s) {
      for (int64_t i = 0; i < len; ++i, ++j) {
        rms_acc total = 0;
        for (int64_t blk = 0; blk < blocks; ++blk) total += partial[static_cast<size_t>(blk * n + j)];
        at<W>(p[0], i * s[0]) = cast<W>(total);
      }
    });
  }
}

struct rms_norm_backward_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const xd_view* w = optional_input(c, 3);
      visit_floating(w != nullptr ? w->dtype : type_info<T>::id,
                     [&]<class W>(std::type_identity<W>) { rms_norm_backward<T, W>(c); });
    });
  }
};

}  // namespace

// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_rms_norm_backward = typed_kernel<rms_norm_backward_kernel, dtypes::compute_floating>(XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward");

}  // namespace xd::cpu
