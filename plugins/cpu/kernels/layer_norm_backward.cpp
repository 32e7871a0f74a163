// LAYER_NORM_BACKWARD: [grad_out, x, mean, rstd, weight?, bias?] -> [grad_input?, grad_weight?,
// grad_bias?]. With xh = (x - mean) * rstd and gw = g * w (w = 1 without a weight), per row:
//   dx = rstd * (gw - mean(gw) - xh * mean(gw * xh)),
// and over every row dw = sum(g * xh), db = sum(g). The bias is only db's shape. Elementwise
// products run in the compute type, sums in double. dw and db are accumulated per fixed block of
// kRowBlock rows and the blocks added in order, as rms_norm_backward does, so the result does not
// depend on the thread count. An absent output is never written.
#include "kernels/layer_norm.hpp"

#include <vector>

namespace xd::cpu {

namespace {

constexpr int64_t kRowBlock = 256;

// Operand slots of the per-row layout.
enum { G = 0, X = 1, WT = 2, DW = 3, DB = 4, DX = 5 };

struct layer_norm_backward_kernel {
  template <class T>
  static void body(const xd_kernel_call* c) {
    const layer_norm_operands o = layer_norm_operands_of(c, true);
    using C = compute_t<T>;
    using R = rstd_t<T>;
    const xd_view& g = o.like_x;
    const xd_view& x = o.x;
    if (o.dx == nullptr && o.dw == nullptr && o.db == nullptr) return;

    constexpr int64_t sz = sizeof(T);
    constexpr int64_t rsz = sizeof(R);
    const int64_t* zero = zero_strides();
    using row_ptrs = std::array<char*, 6>;
    using row_steps = std::array<int64_t, 6>;
    const strided_layout<5> rows(x.ndim, x.sizes,
                                 {g.strides, x.strides, o.mean.strides, o.rstd.strides, o.dx ? o.dx->strides : zero},
                                 {sz, sz, rsz, rsz, sz}, trailing_mask(o.lead));
    const strided_layout<6> row(
        o.normalized_ndim, x.sizes + o.lead,
        {g.strides + o.lead, x.strides + o.lead, o.w ? o.w->strides : zero, o.dw ? o.dw->strides : zero,
         o.db ? o.db->strides : zero, o.dx ? o.dx->strides + o.lead : zero},
        {sz, sz, sz, sz, sz, sz});
    const int64_t n_rows = rows.numel();
    const int64_t n = row.numel();
    char* const w_base = o.w != nullptr ? data(*o.w) : nullptr;
    char* const dw_base = o.dw != nullptr ? data(*o.dw) : nullptr;
    char* const db_base = o.db != nullptr ? data(*o.db) : nullptr;

    // Partial sums per block: dw's n entries, then db's n.
    const int64_t blocks = (n_rows + kRowBlock - 1) / kRowBlock;
    const bool sums = o.dw != nullptr || o.db != nullptr;
    std::vector<rms_acc> partial(sums ? static_cast<size_t>(blocks * 2 * n) : 0);

    auto one_row = [&](char* pg, char* px, char* pm, char* pr, char* pdx, rms_acc* part) {
      const C mu = static_cast<C>(load(at<const R>(pm, 0)));
      const C r = static_cast<C>(load(at<const R>(pr, 0)));
      const row_ptrs base{pg, px, w_base, dw_base, db_base, pdx};
      auto gw_at = [&](const row_ptrs& p, const row_steps& s, int64_t i) {
        C v = load(at<const T>(p[G], i * s[G]));
        if (o.w != nullptr) v *= load(at<const T>(p[WT], i * s[WT]));
        return v;
      };
      auto xh_at = [&](const row_ptrs& p, const row_steps& s, int64_t i) {
        return (load(at<const T>(p[X], i * s[X])) - mu) * r;
      };
      if (o.dx != nullptr && n > 0) {
        rms_acc sum_gw = 0, sum_gwxh = 0;
        row.for_each_run(base, 0, n, [&](const row_ptrs& p, int64_t len, const row_steps& s) {
          for (int64_t i = 0; i < len; ++i) {
            const rms_acc gw = static_cast<rms_acc>(gw_at(p, s, i));
            sum_gw += gw;
            sum_gwxh += gw * static_cast<rms_acc>(xh_at(p, s, i));
          }
        });
        const C mean_gw = static_cast<C>(sum_gw / static_cast<rms_acc>(n));
        const C mean_gwxh = static_cast<C>(sum_gwxh / static_cast<rms_acc>(n));
        row.for_each_run(base, 0, n, [&](const row_ptrs& p, int64_t len, const row_steps& s) {
          for (int64_t i = 0; i < len; ++i)
            at<T>(p[DX], i * s[DX]) = cast<T>(r * (gw_at(p, s, i) - mean_gw - xh_at(p, s, i) * mean_gwxh));
        });
      }
      if (part != nullptr) {
        int64_t j = 0;
        row.for_each_run(base, 0, n, [&](const row_ptrs& p, int64_t len, const row_steps& s) {
          for (int64_t i = 0; i < len; ++i, ++j) {
            const rms_acc gv = static_cast<rms_acc>(load(at<const T>(p[G], i * s[G])));
            part[j] += gv * static_cast<rms_acc>(xh_at(p, s, i));
            part[n + j] += gv;
          }
        });
      }
    };

    const int64_t grain = std::max<int64_t>(1, kElementGrain / (kRowBlock * std::max<int64_t>(n, 1)));
    parallel_for(blocks, grain, [&](int64_t begin, int64_t end) {
      for (int64_t blk = begin; blk < end; ++blk) {
        rms_acc* part = sums ? partial.data() + blk * 2 * n : nullptr;
        rows.for_each_run({data(g), data(x), data(o.mean), data(o.rstd), o.dx ? data(*o.dx) : nullptr}, blk * kRowBlock,
                          std::min(n_rows, (blk + 1) * kRowBlock),
                          [&](const std::array<char*, 5>& p, int64_t len, const std::array<int64_t, 5>& s) {
                            for (int64_t i = 0; i < len; ++i)
                              one_row(p[0] + i * s[0], p[1] + i * s[1], p[2] + i * s[2], p[3] + i * s[3],
                                      p[4] + i * s[4], part);
                          });
      }
    });

    // The block partials of dw (half 0) or db (half 1), added in block order.
    auto write_sums = [&](const xd_view* out, int64_t half) {
      if (out == nullptr) return;
      const strided_layout<1> out_layout(o.normalized_ndim, out->sizes, {out->strides}, {sz});
      int64_t j = 0;
      out_layout.for_each_run({data(*out)}, 0, n,
                              [&](const std::array<char*, 1>& p, int64_t len, const std::array<int64_t, 1>& s) {
                                for (int64_t i = 0; i < len; ++i, ++j) {
                                  rms_acc total = 0;
                                  for (int64_t blk = 0; blk < blocks; ++blk)
                                    total += partial[static_cast<size_t>((blk * 2 + half) * n + j)];
                                  at<T>(p[0], i * s[0]) = cast<T>(total);
                                }
                              });
    };
    write_sums(o.dw, 0);
    write_sums(o.db, 1);
  }
};

}  // namespace

extern const plugin::kernel_def def_layer_norm_backward =
    layer_norm_kernel_def<layer_norm_backward_kernel>(XD_OP_LAYER_NORM_BACKWARD, "layer_norm_backward");

}  // namespace xd::cpu
