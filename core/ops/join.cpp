// cat and stack: a new tensor filled by copying each input into its slice of the output (one copy
// launch per non-empty input, on the inputs' device). No kernel of their own: a slice of the
// output is a strided view, and copy_ already moves any view on every backend, so the backends'
// copy kernels (and their conformance) carry these two ops.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "ops/meta.hpp"
#include "tensor/shape.hpp"

#include <string>
#include <vector>

namespace xd {

using namespace detail;

namespace {

std::string str(int64_t v) { return std::to_string(v); }

// PyTorch's legacy rule: a 1-d tensor of size 0 may appear in a cat of any rank and adds nothing.
bool legacy_empty(const TensorImpl& t) { return t.ndim == 1 && t.sizes[0] == 0; }

void check_list(const char* op, const std::vector<Tensor>& tensors) {
  if (tensors.empty()) throw ValueError(std::string(op) + ": expected a non-empty list of tensors");
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "cat";
  check_list(op, tensors);
  std::vector<const TensorImpl*> impls;
  impls.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string arg = "tensors[" + std::to_string(i) + "]";
    impls.push_back(&checked_impl(tensors[i], op, arg.c_str()));
  }
  // The first tensor that is not a legacy empty one fixes rank and the other sizes.
  const TensorImpl* ref = impls[0];
  size_t ref_i = 0;
  for (size_t i = 0; i < impls.size(); ++i) {
    if (!legacy_empty(*impls[i])) {
      ref = impls[i];
      ref_i = i;
      break;
    }
  }
  for (size_t i = 0; i < impls.size(); ++i) {
    const TensorImpl& t = *impls[i];
    const std::string arg = "tensors[" + std::to_string(i) + "]";
    const std::string ref_arg = "tensors[" + std::to_string(ref_i) + "]";
    check_same_device(op, arg.c_str(), t, ref_arg.c_str(), *ref);
    check_same_dtype(op, arg.c_str(), t, ref_arg.c_str(), *ref);
    if (t.ndim == 0)
      throw ShapeError(std::string(op) + ": " + arg + " is zero-dimensional and cannot be concatenated " +
                       "(unsqueeze it, or use stack)");
  }
  const int nd = ref->ndim;
  const int d = normalize_dim(dim, nd, op);
  std::vector<int64_t> out_shape(ref->sizes, ref->sizes + nd);
  int64_t total = 0;
  for (size_t i = 0; i < impls.size(); ++i) {
    const TensorImpl& t = *impls[i];
    if (legacy_empty(t) && &t != ref) continue;
    if (t.ndim != nd)
      throw ShapeError(std::string(op) + ": tensors must have the same number of dims: tensors[" + str(ref_i) + "] " +
                       shape_str(ref->sizes, nd) + " is " + str(nd) + "-d but tensors[" + str(static_cast<int64_t>(i)) +
                       "] " + shape_str(t.sizes, t.ndim) + " is " + str(t.ndim) + "-d");
    for (int k = 0; k < nd; ++k) {
      if (k != d && t.sizes[k] != ref->sizes[k])
        throw ShapeError(std::string(op) + ": sizes must match except in dim " + str(d) + ": tensors[" +
                         str(static_cast<int64_t>(i)) + "] " + shape_str(t.sizes, nd) + " differs from tensors[" +
                         str(ref_i) + "] " + shape_str(ref->sizes, nd) + " in dim " + str(k));
    }
    total += t.sizes[d];
  }
  out_shape[static_cast<size_t>(d)] = total;
  Tensor out = empty(IntList(out_shape.data(), out_shape.size()), ref->dtype, ref->device());
  int64_t offset = 0;
  for (size_t i = 0; i < impls.size(); ++i) {
    const TensorImpl& t = *impls[i];
    if (legacy_empty(t) && &t != ref) continue;
    const int64_t n = t.sizes[d];
    if (n > 0 && out.numel() > 0) out.slice(d, offset, offset + n).copy_(tensors[i]);
    offset += n;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "stack";
  check_list(op, tensors);
  const TensorImpl& first = checked_impl(tensors[0], op, "tensors[0]");
  for (size_t i = 1; i < tensors.size(); ++i) {
    const std::string arg = "tensors[" + std::to_string(i) + "]";
    const TensorImpl& t = checked_impl(tensors[i], op, arg.c_str());
    if (t.ndim != first.ndim || !std::equal(t.sizes, t.sizes + t.ndim, first.sizes))
      throw ShapeError(std::string(op) + ": every tensor must have the same shape, but tensors[0] is " +
                       shape_str(first.sizes, first.ndim) + " and " + arg + " is " + shape_str(t.sizes, t.ndim));
  }
  // The new dim may sit after the last one: a dim in [-(ndim + 1), ndim].
  const int d = normalize_dim(dim, first.ndim + 1, op);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat(parts, d);
}

}  // namespace xd
