// Every public op of include/xd/ops.hpp under PyTorch's name and keyword arguments. The GIL is
// released while an op runs: an op may block (allocation, a device's queue, a host copy).
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "common.hpp"

#include <Python.h>
#include <functional>
#include <optional>
#include <pybind11/stl.h>
#include <string>
#include <tuple>

namespace xdpy {

namespace {

using xd::Tensor;
using release_gil = py::call_guard<py::gil_scoped_release>;

xd::Dtype dtype_or(const py::object& d, xd::Dtype fallback) { return d.is_none() ? fallback : d.cast<xd::Dtype>(); }

std::vector<int64_t> dims_or_all(const py::object& dim) {
  return dim.is_none() ? std::vector<int64_t>{} : int_list(dim, "dim");
}

// Flattens nested Python sequences of numbers into `out`, recording the sizes on the way down;
// every leaf must sit at the same depth and every sequence of one depth have one length.
void flatten(py::handle h, size_t depth, std::vector<int64_t>& sizes, std::vector<double>& out, int& leaf_depth,
             bool& all_int, bool& all_bool) {
  if (py::isinstance<py::sequence>(h) && !py::isinstance<py::str>(h) && !py::isinstance<Tensor>(h)) {
    if (leaf_depth >= 0 && static_cast<int>(depth) >= leaf_depth)
      throw xd::ValueError("tensor(): a sequence where a number was expected at depth " + std::to_string(depth));
    auto seq = py::reinterpret_borrow<py::sequence>(h);
    const auto n = static_cast<int64_t>(seq.size());
    if (sizes.size() == depth) {
      sizes.push_back(n);
    } else if (sizes[depth] != n) {
      throw xd::ValueError("tensor(): the nested sequences have different lengths (expected " +
                           std::to_string(sizes[depth]) + " at depth " + std::to_string(depth) + ", got " +
                           std::to_string(n) + ")");
    }
    for (py::handle item : seq) flatten(item, depth + 1, sizes, out, leaf_depth, all_int, all_bool);
    return;
  }
  if (leaf_depth < 0) leaf_depth = static_cast<int>(depth);
  if (static_cast<int>(depth) != leaf_depth || depth != sizes.size())
    throw xd::ValueError("tensor(): a number where a sequence was expected at depth " + std::to_string(depth));
  if (PyBool_Check(h.ptr())) {
    all_int = false;
  } else if (PyLong_Check(h.ptr())) {
    all_bool = false;
  } else if (PyFloat_Check(h.ptr())) {
    all_int = all_bool = false;
  } else {
    throw py::type_error("tensor(): expected numbers or nested sequences of numbers, got " +
                         std::string(py::str(h.get_type().attr("__name__"))));
  }
  out.push_back(h.cast<double>());
}

Tensor make_tensor(py::handle data, const py::object& dtype, const py::object& device) {
  if (py::isinstance<Tensor>(data)) {
    Tensor t = data.cast<Tensor>().clone();
    if (!dtype.is_none()) t = t.to(dtype.cast<xd::Dtype>());
    if (!device.is_none()) t = t.to(to_device(device));
    return t;
  }
  std::vector<int64_t> sizes;
  std::vector<double> values;
  bool all_int = true, all_bool = true;
  int leaf_depth = -1;
  flatten(data, 0, sizes, values, leaf_depth, all_int, all_bool);
  // PyTorch's inference: bools -> bool, ints -> int64, else float32.
  const xd::Dtype inferred = values.empty() ? xd::Dtype::f32
                             : all_bool     ? xd::Dtype::boolean
                             : all_int      ? xd::Dtype::i64
                                            : xd::Dtype::f32;
  const xd::Dtype d = dtype_or(dtype, inferred);
  const xd::Device dev = to_device(device);
  py::gil_scoped_release nogil;
  // Built as f64 on the host (exact for every int up to 2^53), then converted with the library's
  // own cast rules; int64 data beyond 2^53 goes through int64 to stay exact.
  Tensor host = xd::from_host(values.data(), xd::Dtype::f64, sizes, xd::cpu());
  return host.to(d).to(dev);
}

Tensor make_tensor_int64(py::handle data, const py::object& dtype, const py::object& device) {
  // Python ints beyond 2^53 would lose bits through double: the shape comes from the checked
  // flatten, the values are read again as int64.
  std::vector<int64_t> sizes;
  std::vector<double> unused;
  bool all_int = true, all_bool = true;
  int leaf_depth = -1;
  flatten(data, 0, sizes, unused, leaf_depth, all_int, all_bool);
  std::vector<int64_t> values;
  values.reserve(unused.size());
  std::function<void(py::handle)> walk = [&](py::handle h) {
    if (PyLong_Check(h.ptr())) {
      values.push_back(h.cast<int64_t>());
      return;
    }
    for (py::handle item : py::reinterpret_borrow<py::sequence>(h)) walk(item);
  };
  walk(data);
  const xd::Dtype d = dtype_or(dtype, xd::Dtype::i64);
  const xd::Device dev = to_device(device);
  py::gil_scoped_release nogil;
  Tensor host = xd::from_host(values.data(), xd::Dtype::i64, sizes, xd::cpu());
  return host.to(d).to(dev);
}

bool is_int_nest(py::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (PyLong_Check(h.ptr())) return true;
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h) || py::isinstance<Tensor>(h)) return false;
  auto seq = py::reinterpret_borrow<py::sequence>(h);
  if (seq.size() == 0) return false;
  for (py::handle item : seq)
    if (!is_int_nest(item)) return false;
  return true;
}

xd::GeluApproximate gelu_mode(const std::string& s) {
  if (s == "none") return xd::GeluApproximate::none;
  if (s == "tanh") return xd::GeluApproximate::tanh;
  throw xd::ValueError("gelu: approximate must be 'none' or 'tanh', got '" + s + "'");
}

xd::CastMode cast_mode(const std::string& s) {
  if (s == "standard") return xd::CastMode::standard;
  if (s == "saturate") return xd::CastMode::saturate;
  throw xd::ValueError("cast: mode must be 'standard' or 'saturate', got '" + s + "'");
}

xd::Generator* generator_of(const py::object& g) { return g.is_none() ? nullptr : g.cast<xd::Generator*>(); }

py::object or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

}  // namespace

void bind_ops(py::module_& m) {
  // ---------------------------------------------------------------- creation
  auto creation = [&m](const char* name, Tensor (*f)(xd::IntList, xd::Dtype, xd::Device)) {
    m.def(
        name,
        [f](const py::args& size, const py::object& dtype, const py::object& device) {
          const std::vector<int64_t> s = int_args(size, "size");
          const xd::Dtype d = dtype_or(dtype, xd::Dtype::f32);
          const xd::Device dev = to_device(device);
          py::gil_scoped_release nogil;
          return f(s, d, dev);
        },
        py::arg("dtype") = py::none(), py::arg("device") = py::none());
  };
  creation("empty", [](xd::IntList s, xd::Dtype d, xd::Device v) { return xd::empty(s, d, v); });
  creation("zeros", [](xd::IntList s, xd::Dtype d, xd::Device v) { return xd::zeros(s, d, v); });
  creation("ones", [](xd::IntList s, xd::Dtype d, xd::Device v) { return xd::ones(s, d, v); });
  m.def(
      "full",
      [](py::handle size, double value, const py::object& dtype, const py::object& device) {
        const std::vector<int64_t> s = int_list(size, "size");
        const xd::Dtype d = dtype_or(dtype, xd::Dtype::f32);
        const xd::Device dev = to_device(device);
        py::gil_scoped_release nogil;
        return xd::full(s, value, d, dev);
      },
      py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  m.def(
      "arange",
      [](py::handle start, py::object end, py::handle step, const py::object& dtype, const py::object& device) {
        const bool ints =
            PyLong_Check(start.ptr()) && (end.is_none() || PyLong_Check(end.ptr())) && PyLong_Check(step.ptr());
        const xd::Dtype d = dtype_or(dtype, ints ? xd::Dtype::i64 : xd::Dtype::f32);
        const double lo = end.is_none() ? 0.0 : start.cast<double>();
        const double hi = end.is_none() ? start.cast<double>() : end.cast<double>();
        const double st = step.cast<double>();
        const xd::Device dev = to_device(device);
        py::gil_scoped_release nogil;
        return xd::arange(lo, hi, st, d, dev);
      },
      py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none());
  auto random = [&m](const char* name, bool normal) {
    m.def(
        name,
        [normal](const py::args& size, const py::object& generator, const py::object& dtype, const py::object& device) {
          const std::vector<int64_t> s = int_args(size, "size");
          const xd::Dtype d = dtype_or(dtype, xd::Dtype::f32);
          const xd::Device dev = to_device(device);
          xd::Generator* g = generator_of(generator);
          py::gil_scoped_release nogil;
          return normal ? xd::randn(s, d, dev, g) : xd::rand(s, d, dev, g);
        },
        py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  };
  random("rand", false);
  random("randn", true);
  m.def(
      "tensor",
      [](py::handle data, const py::object& dtype, const py::object& device) {
        if (is_int_nest(data) && (dtype.is_none() || dtype.cast<xd::Dtype>() == xd::Dtype::i64))
          return make_tensor_int64(data, dtype, device);
        return make_tensor(data, dtype, device);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      "A new tensor from a number or nested sequences of numbers (bool, int64 or float32 by default).");

  // ---------------------------------------------------------------- pointwise
  m.def(
      "add",
      [](const Tensor& a, py::handle b, double alpha) {
        Tensor bt = tensor_or_scalar(b, a);
        py::gil_scoped_release nogil;
        return xd::add(a, bt, alpha);
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1.0);
  m.def(
      "sub",
      [](const Tensor& a, py::handle b, double alpha) {
        Tensor bt = tensor_or_scalar(b, a);
        py::gil_scoped_release nogil;
        return xd::sub(a, bt, alpha);
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1.0);
  auto binary = [&m](const char* name, Tensor (*f)(const Tensor&, const Tensor&)) {
    m.def(
        name,
        [f](const Tensor& a, py::handle b) {
          Tensor bt = tensor_or_scalar(b, a);
          py::gil_scoped_release nogil;
          return f(a, bt);
        },
        py::arg("input"), py::arg("other"));
  };
  binary("mul", &xd::mul);
  binary("div", &xd::div);
  binary("eq", &xd::eq);
  binary("lt", &xd::lt);
  binary("gt", &xd::gt);
  binary("ne", &xd::ne);
  binary("ge", &xd::ge);
  binary("le", &xd::le);
  binary("maximum", &xd::maximum);
  binary("minimum", &xd::minimum);
  m.def(
      "pow", [](const Tensor& a, double e) { return xd::pow(a, e); }, py::arg("input"), py::arg("exponent"),
      release_gil());
  m.def(
      "where",
      [](const Tensor& c, const Tensor& a, py::handle b) {
        Tensor bt = tensor_or_scalar(b, a);
        py::gil_scoped_release nogil;
        return xd::where(c, a, bt);
      },
      py::arg("condition"), py::arg("input"), py::arg("other"));
  auto unary = [&m](const char* name, Tensor (*f)(const Tensor&)) { m.def(name, f, py::arg("input"), release_gil()); };
  unary("neg", &xd::neg);
  unary("abs", &xd::abs);
  unary("exp", &xd::exp);
  unary("log", &xd::log);
  unary("sqrt", &xd::sqrt);
  unary("rsqrt", &xd::rsqrt);
  unary("relu", &xd::relu);
  unary("silu", &xd::silu);
  unary("sigmoid", &xd::sigmoid);
  unary("tanh", &xd::tanh);
  unary("floor", &xd::floor);
  m.def(
      "clamp",
      [](const Tensor& a, std::optional<double> min, std::optional<double> max) { return xd::clamp(a, min, max); },
      py::arg("input"), py::arg("min") = py::none(), py::arg("max") = py::none(), release_gil());
  m.def(
      "round", [](const Tensor& a, int64_t decimals) { return xd::round(a, decimals); }, py::arg("input"),
      py::kw_only(), py::arg("decimals") = 0, release_gil());
  m.def(
      "gelu",
      [](const Tensor& a, const std::string& approximate) {
        const xd::GeluApproximate mode = gelu_mode(approximate);
        py::gil_scoped_release nogil;
        return xd::gelu(a, mode);
      },
      py::arg("input"), py::arg("approximate") = "none");

  // ---------------------------------------------------------------- reductions
  auto reduction = [&m](const char* name, Tensor (*f)(const Tensor&, xd::IntList, bool)) {
    m.def(
        name,
        [f](const Tensor& a, const py::object& dim, bool keepdim) {
          const std::vector<int64_t> dims = dims_or_all(dim);
          py::gil_scoped_release nogil;
          return f(a, dims, keepdim);
        },
        py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  };
  reduction("sum", &xd::sum);
  reduction("mean", &xd::mean);
  reduction("amax", &xd::amax);
  reduction("amin", &xd::amin);
  m.def(
      "argmax",
      [](const Tensor& a, const py::object& dim, bool keepdim) {
        py::gil_scoped_release nogil;
        // dim=None: the index into the flattened input, as PyTorch.
        if (dim.is_none()) return xd::argmax(a.reshape({-1}), 0, false);
        return xd::argmax(a, dim.cast<int64_t>(), keepdim);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def(
      "index_select",
      [](const Tensor& a, int64_t dim, const Tensor& index) { return xd::index_select(a, dim, index); },
      py::arg("input"), py::arg("dim"), py::arg("index"), release_gil());
  m.def(
      "gather", [](const Tensor& a, int64_t dim, const Tensor& index) { return xd::gather(a, dim, index); },
      py::arg("input"), py::arg("dim"), py::arg("index"), release_gil());
  // torch.cumsum(input, dim, *, dtype=None); torch.topk(input, k, dim=-1, largest=True, sorted=True),
  // which returns (values, indices).
  m.def(
      "cumsum",
      [](const Tensor& a, int64_t dim, const py::object& dtype) {
        const std::optional<xd::Dtype> d =
            dtype.is_none() ? std::nullopt : std::optional<xd::Dtype>(dtype_or(dtype, xd::Dtype::f32));
        py::gil_scoped_release nogil;
        return xd::cumsum(a, dim, d);
      },
      py::arg("input"), py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none());
  m.def(
      "topk",
      [](const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
        return xd::topk(a, k, dim, largest, sorted);
      },
      py::arg("input"), py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true,
      release_gil());
  // torch.nn.functional.embedding's argument order: the indices first, then the table.
  m.def(
      "embedding",
      [](const Tensor& indices, const Tensor& weight, std::optional<int64_t> padding_idx) {
        return xd::embedding(weight, indices, padding_idx);
      },
      py::arg("input"), py::arg("weight"), py::arg("padding_idx") = py::none(), release_gil());
  m.def(
      "cat", [](const std::vector<Tensor>& tensors, int64_t dim) { return xd::cat(tensors, dim); },
      py::arg("tensors"), py::arg("dim") = 0, release_gil(), "torch.cat (one dtype: no promotion)");
  m.def(
      "stack", [](const std::vector<Tensor>& tensors, int64_t dim) { return xd::stack(tensors, dim); },
      py::arg("tensors"), py::arg("dim") = 0, release_gil(), "torch.stack");
  m.def(
      "softmax", [](const Tensor& a, int64_t dim) { return xd::softmax(a, dim); }, py::arg("input"), py::arg("dim"),
      release_gil());
  m.def(
      "log_softmax", [](const Tensor& a, int64_t dim) { return xd::log_softmax(a, dim); }, py::arg("input"),
      py::arg("dim"), release_gil());

  // torch.nn.functional.scaled_dot_product_attention's signature; dropout is not offered, so a
  // nonzero dropout_p is a ValueError rather than silently ignored.
  m.def(
      "scaled_dot_product_attention",
      [](const Tensor& q, const Tensor& k, const Tensor& v, std::optional<Tensor> attn_mask, double dropout_p,
         bool is_causal, std::optional<double> scale) {
        if (dropout_p != 0.0)
          throw xd::ValueError("scaled_dot_product_attention: dropout_p must be 0 (xdispatch offers no dropout), got " +
                               std::to_string(dropout_p));
        return xd::scaled_dot_product_attention(q, k, v, attn_mask, is_causal, scale);
      },
      py::arg("query"), py::arg("key"), py::arg("value"), py::arg("attn_mask") = py::none(), py::arg("dropout_p") = 0.0,
      py::arg("is_causal") = false, py::kw_only(), py::arg("scale") = py::none(), release_gil());

  // torch.nn.functional.conv2d's signature: stride, padding and dilation an int or a pair, padding
  // also "same" or "valid".
  m.def(
      "conv2d",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, py::handle stride,
         py::handle padding, py::handle dilation, int64_t groups) {
        const std::vector<int64_t> s = int_list(stride, "stride"), d = int_list(dilation, "dilation");
        if (py::isinstance<py::str>(padding)) {
          const std::string mode = padding.cast<std::string>();
          if (mode != "same" && mode != "valid")
            throw xd::ValueError("conv2d: invalid padding string '" + mode + "', should be one of 'valid' or 'same'");
          py::gil_scoped_release unlocked;
          return xd::conv2d(input, weight, bias, s, mode == "same" ? xd::ConvPadding::same : xd::ConvPadding::valid, d,
                            groups);
        }
        const std::vector<int64_t> p = int_list(padding, "padding");
        py::gil_scoped_release unlocked;
        return xd::conv2d(input, weight, bias, s, p, d, groups);
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("groups") = 1);
  // ---------------------------------------------------------------- pooling
  // torch.nn.functional's signatures: kernel_size, stride, padding and dilation an int or a
  // sequence of ints; stride None is the kernel size.
  struct pool_lists {
    std::vector<int64_t> kernel, stride, padding, dilation;
    pool_lists(py::handle k, const py::object& s, py::handle p, py::handle d)
        : kernel(int_list(k, "kernel_size")),
          stride(s.is_none() ? std::vector<int64_t>{} : int_list(s, "stride")),
          padding(int_list(p, "padding")),
          dilation(int_list(d, "dilation")) {}
  };
  const auto max_pool_indices = [](const Tensor& x, py::handle k, const py::object& s, py::handle p, py::handle d,
                                   bool ceil_mode) {
    const pool_lists l(k, s, p, d);
    py::gil_scoped_release nogil;
    return xd::max_pool2d_with_indices(x, l.kernel, l.stride, l.padding, l.dilation, ceil_mode);
  };
  m.def("max_pool2d_with_indices", max_pool_indices, py::arg("input"), py::arg("kernel_size"),
        py::arg("stride") = py::none(), py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("ceil_mode") = false,
        "torch.nn.functional.max_pool2d_with_indices: (out, indices), indices h*W + w in the input plane.");
  m.def(
      "max_pool2d",
      [max_pool_indices](const Tensor& x, py::handle k, const py::object& s, py::handle p, py::handle d, bool ceil_mode,
                         bool return_indices) -> py::object {
        if (return_indices) return py::cast(max_pool_indices(x, k, s, p, d, ceil_mode));
        const pool_lists l(k, s, p, d);
        Tensor out;
        {
          py::gil_scoped_release nogil;
          out = xd::max_pool2d(x, l.kernel, l.stride, l.padding, l.dilation, ceil_mode);
        }
        return py::cast(out);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("dilation") = 1, py::arg("ceil_mode") = false, py::arg("return_indices") = false,
      "torch.nn.functional.max_pool2d: out, or (out, indices) with return_indices.");
  m.def(
      "avg_pool2d",
      [](const Tensor& x, py::handle k, const py::object& s, py::handle p, bool ceil_mode, bool count_include_pad,
         std::optional<int64_t> divisor_override) {
        const pool_lists l(k, s, p, py::int_(1));
        py::gil_scoped_release nogil;
        return xd::avg_pool2d(x, l.kernel, l.stride, l.padding, ceil_mode, count_include_pad, divisor_override);
      },
      py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
      py::arg("ceil_mode") = false, py::arg("count_include_pad") = true, py::arg("divisor_override") = py::none(),
      "torch.nn.functional.avg_pool2d.");

  // ---------------------------------------------------------------- matmul
  m.def("mm", &xd::mm, py::arg("input"), py::arg("mat2"), release_gil());
  m.def("bmm", &xd::bmm, py::arg("input"), py::arg("mat2"), release_gil());
  m.def("addmm", &xd::addmm, py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1.0,
        py::arg("alpha") = 1.0, release_gil());
  m.def("baddbmm", &xd::baddbmm, py::arg("input"), py::arg("batch1"), py::arg("batch2"), py::kw_only(),
        py::arg("beta") = 1.0, py::arg("alpha") = 1.0, release_gil());
  m.def("matmul", &xd::matmul, py::arg("input"), py::arg("other"), release_gil(),
        "torch.matmul: vectors, matrices and broadcast batches (include/xd/ops.hpp).");
  m.def("int_mm", &xd::int_mm, py::arg("input"), py::arg("mat2"), release_gil(), "torch._int_mm");
  m.def(
      "scaled_mm",
      [](const Tensor& a, const Tensor& b, const Tensor& sa, const Tensor& sb, const std::optional<Tensor>& bias,
         xd::Dtype out_dtype,
         bool use_fast_accum) { return xd::scaled_mm(a, b, sa, sb, bias, out_dtype, use_fast_accum); },
      py::arg("input"), py::arg("mat2"), py::arg("scale_a"), py::arg("scale_b"), py::arg("bias") = py::none(),
      py::arg("out_dtype") = xd::Dtype::bf16, py::arg("use_fast_accum") = false, release_gil(),
      "torch._scaled_mm (use_fast_accum: sums at the matrix unit's precision where a backend has one)");
  m.def(
      "cast",
      [](const Tensor& x, xd::Dtype dtype, const std::string& mode) {
        const xd::CastMode cm = cast_mode(mode);
        py::gil_scoped_release nogil;
        return xd::cast(x, dtype, cm);
      },
      py::arg("input"), py::arg("dtype"), py::arg("mode") = "standard");
  m.def("fp8_max", &xd::fp8_max, py::arg("dtype"));

  // ---------------------------------------------------------------- TorchAO workflows (docs/ops/int8.md)
  m.def("quantize_int8", &xd::quantize_int8, py::arg("weight"), release_gil(),
        "(q int8 [N,K], scales [N]): TorchAO's per-channel symmetric int8 weight quantization.");
  m.def("weight_int8_mm", &xd::weight_int8_mm, py::arg("input"), py::arg("weight"), py::arg("scales"), release_gil(),
        "(input @ weight.T) * scales: TorchAO's int8 weight-only linear.");
  m.def("quantize_per_token_int8", &xd::quantize_per_token_int8, py::arg("input"), release_gil(),
        "(q int8, scales f32 [..., 1]): per-token absmax int8 quantization of activations.");
  m.def("int8_dynamic_mm", &xd::int8_dynamic_mm, py::arg("input"), py::arg("weight"), py::arg("scales"),
        release_gil(), "TorchAO's int8 dynamic activation, int8 weight linear (int_mm inside).");
  m.def("quantize_fp8", &xd::quantize_fp8, py::arg("input"), py::arg("dtype") = xd::Dtype::f8e4m3fn,
        py::arg("dim") = py::none(), release_gil(),
        "(fp8 tensor, inverse scale f32): TorchAO's float8 scaling, tensor-wise or along dim, for scaled_mm.");

  // ---------------------------------------------------------------- normalisation
  m.def(
      "rms_norm",
      [](const Tensor& x, py::handle shape, const std::optional<Tensor>& weight, std::optional<double> eps) {
        const std::vector<int64_t> s = int_list(shape, "normalized_shape");
        py::gil_scoped_release nogil;
        return std::get<0>(xd::rms_norm(x, s, weight, eps));
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("eps") = py::none(),
      "torch.nn.functional.rms_norm: the normalised tensor.");
  m.def(
      "rms_norm_with_rstd",
      [](const Tensor& x, py::handle shape, const std::optional<Tensor>& weight, std::optional<double> eps) {
        const std::vector<int64_t> s = int_list(shape, "normalized_shape");
        py::gil_scoped_release nogil;
        return xd::rms_norm(x, s, weight, eps);
      },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("eps") = py::none(),
      "(output, rstd): rstd is what rms_norm_backward takes.");
  m.def(
      "rms_norm_backward",
      [](const Tensor& grad, const Tensor& x, py::handle shape, const Tensor& rstd, const std::optional<Tensor>& weight,
         std::array<bool, 2> mask) {
        const std::vector<int64_t> s = int_list(shape, "normalized_shape");
        Tensor gi, gw;
        {
          py::gil_scoped_release nogil;
          std::tie(gi, gw) = xd::rms_norm_backward(grad, x, s, rstd, weight, mask);
        }
        return py::make_tuple(or_none(gi), or_none(gw));
      },
      py::arg("grad_out"), py::arg("input"), py::arg("normalized_shape"), py::arg("rstd"),
      py::arg("weight") = py::none(), py::arg("output_mask") = std::array<bool, 2>{true, true},
      "(grad_input, grad_weight); an output whose mask bit is False is None.");
  // torch.native_layer_norm; torch.nn.functional.layer_norm is its first output.
  const auto native_layer_norm = [](const Tensor& x, py::handle shape, const std::optional<Tensor>& weight,
                                    const std::optional<Tensor>& bias, double eps) {
    const std::vector<int64_t> s = int_list(shape, "normalized_shape");
    py::gil_scoped_release nogil;
    return xd::layer_norm(x, s, weight, bias, eps);
  };
  m.def("native_layer_norm", native_layer_norm, py::arg("input"), py::arg("normalized_shape"),
        py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("eps") = 1e-5,
        "torch.native_layer_norm: (output, mean, rstd), what layer_norm_backward takes.");
  m.def(
      "layer_norm",
      [native_layer_norm](const Tensor& x, py::handle shape, const std::optional<Tensor>& weight,
                          const std::optional<Tensor>& bias,
                          double eps) { return std::get<0>(native_layer_norm(x, shape, weight, bias, eps)); },
      py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
      py::arg("eps") = 1e-5, "torch.nn.functional.layer_norm: the normalised tensor.");
  m.def(
      "layer_norm_backward",
      [](const Tensor& grad, const Tensor& x, py::handle shape, const Tensor& mean, const Tensor& rstd,
         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::array<bool, 3> mask) {
        const std::vector<int64_t> s = int_list(shape, "normalized_shape");
        Tensor gi, gw, gb;
        {
          py::gil_scoped_release nogil;
          std::tie(gi, gw, gb) = xd::layer_norm_backward(grad, x, s, mean, rstd, weight, bias, mask);
        }
        return py::make_tuple(or_none(gi), or_none(gw), or_none(gb));
      },
      py::arg("grad_out"), py::arg("input"), py::arg("normalized_shape"), py::arg("mean"), py::arg("rstd"),
      py::arg("weight") = py::none(), py::arg("bias") = py::none(),
      py::arg("output_mask") = std::array<bool, 3>{true, true, true},
      "torch.native_layer_norm_backward: (grad_input, grad_weight, grad_bias); an output whose mask bit is False, "
      "or whose parameter is None, is None.");

  // ---------------------------------------------------------------- int4 weight-only
  m.def("weight_int4_mm", &xd::weight_int4_mm, py::arg("input"), py::arg("weight"), py::arg("scales"), py::arg("zeros"),
        py::arg("group_size"), release_gil(), "docs/ops/int4.md");
  m.def("quantize_int4", &xd::quantize_int4, py::arg("weight"), py::arg("group_size"), release_gil(),
        "(packed u8 [N, K/2], scales [K/g, N], zeros i8 [K/g, N])");
  m.def("dequantize_int4", &xd::dequantize_int4, py::arg("packed"), py::arg("scales"), py::arg("zeros"),
        py::arg("group_size"), release_gil(), "w [N, K] in scales' dtype: the inverse of quantize_int4");
}

}  // namespace xdpy
