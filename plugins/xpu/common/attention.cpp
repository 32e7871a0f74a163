// SCALED_DOT_PRODUCT_ATTENTION for both XPU variants: the fused kernel of kernels/attention.cl,
// one work-group of kAttentionBlock queries per (batch, query block); on NVIDIA devices that build
// the tensor-core kernels, f16/bf16 calls of head dim 64 or 128 without a mask take
// kernels/attention_mma.cl's FlashAttention-2 kernel instead (mma_takes).
#include "launchers.hpp"
#include "layout.hpp"

#include <cstdint>
#include <string>

namespace xd::xpu {

namespace {

// attention.cl's XD_ATT_BM and XD_ATT_DMAX.
constexpr int64_t kAttentionBlock = 32;
constexpr int64_t kAttentionMaxHeadDim = 128;

// attention.cl's xd_att_args, field for field (all 64-bit, so both sides lay it out alike).
struct attention_args {
  int64_t L, S, E, Ev, q_blocks, has_mask, causal;
  int64_t q[4], k[4], v[4], m[4], o[4];  // element offset, then the strides of [B, rows, cols]
};

void view_into(int64_t* dst, const xd_view& v, const char* what) {
  dst[0] = element_offset(v, what);
  for (int d = 0; d < 3; ++d) dst[1 + d] = v.strides[d];
}

// attention_mma.cl's xd_fa_args, field for field.
struct attention_mma_args {
  int64_t L, S, q_blocks, causal;
  int64_t q[3], k[3], v[3], o[3];  // element offset, batch stride, row stride (the last dim is dense)
  float scale_log2, pad = 0;
};
constexpr int64_t kMmaBlock = 64;  // attention_mma.cl's XD_FA_BM

// Whether attention_mma.cl's tensor-core kernel takes the call: an NVIDIA device that builds it,
// f16 or bf16, E == Ev in {64, 128}, no mask, S > 0, every view dense along its last dim with the
// other strides and the offsets multiples of 8 elements (16-byte copies), and at most
// INT32_MAX - 128 queries and keys (the kernel counts rows, and one block or tile past them, in
// 32 bits).
bool mma_takes(const xd_kernel_call* c, const xd_view& q, const xd_view& k, const xd_view& v, const xd_view* mask,
               const xd_view& out) {
  if (!device_of(c).matmul_mma || (q.dtype != XD_DTYPE_F16 && q.dtype != XD_DTYPE_BF16) || mask != nullptr)
    return false;
  const int64_t E = q.sizes[2];
  constexpr int64_t kMaxRows = INT32_MAX - 128;
  if ((E != 64 && E != 128) || v.sizes[2] != E || k.sizes[1] == 0 || q.sizes[1] > kMaxRows || k.sizes[1] > kMaxRows)
    return false;
  for (const xd_view* w : {&q, &k, &v, &out})
    if ((w->strides[2] != 1 && w->sizes[2] > 1) || w->strides[1] % 8 != 0 || w->strides[0] % 8 != 0 ||
        element_offset(*w) % 8 != 0)
      return false;
  return true;
}

void run_attention_mma(const xd_kernel_call* c, const xd_view& q, const xd_view& k, const xd_view& v,
                       const xd_view& out, const xd_attrs_attention& attrs) {
  attention_mma_args a{};
  a.L = q.sizes[1];
  a.S = k.sizes[1];
  a.q_blocks = (a.L + kMmaBlock - 1) / kMmaBlock;
  a.causal = attrs.is_causal != 0;
  const auto into = [](int64_t* dst, const xd_view& w) {
    dst[0] = element_offset(w);
    dst[1] = w.strides[0];
    dst[2] = w.strides[1];
  };
  into(a.q, q);
  into(a.k, k);
  into(a.v, v);
  into(a.o, out);
  a.scale_log2 = static_cast<float>(attrs.scale * 1.4426950408889634);  // log2(e)
  launch l(c, {"attention", q.dtype}, q.sizes[2] == 128 ? "xd_attention_mma_d128" : "xd_attention_mma_d64");
  l.buffer(out).buffer(q).buffer(k).buffer(v).value(a);
  l.run(grid::of_groups(static_cast<uint64_t>(q.sizes[0] * a.q_blocks), 128));
}

}  // namespace

int32_t check_attention(const xd_kernel_call* c, char* reason, size_t reason_size) {
  if (const int32_t ok = check_device(c, reason, reason_size); ok != 1) return ok;
  if (c->num_inputs < 3) return plugin::decline(reason, reason_size, "scaled_dot_product_attention: too few inputs");
  const xd_view& q = c->inputs[0];
  const xd_view& v = c->inputs[2];
  if (q.ndim != 3 || v.ndim != 3) return 1;  // the launcher reports malformed views
  if (q.sizes[2] > kAttentionMaxHeadDim || v.sizes[2] > kAttentionMaxHeadDim)
    return plugin::decline(reason, reason_size,
                           "scaled_dot_product_attention: head dims above " + std::to_string(kAttentionMaxHeadDim) +
                               " (E = " + std::to_string(q.sizes[2]) + ", Ev = " + std::to_string(v.sizes[2]) +
                               ") do not fit the fused kernel's registers and 32 KiB local tiles");
  return 1;
}

xd_status run_attention(const xd_kernel_call* c) {
  return guard(c, [&] {
    const xd_view& q = plugin::input(c, 0);
    const xd_view& k = plugin::input(c, 1);
    const xd_view& v = plugin::input(c, 2);
    const xd_view* mask = plugin::optional_input(c, 3);
    const xd_view& out = plugin::output(c, 0);
    const xd_attrs_attention& attrs = plugin::need_attrs<xd_attrs_attention>(c);
    for (const xd_view* w : {&q, &k, &v, &out})
      if (w->ndim != 3) plugin::invalid("scaled_dot_product_attention: every view must be rank 3 [B, rows, cols]");
    const int64_t B = q.sizes[0], L = q.sizes[1], E = q.sizes[2], S = k.sizes[1], Ev = v.sizes[2];
    if (k.sizes[0] != B || v.sizes[0] != B || k.sizes[2] != E || v.sizes[1] != S || out.sizes[0] != B ||
        out.sizes[1] != L || out.sizes[2] != Ev ||
        (mask && (mask->ndim != 3 || mask->sizes[0] != B || mask->sizes[1] != L || mask->sizes[2] != S)))
      plugin::invalid("scaled_dot_product_attention: malformed views");
    for (const xd_view* w : {&k, &v, &out}) plugin::check_dtype(*w, q.dtype, "scaled_dot_product_attention operand");
    if (mask) plugin::check_dtype(*mask, q.dtype, "scaled_dot_product_attention attn_mask");
    if (E > kAttentionMaxHeadDim || Ev > kAttentionMaxHeadDim)
      plugin::invalid("scaled_dot_product_attention: head dims above " + std::to_string(kAttentionMaxHeadDim));
    if (B == 0 || L == 0 || Ev == 0) return;
    if (mma_takes(c, q, k, v, mask, out)) return run_attention_mma(c, q, k, v, out, attrs);
    attention_args a{};
    a.L = L;
    a.S = S;
    a.E = E;
    a.Ev = Ev;
    a.q_blocks = (L + kAttentionBlock - 1) / kAttentionBlock;
    a.has_mask = mask != nullptr;
    a.causal = attrs.is_causal != 0;
    view_into(a.q, q, "query");
    view_into(a.k, k, "key");
    view_into(a.v, v, "value");
    if (mask) view_into(a.m, *mask, "attn_mask");
    view_into(a.o, out, "out");
    launch l(c, {"attention", q.dtype}, "xd_attention");
    // An absent mask is never read (has_mask 0); q's buffer stands in for the argument.
    l.buffer(out).buffer(q).buffer(k).buffer(v).buffer(mask ? *mask : q).value(a);
    if (q.dtype == XD_DTYPE_F64)
      l.value(attrs.scale);
    else
      l.value(static_cast<float>(attrs.scale));
    l.run(grid::of_groups(static_cast<uint64_t>(B * a.q_blocks), kAttentionBlock));
  });
}

}  // namespace xd::xpu
