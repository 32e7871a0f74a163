// scaled_dot_product_attention (XD_OP_SCALED_DOT_PRODUCT_ATTENTION): meta_attention validates
// shapes, dtypes, devices and the is_causal/attn_mask pair as PyTorch does; the public function
// broadcasts the leading dims, flattens them into one batch dim (a view where the strides allow,
// else a copy) and hands the kernel rank-3 views, with a bool mask already made additive.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"
#include "ops/meta_functions.hpp"
#include "ops/schema.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace xd {

using namespace detail;

namespace detail {

namespace {

constexpr const char* kNames[] = {"query", "key", "value", "attn_mask"};

// Broadcasts the leading `n` dims of `b` (argument `what`) into (out, out_ndim), NumPy rules, as
// broadcast_into does; its ShapeError is reworded to name the argument and the batch dims.
void broadcast_leading(int64_t* out, int& out_ndim, const int64_t* b, int n, const char* name, const char* what) {
  try {
    broadcast_into(out, out_ndim, b, n, name);
  } catch (const ShapeError&) {
    throw ShapeError(std::string(name) + ": the leading (batch) dims of '" + what + "' " + shape_str(b, n) +
                     " do not broadcast with those of the other operands " + shape_str(out, out_ndim) +
                     " (sizes must match or be 1)");
  }
}

}  // namespace

MetaResult meta_attention(const MetaArgs& m) {
  const char* name = m.name;
  const TensorImpl* t[4] = {};
  for (int i = 0; i < 3; ++i) t[i] = &checked_impl(*m.inputs[i], name, kNames[i]);
  if (m.inputs[3] != nullptr) t[3] = &checked_impl(*m.inputs[3], name, kNames[3]);
  const AttentionAttrs& a = attrs_of<AttentionAttrs>(m);
  check_dtype(name, "query", t[0]->dtype, kFloat);
  check_same_dtype(name, "query", *t[0], "key", *t[1]);
  check_same_dtype(name, "query", *t[0], "value", *t[2]);
  for (int i = 1; i < 4; ++i)
    if (t[i] != nullptr) check_same_device(name, "query", *t[0], kNames[i], *t[i]);
  for (int i = 0; i < 3; ++i)
    if (t[i]->ndim < 2)
      throw ShapeError(std::string(name) + ": '" + kNames[i] + "' must have at least 2 dims [..., " +
                       (i == 0   ? "L, E"
                        : i == 1 ? "S, E"
                                 : "S, Ev") +
                       "], got " + std::to_string(t[i]->ndim) + "-d " + shape_str(t[i]->sizes, t[i]->ndim));
  const TensorImpl &q = *t[0], &k = *t[1], &v = *t[2];
  const int64_t L = q.sizes[q.ndim - 2], E = q.sizes[q.ndim - 1];
  const int64_t S = k.sizes[k.ndim - 2], Ev = v.sizes[v.ndim - 1];
  if (k.sizes[k.ndim - 1] != E)
    throw ShapeError(std::string(name) + ": 'key' " + shape_str(k.sizes, k.ndim) +
                     " must have query's embedding size " + std::to_string(E) + " in its last dim (query " +
                     shape_str(q.sizes, q.ndim) + ")");
  if (v.sizes[v.ndim - 2] != S)
    throw ShapeError(std::string(name) + ": 'value' " + shape_str(v.sizes, v.ndim) + " must have key's length " +
                     std::to_string(S) + " in dim -2 (key " + shape_str(k.sizes, k.ndim) + ")");
  int64_t sizes[kMaxDims];
  int nb = 0;
  for (int i = 0; i < 3; ++i) broadcast_leading(sizes, nb, t[i]->sizes, t[i]->ndim - 2, name, kNames[i]);
  if (nb + 2 > kMaxDims) throw ShapeError(std::string(name) + ": more than " + std::to_string(kMaxDims) + " dims");
  if (t[3] != nullptr) {
    const TensorImpl& mask = *t[3];
    if (a.is_causal)
      throw ValueError(std::string(name) +
                       ": attn_mask and is_causal cannot both be set (as in PyTorch); fold the "
                       "causal mask into attn_mask instead");
    if (mask.dtype != Dtype::boolean && mask.dtype != q.dtype)
      throw DtypeError(std::string(name) + ": 'attn_mask' has dtype " + dtype_name(mask.dtype) +
                       ", but it must be bool or query's dtype " + dtype_name(q.dtype));
    // The mask broadcasts to [..., L, S] without growing it (PyTorch adds it in place).
    bool ok = mask.ndim <= nb + 2;
    for (int i = 0; ok && i < mask.ndim; ++i) {
      const int64_t want = i == mask.ndim - 1 ? S : i == mask.ndim - 2 ? L : sizes[nb - (mask.ndim - 2) + i];
      ok = mask.sizes[i] == want || mask.sizes[i] == 1;
    }
    if (!ok) {
      int64_t full[kMaxDims];
      for (int i = 0; i < nb; ++i) full[i] = sizes[i];
      full[nb] = L;
      full[nb + 1] = S;
      throw ShapeError(std::string(name) + ": 'attn_mask' " + shape_str(mask.sizes, mask.ndim) +
                       " does not broadcast to the attention weights' shape " + shape_str(full, nb + 2));
    }
  }
  sizes[nb] = L;
  sizes[nb + 1] = Ev;
  MetaResult r;
  r.device = &q.device_record();
  r.key = q.dtype;
  add_output(r, sizes, nb + 2, q.dtype);
  xd_attrs_attention& ka = r.kernel_attrs.attention;
  ka = xd_attrs_attention{};
  ka.struct_size = sizeof ka;
  // PyTorch's math path scales q and k by sqrt(scale) before the product, so with E = 0 every
  // score is an empty sum, 0, rather than 0 * inf.
  ka.scale = E == 0 ? 0.0 : a.scale.value_or(1.0 / std::sqrt(static_cast<double>(E)));
  ka.is_causal = a.is_causal ? 1 : 0;
  r.has_kernel_attrs = true;
  return r;
}

}  // namespace detail

namespace {

// `t` broadcast to batch + [rows, cols] and viewed as [B, rows, cols]: a view when the strides
// allow (expand gives stride 0, which flattens), else reshape's contiguous copy.
Tensor as_batched(const Tensor& t, const std::vector<int64_t>& batch, int64_t B, int64_t rows, int64_t cols) {
  std::vector<int64_t> full(batch);
  full.push_back(rows);
  full.push_back(cols);
  return t.expand(IntList(full.data(), full.size())).reshape({B, rows, cols});
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, bool is_causal,
                                    std::optional<double> scale) {
  const Tensor* mask_ptr = attn_mask ? &*attn_mask : nullptr;
  const MetaResult m = run_meta(XD_OP_SCALED_DOT_PRODUCT_ATTENTION, "scaled_dot_product_attention",
                                {&query, &key, &value, mask_ptr}, AttentionAttrs{is_causal, scale});
  auto out_impl = allocate_output(m, 0);
  const Tensor out(std::move(out_impl));
  if (out.numel() == 0) return out;
  const int nb = static_cast<int>(out.dim()) - 2;
  std::vector<int64_t> batch(out.sizes().begin(), out.sizes().begin() + nb);
  int64_t B = 1;
  for (int64_t b : batch) B *= b;
  const int64_t L = query.size(-2), E = query.size(-1), S = key.size(-2), Ev = value.size(-1);
  const Tensor q3 = as_batched(query, batch, B, L, E);
  const Tensor k3 = as_batched(key, batch, B, S, E);
  const Tensor v3 = as_batched(value, batch, B, S, Ev);
  std::optional<Tensor> m3;
  if (attn_mask) {
    Tensor additive = *attn_mask;
    // A bool mask becomes PyTorch's own additive form: 0 where true, -inf where false.
    if (additive.dtype() == Dtype::boolean) {
      const Device d = query.device();
      additive = where(additive, zeros({}, query.dtype(), d),
                       full({}, -std::numeric_limits<double>::infinity(), query.dtype(), d));
    }
    m3 = as_batched(additive, batch, B, L, S);
  }
  const Tensor o3 = out.reshape({B, L, Ev});  // contiguous: a view of out
  launch(XD_OP_SCALED_DOT_PRODUCT_ATTENTION, m.key, *m.device,
         {arg(checked(q3)), arg(checked(k3)), arg(checked(v3)), m3 ? arg(checked(*m3)) : arg_absent()},
         {arg(checked(o3))}, m.kernel_attrs_ptr());
  return out;
}

}  // namespace xd
