// RMS_NORM and RMS_NORM_BACKWARD over rows whose normalized dims are contiguous: the fast kernels
// in front of kernels/rms_norm.cpp and kernels/rms_norm_backward.cpp, with their arithmetic (see
// there): squares and products in f32, rstd rounded to f32, dw accumulated per fixed block of
// rows and the blocks added in order, so no result depends on the thread count. The sums are the
// exception: the reference's are in double, these are f32 fma in vector accumulators added in
// double at the end of a row (the forward's sum of squares, the backward's dot) or of kFoldRows
// rows (dw), and redone in double where the f32 sum is not finite; the backward's dx and dw share
// one pass over g and x. Both cut the work per element to what the memory allows: a core here
// runs out of instructions before the memory runs out of bandwidth (docs/performance.md,
// "rms_norm_backward's sums in f32", "rms_norm's sum of squares in f32; the next rows into L2").
// A row is read from memory once and revisited in L1/L2 (bf16/f16 converted in the vector loops); outputs larger than
// the caches are written with non-temporal stores, and the next row is asked for while a row is
// written (f32 rows of the forward, every row of the backward), so the memory reads while it writes.
#include "kernels/fast/norm_rows.hpp"
#include "kernels/fast/rows.hpp"
#include "kernels/rms_norm.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kRowBlock = 256;  // rows per dw partial, as the reference
constexpr int64_t kFoldRows = 16;   // rows whose g*xh are summed in f32 before a partial takes them

const char* forward_decline(const xd_kernel_call* c) {
  const xd_view& x = input(c, 0);
  const xd_view* w = optional_input(c, 1);
  const int k = need_attrs<xd_attrs_rms_norm>(c).normalized_ndim;
  if (k < 1 || k > x.ndim || output(c, 0).ndim != x.ndim) return "a malformed call (the reference reports it)";
  const int lead = x.ndim - k;
  const int64_t sz = dtype_bytes(x.dtype);
  if (!row_contiguous(&x, lead, sz) || !row_contiguous(&output(c, 0), lead, sz) ||
      (w != nullptr && !all_contiguous(w, dtype_bytes(w->dtype))))
    return "takes rows (and a weight) contiguous over the normalized dims; strided ones run the reference loop";
  if (row_length(x, lead) > kMaxRow) return "rows longer than 4194304 elements run the reference loop";
  return nullptr;
}

const char* backward_decline(const xd_kernel_call* c) {
  const xd_view& g = input(c, 0);
  const xd_view& x = input(c, 1);
  const xd_view* w = optional_input(c, 3);
  const xd_view* dx = optional_output(c, 0);
  const xd_view* dw = optional_output(c, 1);
  const int k = need_attrs<xd_attrs_rms_norm_backward>(c).normalized_ndim;
  if (k < 1 || k > x.ndim || g.ndim != x.ndim || (dx != nullptr && dx->ndim != x.ndim))
    return "a malformed call (the reference reports it)";
  const int lead = x.ndim - k;
  const int64_t sz = dtype_bytes(x.dtype);
  if (!row_contiguous(&x, lead, sz) || !row_contiguous(&g, lead, sz) || !row_contiguous(dx, lead, sz) ||
      (w != nullptr && !all_contiguous(w, dtype_bytes(w->dtype))) ||
      (dw != nullptr && !all_contiguous(dw, dtype_bytes(dw->dtype))))
    return "takes rows (and weights) contiguous over the normalized dims; strided ones run the reference loop";
  if (row_length(x, lead) > kMaxRow) return "rows longer than 4194304 elements run the reference loop";
  return nullptr;
}

int32_t forward_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return forward_decline(c); });
}
int32_t backward_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return backward_decline(c); });
}

struct rms_norm_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = forward_decline(c)) plugin::fail(XD_ERR_INTERNAL, std::string("rms_norm.fast ") + why);
      const rms_norm_operands o = rms_norm_operands_of(c);
      const xd_view& x = o.x;
      const xd_view* w = o.w;
      const xd_view& y = o.y;
      const xd_view& rstd = o.rstd;
      const auto& attrs = o.attrs;
      const int lead = o.lead;
      const int64_t n = row_length(x, lead);
      constexpr int64_t sz = sizeof(T);
      const strided_layout<3> rows(x.ndim, x.sizes, {x.strides, y.strides, rstd.strides}, {sz, sz, 4},
                                   trailing_mask(lead));
      if (rows.numel() == 0) return;
      const std::vector<float> wf = weight_f32(w, n);
      const float* wp = w != nullptr ? wf.data() : nullptr;
      const bool stream = rows.numel() * n * sz >= stream_threshold_bytes();
      const float eps = static_cast<float>(attrs.eps);
      const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(n, 1));
      // f32 rows ask for the next row while this one is written (simd::next_rows); f16 rows
      // measured slower with it, bf16 no faster (docs/performance.md, "Reads during the writes").
      constexpr bool kAskNext = std::is_same_v<T, float>;
      parallel_for(rows.numel(), grain, [&](int64_t begin, int64_t end) {
        stream_scope fence;
        auto row = [&](const T* xp, T* yp, float* rp, const T* next) {
          double ss = simd::sum_squares_f32(xp, elem_of<T>(), n);
          if (!std::isfinite(ss)) ss = simd::sum_squares(xp, elem_of<T>(), n);
          if (ss > static_cast<double>(std::numeric_limits<float>::max())) ss = std::numeric_limits<double>::infinity();
          const double ms = n == 0 ? std::numeric_limits<double>::quiet_NaN() : ss / static_cast<double>(n);
          const float r = static_cast<float>(1.0 / std::sqrt(static_cast<double>(static_cast<float>(ms) + eps)));
          *rp = r;
          simd::scale_weighted(xp, elem_of<T>(), r, wp, yp, n, stream, {{next, nullptr}, kNextRowsIntoL2<T>});
        };
        rows.for_each_run({data(x), data(y), data(rstd)}, begin, end,
                          [&](const std::array<char*, 3>& p, int64_t len, const std::array<int64_t, 3>& st) {
                            for (int64_t i = 0; i < len; ++i)
                              row(reinterpret_cast<const T*>(p[0] + i * st[0]), reinterpret_cast<T*>(p[1] + i * st[1]),
                                  reinterpret_cast<float*>(p[2] + i * st[2]),
                                  kAskNext && i + 1 < len ? reinterpret_cast<const T*>(p[0] + (i + 1) * st[0])
                                                          : nullptr);
                          });
      });
    });
  }
};

struct rms_norm_backward_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = backward_decline(c))
        plugin::fail(XD_ERR_INTERNAL, std::string("rms_norm_backward.fast ") + why);
      const rms_norm_backward_operands o = rms_norm_backward_operands_of(c);
      const xd_view& g = o.g;
      const xd_view& x = o.x;
      const xd_view& rstd = o.rstd;
      const xd_view* w = o.w;
      const xd_view* dx = o.dx;
      const xd_view* dw = o.dw;
      const int lead = o.lead;
      if (dx == nullptr && dw == nullptr) return;
      const int64_t n = row_length(x, lead);
      constexpr int64_t sz = sizeof(T);
      const int64_t* zero = zero_strides();
      const strided_layout<4> rows(x.ndim, x.sizes, {g.strides, x.strides, rstd.strides, dx ? dx->strides : zero},
                                   {sz, sz, 4, sz}, trailing_mask(lead));
      const int64_t n_rows = rows.numel();
      if (n_rows == 0 && dw == nullptr) return;
      const std::vector<float> wf = weight_f32(w, n);
      const float* wp = w != nullptr ? wf.data() : nullptr;
      const bool stream = dx != nullptr && n_rows * n * sz >= stream_threshold_bytes();
      const int64_t blocks = (n_rows + kRowBlock - 1) / kRowBlock;
      std::vector<double> partial(dw != nullptr ? static_cast<size_t>(blocks * n) : 0);
      const int64_t grain = std::max<int64_t>(1, kElementGrain / (kRowBlock * std::max<int64_t>(n, 1)));
      parallel_for(blocks, grain, [&](int64_t begin, int64_t end) {
        stream_scope fence;
        std::vector<float> acc(dw != nullptr ? static_cast<size_t>(n) : 0);  // g*xh of the rows held, in f32
        struct held_row {
          const T* g;
          const T* x;
          float r;
        };
        std::array<held_row, kFoldRows> held_rows{};  // their g, x and rstd
        for (int64_t blk = begin; blk < end; ++blk) {
          double* part = dw != nullptr ? partial.data() + blk * n : nullptr;
          int64_t held = 0;
          // The held rows into the block's partial: in double, from the rows again, where an f32
          // sum overflowed.
          auto fold = [&] {
            if (!simd::fold_f32(acc.data(), part, n))
              for (int64_t h = 0; h < held; ++h)
                simd::accumulate_g_xh(held_rows[h].g, held_rows[h].x, elem_of<T>(), held_rows[h].r, part, n);
            held = 0;
          };
          auto row = [&](const T* gp, const T* xp, float r, T* dxp, simd::next_rows next) {
            constexpr simd::elem e = elem_of<T>();
            float mean = 0.0f;
            if (dx != nullptr && n > 0) {
              double sum = simd::dot_gw_xh_f32(gp, xp, e, wp, r, n);
              if (!std::isfinite(sum)) sum = simd::dot_gw_xh(gp, xp, e, wp, r, n);
              mean = static_cast<float>(sum / static_cast<double>(n));
              if (part == nullptr) simd::rms_dx(gp, xp, e, wp, r, mean, dxp, n, stream, next);
            }
            if (part != nullptr) {
              if (dx != nullptr && n > 0)
                simd::rms_dx_accumulate(gp, xp, e, wp, r, mean, dxp, acc.data(), n, stream, next);
              else
                simd::accumulate_g_xh(gp, xp, e, r, acc.data(), n);
              held_rows[held] = {gp, xp, r};
              if (++held == kFoldRows) fold();
            }
          };
          rows.for_each_run(
              {data(g), data(x), data(rstd), dx ? data(*dx) : nullptr}, blk * kRowBlock,
              std::min(n_rows, (blk + 1) * kRowBlock),
              [&](const std::array<char*, 4>& p, int64_t len, const std::array<int64_t, 4>& st) {
                for (int64_t i = 0; i < len; ++i) {
                  simd::next_rows next;
                  if (i + 1 < len) next = {{p[0] + (i + 1) * st[0], p[1] + (i + 1) * st[1]}, kNextRowsIntoL2<T>};
                  row(reinterpret_cast<const T*>(p[0] + i * st[0]), reinterpret_cast<const T*>(p[1] + i * st[1]),
                      *reinterpret_cast<const float*>(p[2] + i * st[2]), reinterpret_cast<T*>(p[3] + i * st[3]), next);
                }
              });
          if (part != nullptr && held > 0) fold();
        }
      });
      if (dw != nullptr) {
        visit_floating(dw->dtype, [&]<class W>(std::type_identity<W>) {
          W* out = reinterpret_cast<W*>(data(*dw));
          parallel_for(n, kElementGrain, [&](int64_t b, int64_t e) {
            for (int64_t j = b; j < e; ++j) {
              double total = 0;
              for (int64_t blk = 0; blk < blocks; ++blk) total += partial[static_cast<size_t>(blk * n + j)];
              out[j] = cast<W>(total);
            }
          });
        });
      }
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// Entries of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_rms_norm_fast =
    fast::fast_kernel<fast::rms_norm_fast>(XD_OP_RMS_NORM, "rms_norm.fast", fast::forward_check);
extern const plugin::kernel_def def_rms_norm_backward_fast = fast::fast_kernel<fast::rms_norm_backward_fast>(
    XD_OP_RMS_NORM_BACKWARD, "rms_norm_backward.fast", fast::backward_check);
}  // namespace xd::cpu
