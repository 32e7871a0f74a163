// SCALED_DOT_PRODUCT_ATTENTION, the reference: per (batch, query row) the scores
// s_j = scale * dot(q_i, k_j) + mask_ij in the compute type C (float for f16/bf16, double for
// f64; each dot product summed in order of e), then the max-subtracted softmax (the row maximum,
// NaN winning; p_j = exp(s_j - max); their sum in C, in order of j) and out = (sum_j p_j v_j) / sum
// in C, rounded once. is_causal leaves out the keys j > i. A row whose maximum is not finite (all
// keys masked, a NaN or +inf score) is NaN by plain IEEE arithmetic, as PyTorch's math path; S = 0
// gives zeros (the empty sums, with no division).
#include "kernels/common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace xd::cpu {
namespace {

bool is_rank3(const xd_view& v) { return v.ndim == 3; }

struct attention_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      using C = compute_t<T>;
      const xd_view& q = input(c, 0);
      const xd_view& k = input(c, 1);
      const xd_view& v = input(c, 2);
      const xd_view* mask = optional_input(c, 3);
      const xd_view& out = output(c, 0);
      const xd_attrs_attention& attrs = need_attrs<xd_attrs_attention>(c);
      if (!is_rank3(q) || !is_rank3(k) || !is_rank3(v) || !is_rank3(out) || (mask && !is_rank3(*mask)))
        invalid("scaled_dot_product_attention: every view must be rank 3 [B, rows, cols]");
      const int64_t B = q.sizes[0], L = q.sizes[1], E = q.sizes[2], S = k.sizes[1], Ev = v.sizes[2];
      if (k.sizes[0] != B || v.sizes[0] != B || k.sizes[2] != E || v.sizes[1] != S || out.sizes[0] != B ||
          out.sizes[1] != L || out.sizes[2] != Ev ||
          (mask && (mask->sizes[0] != B || mask->sizes[1] != L || mask->sizes[2] != S)))
        invalid("scaled_dot_product_attention: malformed views");
      for (const xd_view* w : {&k, &v, &out}) check_dtype(*w, q.dtype, "scaled_dot_product_attention operand");
      if (mask) check_dtype(*mask, q.dtype, "scaled_dot_product_attention attn_mask");
      const C scale = static_cast<C>(attrs.scale);
      const bool causal = attrs.is_causal != 0;
      constexpr int64_t sz = sizeof(T);
      char *pq = data(q), *pk = data(k), *pv = data(v);
      char* pm = mask ? data(*mask) : nullptr;
      char* po = data(out);
      const int64_t grain = std::max<int64_t>(1, kElementGrain / 8 / std::max<int64_t>(1, S * (E + Ev)));
      parallel_for(B * L, grain, [&](int64_t begin, int64_t end) {
        std::vector<C> s(static_cast<size_t>(S)), acc(static_cast<size_t>(Ev));
        for (int64_t row = begin; row < end; ++row) {
          const int64_t b = row / L, i = row % L;
          char* qi = pq + (b * q.strides[0] + i * q.strides[1]) * sz;
          const int64_t keys = causal ? std::min(S, i + 1) : S;
          C max = -std::numeric_limits<C>::infinity();
          for (int64_t j = 0; j < keys; ++j) {
            char* kj = pk + (b * k.strides[0] + j * k.strides[1]) * sz;
            C dot = 0;
            for (int64_t e = 0; e < E; ++e)
              dot += load(at<const T>(qi, e * q.strides[2] * sz)) * load(at<const T>(kj, e * k.strides[2] * sz));
            C x = dot * scale;
            if (pm)
              x += load(at<const T>(pm, (b * mask->strides[0] + i * mask->strides[1] + j * mask->strides[2]) * sz));
            s[static_cast<size_t>(j)] = x;
            if (!std::isnan(max) && (std::isnan(x) || x > max)) max = x;
          }
          C sum = 0;
          std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t j = 0; j < keys; ++j) {
            const C p = std::exp(s[static_cast<size_t>(j)] - max);
            sum += p;
            char* vj = pv + (b * v.strides[0] + j * v.strides[1]) * sz;
            for (int64_t e = 0; e < Ev; ++e)
              acc[static_cast<size_t>(e)] += p * load(at<const T>(vj, e * v.strides[2] * sz));
          }
          char* oi = po + (b * out.strides[0] + i * out.strides[1]) * sz;
          for (int64_t e = 0; e < Ev; ++e)
            at<T>(oi, e * out.strides[2] * sz) = cast<T>(keys == 0 ? C(0) : acc[static_cast<size_t>(e)] / sum);
        }
      });
    });
  }
};

}  // namespace

// Entry of the registration list (kernel_list.cpp).
extern const plugin::kernel_def def_scaled_dot_product_attention =
    typed_kernel<attention_kernel, dtypes::compute_floating>(XD_OP_SCALED_DOT_PRODUCT_ATTENTION,
                                                             "scaled_dot_product_attention");

}  // namespace xd::cpu
