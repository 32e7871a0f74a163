// View functions: new sizes/strides over the same storage.
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/tensor.hpp>

#include "tensor/shape.hpp"
#include "tensor/tensor_impl.hpp"

#include <algorithm>

namespace xd {

using detail::make_view;
using detail::normalize_dim;
using detail::shape_str;

namespace {

// Resolves one -1 in `sizes` so that the product equals `numel`.
std::vector<int64_t> infer_sizes(IntList sizes, int64_t numel, const char* op) {
  std::vector<int64_t> out = sizes.vec();
  int infer = -1;
  int64_t prod = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer >= 0) throw ValueError(std::string(op) + ": only one size may be -1, got " + shape_str(out));
      infer = static_cast<int>(i);
    } else if (out[i] < 0) {
      throw ValueError(std::string(op) + ": invalid size " + std::to_string(out[i]) + " in " + shape_str(out));
    } else if (__builtin_mul_overflow(prod, out[i], &prod)) {
      // A wrapped product could equal numel by accident; the size product must be exact.
      throw ShapeError(std::string(op) + ": shape " + shape_str(out) + " has more elements than int64 can count; " +
                       "the tensor has " + std::to_string(numel) + " elements");
    }
  }
  if (infer >= 0) {
    if (prod == 0 || numel % prod != 0)
      throw ShapeError(std::string(op) + ": shape " + shape_str(out) + " is invalid for a tensor of " +
                       std::to_string(numel) + " elements");
    out[static_cast<size_t>(infer)] = numel / prod;
  } else if (prod != numel) {
    throw ShapeError(std::string(op) + ": shape " + shape_str(out) + " is invalid for a tensor of " +
                     std::to_string(numel) + " elements");
  }
  if (out.size() > static_cast<size_t>(kMaxDims))
    throw LayoutError(std::string(op) + ": " + std::to_string(out.size()) + " dims; at most " +
                      std::to_string(kMaxDims));
  return out;
}

// Strides for viewing (old sizes, old strides) as `shape` without copying, or false (PyTorch's
// computeStride: split the old dims into chunks that are contiguous among themselves).
bool view_strides(const detail::TensorImpl& t, const std::vector<int64_t>& shape, int64_t* out) {
  const int n = static_cast<int>(shape.size());
  if (t.numel == 0 || t.ndim == 0) {
    detail::contiguous_strides(shape.data(), n, out, "view");
    return true;
  }
  int view_d = n - 1;
  int64_t chunk_base = t.strides[t.ndim - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int td = t.ndim - 1; td >= 0; --td) {
    tensor_numel *= t.sizes[td];
    if (td == 0 || (t.sizes[td - 1] != 1 && t.strides[td - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<size_t>(view_d)] == 1)) {
        out[view_d] = view_numel * chunk_base;
        view_numel *= shape[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base = t.strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace

Tensor Tensor::view(IntList sizes) const {
  const auto& t = impl();
  const auto shape = infer_sizes(sizes, t.numel, "view");
  int64_t strides[kMaxDims];
  if (!view_strides(t, shape, strides))
    throw ShapeError("view: a tensor of shape " + shape_str(t.sizes, t.ndim) + " with strides " +
                     shape_str(t.strides, t.ndim) + " cannot be viewed as " + shape_str(shape) +
                     " without copying; use reshape() or contiguous().view()");
  return Tensor(make_view(impl_, static_cast<int>(shape.size()), shape.data(), strides, t.storage_offset));
}

Tensor Tensor::reshape(IntList sizes) const {
  const auto& t = impl();
  const auto shape = infer_sizes(sizes, t.numel, "reshape");
  int64_t strides[kMaxDims];
  if (view_strides(t, shape, strides))
    return Tensor(make_view(impl_, static_cast<int>(shape.size()), shape.data(), strides, t.storage_offset));
  return contiguous().view(shape);
}

Tensor Tensor::permute(IntList dims) const {
  const auto& t = impl();
  if (static_cast<int>(dims.size()) != t.ndim)
    throw ValueError("permute: " + std::to_string(dims.size()) + " dims given for a " + std::to_string(t.ndim) +
                     "-d tensor; give each dim once");
  int64_t sizes[kMaxDims], strides[kMaxDims];
  bool seen[kMaxDims] = {};
  for (int i = 0; i < t.ndim; ++i) {
    const int d = normalize_dim(dims[static_cast<size_t>(i)], t.ndim, "permute");
    if (seen[d]) throw ValueError("permute: dim " + std::to_string(d) + " appears twice in " + shape_str(dims.vec()));
    seen[d] = true;
    sizes[i] = t.sizes[d];
    strides[i] = t.strides[d];
  }
  return Tensor(make_view(impl_, t.ndim, sizes, strides, t.storage_offset));
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  const auto& t = impl();
  const int a = normalize_dim(dim0, t.ndim, "transpose"), b = normalize_dim(dim1, t.ndim, "transpose");
  if (t.ndim == 0) return *this;
  int64_t sizes[kMaxDims], strides[kMaxDims];
  std::copy(t.sizes, t.sizes + t.ndim, sizes);
  std::copy(t.strides, t.strides + t.ndim, strides);
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return Tensor(make_view(impl_, t.ndim, sizes, strides, t.storage_offset));
}

Tensor Tensor::t() const {
  const auto& i = impl();
  if (i.ndim > 2)
    throw ValueError("t(): expects a tensor with at most 2 dims, got " + std::to_string(i.ndim) + "; use transpose()");
  return i.ndim < 2 ? *this : transpose(0, 1);
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end, int64_t step) const {
  const auto& t = impl();
  if (t.ndim == 0) throw IndexError("slice: cannot slice a 0-d tensor");
  const int d = normalize_dim(dim, t.ndim, "slice");
  if (step <= 0) throw ValueError("slice: step must be positive, got " + std::to_string(step));
  const int64_t n = t.sizes[d];
  auto clamp = [n](int64_t v) {
    if (v < 0) v += n;
    return std::clamp<int64_t>(v, 0, n);
  };
  const int64_t s = clamp(start), e = std::max(clamp(end), clamp(start));
  int64_t sizes[kMaxDims], strides[kMaxDims];
  std::copy(t.sizes, t.sizes + t.ndim, sizes);
  std::copy(t.strides, t.strides + t.ndim, strides);
  // ceil((e - s) / step) without forming e - s + step, which overflows for a step near INT64_MAX.
  sizes[d] = e == s ? 0 : (e - s - 1) / step + 1;
  // A dim of one element keeps its stride (its stride is never used to step); otherwise
  // step < n, so stride * step stays inside the storage's span.
  if (sizes[d] > 1) strides[d] = t.strides[d] * step;
  return Tensor(make_view(impl_, t.ndim, sizes, strides, t.storage_offset + s * t.strides[d], "slice"));
}

Tensor Tensor::select(int64_t dim, int64_t index) const {
  const auto& t = impl();
  if (t.ndim == 0) throw IndexError("select: cannot index a 0-d tensor");
  const int d = normalize_dim(dim, t.ndim, "select");
  const int64_t n = t.sizes[d];
  if (index < -n || index >= n)
    throw IndexError("select: index " + std::to_string(index) + " is out of range for dim " + std::to_string(d) +
                     " of size " + std::to_string(n));
  if (index < 0) index += n;
  int64_t sizes[kMaxDims], strides[kMaxDims];
  int k = 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (i == d) continue;
    sizes[k] = t.sizes[i];
    strides[k++] = t.strides[i];
  }
  return Tensor(make_view(impl_, t.ndim - 1, sizes, strides, t.storage_offset + index * t.strides[d]));
}

Tensor Tensor::expand(IntList sizes) const {
  const auto& t = impl();
  const int n = static_cast<int>(sizes.size());
  if (n < t.ndim)
    throw ShapeError("expand: the target " + shape_str(sizes.vec()) + " has fewer dims than the tensor " +
                     shape_str(t.sizes, t.ndim));
  if (n > kMaxDims) throw LayoutError("expand: at most " + std::to_string(kMaxDims) + " dims");
  int64_t out_sizes[kMaxDims], out_strides[kMaxDims];
  for (int i = 0; i < n; ++i) {
    const int ti = i - (n - t.ndim);
    const int64_t want = sizes[static_cast<size_t>(i)];
    if (ti < 0) {
      if (want < 0) throw ValueError("expand: -1 is not allowed for a new leading dim (dim " + std::to_string(i) + ")");
      out_sizes[i] = want;
      out_strides[i] = 0;
      continue;
    }
    if (want == -1 || want == t.sizes[ti]) {
      out_sizes[i] = t.sizes[ti];
      out_strides[i] = t.strides[ti];
    } else if (t.sizes[ti] == 1 && want >= 0) {
      out_sizes[i] = want;
      out_strides[i] = 0;
    } else {
      throw ShapeError("expand: cannot expand " + shape_str(t.sizes, t.ndim) + " to " + shape_str(sizes.vec()) +
                       " (dim " + std::to_string(i) + ": size " + std::to_string(t.sizes[ti]) +
                       " is not 1 and differs from " + std::to_string(want) + ")");
    }
  }
  return Tensor(make_view(impl_, n, out_sizes, out_strides, t.storage_offset, "expand"));
}

Tensor Tensor::unsqueeze(int64_t dim) const {
  const auto& t = impl();
  if (t.ndim >= kMaxDims) throw LayoutError("unsqueeze: the tensor already has " + std::to_string(kMaxDims) + " dims");
  const int d = normalize_dim(dim, t.ndim + 1, "unsqueeze");
  int64_t sizes[kMaxDims], strides[kMaxDims];
  int k = 0;
  for (int i = 0; i <= t.ndim; ++i) {
    if (i == d) {
      sizes[i] = 1;
      strides[i] = (d < t.ndim) ? t.sizes[d] * t.strides[d] : 1;
    } else {
      sizes[i] = t.sizes[k];
      strides[i] = t.strides[k++];
    }
  }
  return Tensor(make_view(impl_, t.ndim + 1, sizes, strides, t.storage_offset));
}

Tensor Tensor::squeeze(int64_t dim) const {
  const auto& t = impl();
  const int d = normalize_dim(dim, t.ndim, "squeeze");
  if (t.ndim == 0 || t.sizes[d] != 1) return *this;
  return select(d, 0);
}

}  // namespace xd
