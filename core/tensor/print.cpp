// Printing, PyTorch-like: tensor([[1.0000, 2.0000]], dtype=f32, device=cpu:0).
#include <xd/tensor.hpp>

#include "tensor/tensor_impl.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace xd {

namespace {
constexpr int64_t kEdge = 3;          // elements shown at each end of a long dim
constexpr int64_t kSummarize = 1000;  // summarise tensors with more elements than this

void print_rec(std::string& out, const std::vector<double>& v, const int64_t* sizes, int ndim, int dim, int64_t base,
               const int64_t* strides, Dtype dtype, bool summarize) {
  auto elem = [&](double x) {
    char buf[48];
    if (dtype == Dtype::boolean) {
      out += x != 0 ? "True" : "False";
      return;
    }
    if (is_integral(dtype)) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
    } else if (std::isnan(x)) {
      std::snprintf(buf, sizeof buf, "nan");
    } else if (std::isinf(x)) {
      std::snprintf(buf, sizeof buf, x > 0 ? "inf" : "-inf");
    } else {
      std::snprintf(buf, sizeof buf, "%.4f", x);
    }
    out += buf;
  };
  if (ndim == 0) {
    elem(v[0]);
    return;
  }
  out += "[";
  const int64_t n = sizes[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdge && i == kEdge) {
      out += "..., ";
      i = n - kEdge;
    }
    if (dim == ndim - 1) {
      elem(v[static_cast<size_t>(base + i * strides[dim])]);
    } else {
      print_rec(out, v, sizes, ndim, dim + 1, base + i * strides[dim], strides, dtype, summarize);
    }
    if (i + 1 < n) out += dim == ndim - 1 ? ", " : ",\n" + std::string(static_cast<size_t>(dim) + 8, ' ');
  }
  out += "]";
}
}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const auto& t = impl();
  std::string out = "tensor(";
  const std::vector<double> v = to_vector<double>();
  int64_t strides[kMaxDims];
  int64_t s = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    strides[d] = s;
    s *= t.sizes[d];
  }
  if (t.numel == 0 && t.ndim > 0) {
    out += "[]";
  } else {
    print_rec(out, v, t.sizes, t.ndim, 0, 0, strides, t.dtype, t.numel > kSummarize);
  }
  out += std::string(", dtype=") + dtype_name(t.dtype) + ", device=" + t.device().str() + ")";
  return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace xd
