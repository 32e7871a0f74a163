// SCALED_DOT_PRODUCT_ATTENTION, the fast kernel in front of kernels/attention.cpp, with its
// arithmetic (see there): scores scale * dot(q_i, k_j) (+ mask) in f32, the row's maximum (NaN
// winning), p_j = exp(s_j - max), out = (sum_j p_j v_j) / sum_j p_j, a row whose maximum is not
// finite all NaN, is_causal leaving out the keys j > i. A thread takes a range of (batch, tile of
// four query rows) pairs; for each batch it reaches it converts K to f32 panels of 32 keys, each
// key's elements along a panel's rows (so that a tile's scores are a small matrix product with
// the keys along the vector lanes, read in order) and V to dense f32 rows, then per tile: the scores
// (simd::attention_scores), each row's softmax with the fast kernels' vector exp, and the output rows
// (simd::attention_values). Dot products are summed in order of e and the values in order of j, as the reference sums
// them, by fma; the sum of p in double; exp within 1 ulp.
#include "kernels/fast/rows.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace xd::cpu::fast {
namespace {

constexpr int64_t kTile = 4;                         // query rows a tile (simd::attention_scores' most)
constexpr int64_t kMaxConverted = int64_t{1} << 26;  // floats of a batch's K^T and V a thread holds
// Keys rounded up to whole panels: K's panels and the score rows are this long.
int64_t padded(int64_t n) { return (n + simd::kKeyPanel - 1) / simd::kKeyPanel * simd::kKeyPanel; }

const char* decline_reason(const xd_kernel_call* c) {
  if (c->num_inputs < 3 || c->num_inputs > 4 || c->num_outputs != 1)
    return "a malformed call (the reference reports it)";
  const xd_view& q = input(c, 0);
  const xd_view& k = input(c, 1);
  const xd_view& v = input(c, 2);
  const xd_view* mask = optional_input(c, 3);
  const xd_view& out = output(c, 0);
  for (const xd_view* w : {&q, &k, &v, &out, mask})
    if (w != nullptr && (w->ndim != 3 || w->dtype != q.dtype)) return "a malformed call (the reference reports it)";
  const int64_t B = q.sizes[0], L = q.sizes[1], E = q.sizes[2], S = k.sizes[1], Ev = v.sizes[2];
  if (k.sizes[0] != B || v.sizes[0] != B || k.sizes[2] != E || v.sizes[1] != S || out.sizes[0] != B ||
      out.sizes[1] != L || out.sizes[2] != Ev ||
      (mask && (mask->sizes[0] != B || mask->sizes[1] != L || mask->sizes[2] != S)))
    return "a malformed call (the reference reports it)";
  (void)need_attrs<xd_attrs_attention>(c);
  if (B == 0 || L == 0 || S == 0 || E == 0 || Ev == 0) return "an empty dim runs the reference loop";
  if (S > kMaxRow) return "more than 4194304 keys run the reference loop";
  if (S * (E + Ev) > kMaxConverted) return "K and V of one batch over 256 MiB in f32 run the reference loop";
  return nullptr;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return check_with(reason, reason_size, [&] { return decline_reason(c); });
}

// Element [b, i, j] of view w (element strides) as f32.
template <class T>
float load_at(const xd_view& w, int64_t b, int64_t i, int64_t j) {
  const T* base = reinterpret_cast<const T*>(data(w));
  return static_cast<float>(base[b * w.strides[0] + i * w.strides[1] + j * w.strides[2]]);
}

struct attention_fast {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      if (const char* why = decline_reason(c))
        plugin::fail(XD_ERR_INTERNAL, std::string("scaled_dot_product_attention.fast ") + why);
      const xd_view& q = input(c, 0);
      const xd_view& k = input(c, 1);
      const xd_view& v = input(c, 2);
      const xd_view* mask = optional_input(c, 3);
      const xd_view& out = output(c, 0);
      const xd_attrs_attention& attrs = need_attrs<xd_attrs_attention>(c);
      const int64_t B = q.sizes[0], L = q.sizes[1], E = q.sizes[2], S = k.sizes[1], Ev = v.sizes[2];
      const float scale = static_cast<float>(attrs.scale);
      const bool causal = attrs.is_causal != 0;
      const int64_t ld = padded(S);
      auto keys = [&](int64_t i) { return causal ? std::min(S, i + 1) : S; };

      T* const po = reinterpret_cast<T*>(data(out));
      const int64_t tiles = (L + kTile - 1) / kTile;
      // Causal tiles grow with their index: the order u visits a batch's tiles (0, last, 1,
      // last - 1, ...) gives a contiguous range of u an equal share of the work.
      auto tile_of = [&](int64_t u) { return causal ? (u % 2 == 0 ? u / 2 : tiles - 1 - u / 2) : u; };
      const int64_t grain = std::max<int64_t>(1, kElementGrain / 8 / std::max<int64_t>(1, kTile * S * (E + Ev)));
      // One range of (batch, tile) pairs a thread: a batch's K^T and V are converted by each
      // thread whose range reaches it (at most twice), so decode (one tile a batch) still splits
      // over the batches.
      parallel_for(B * tiles, grain, [&](int64_t w0, int64_t w1) {
        std::vector<float> kt(static_cast<size_t>(E * ld), 0.0f);  // K in panels (simd.hpp); past S stays 0
        std::vector<float> vf(static_cast<size_t>(S * Ev));
        std::vector<float> qf(static_cast<size_t>(kTile * E)), s(static_cast<size_t>(kTile * ld)),
            p(static_cast<size_t>(kTile * ld)), o(static_cast<size_t>(kTile * Ev));
        float sum[kTile];
        bool nan_row[kTile];
        int64_t converted = -1;  // the batch kt and vf hold
        for (int64_t w = w0; w < w1; ++w) {
          const int64_t b = w / tiles;
          if (b != converted) {
            for (int64_t j = 0; j < S; ++j) {
              float* panel = kt.data() + (j / simd::kKeyPanel) * E * simd::kKeyPanel + j % simd::kKeyPanel;
              for (int64_t e = 0; e < E; ++e) panel[e * simd::kKeyPanel] = load_at<T>(k, b, j, e);
              for (int64_t e = 0; e < Ev; ++e) vf[static_cast<size_t>(j * Ev + e)] = load_at<T>(v, b, j, e);
            }
            converted = b;
          }
          const int64_t i0 = tile_of(w % tiles) * kTile;
          const int rows = static_cast<int>(std::min(kTile, L - i0));
          for (int r = 0; r < rows; ++r)
            for (int64_t e = 0; e < E; ++e) qf[static_cast<size_t>(r * E + e)] = load_at<T>(q, b, i0 + r, e);
          simd::attention_scores(qf.data(), E, rows, kt.data(), E, keys(i0 + rows - 1), scale, s.data(), ld);
          for (int r = 0; r < rows; ++r) {
            const int64_t n = keys(i0 + r);
            float* sr = s.data() + r * ld;
            float* pr = p.data() + r * ld;
            if (mask != nullptr)
              for (int64_t j = 0; j < n; ++j) sr[j] += load_at<T>(*mask, b, i0 + r, j);
            const float m = simd::max(sr, simd::elem::f32, n);
            nan_row[r] = !std::isfinite(m);  // the reference's row of NaN (exp_shifted takes a finite max)
            if (nan_row[r]) {
              std::fill(pr, pr + n, 0.0f);
              sum[r] = 1.0f;
            } else {
              sum[r] = static_cast<float>(simd::exp_shifted(sr, m, pr, n));
            }
          }
          // One call for the tile where its rows' key counts are equal or step by one (causal).
          const int64_t n0 = keys(i0), step = rows > 1 ? keys(i0 + 1) - n0 : 0;
          bool regular = step == 0 || step == 1;
          for (int r = 1; r < rows && regular; ++r) regular = keys(i0 + r) == n0 + r * step;
          if (regular) {
            simd::attention_values(p.data(), ld, rows, vf.data(), Ev, n0, step, Ev, o.data(), Ev);
          } else {
            for (int r = 0; r < rows; ++r)
              simd::attention_values(p.data() + r * ld, ld, 1, vf.data(), Ev, keys(i0 + r), 0, Ev, o.data() + r * Ev,
                                     Ev);
          }
          for (int r = 0; r < rows; ++r) {
            T* orow = po + b * out.strides[0] + (i0 + r) * out.strides[1];
            for (int64_t e = 0; e < Ev; ++e)
              orow[e * out.strides[2]] = cast<T>(nan_row[r] ? std::numeric_limits<float>::quiet_NaN()
                                                            : o[static_cast<size_t>(r * Ev + e)] / sum[r]);
          }
        }
      });
    });
  }
};

}  // namespace
}  // namespace xd::cpu::fast

namespace xd::cpu {
// An entry of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_scaled_dot_product_attention_fast = fast::fast_kernel<fast::attention_fast>(
    XD_OP_SCALED_DOT_PRODUCT_ATTENTION, "scaled_dot_product_attention.fast", fast::check);
}  // namespace xd::cpu
