// SCALED_DOT_PRODUCT_ATTENTION for both XPU variants: the fused kernel of kernels/attention.cl,
// one work-group of kAttentionBlock queries per (batch, query block).
#include "launchers.hpp"
#include "layout.hpp"

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
