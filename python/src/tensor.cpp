// xdispatch.Tensor: attributes, views, copies, host access, indexing and operators.
#include <xd/error.hpp>
#include <xd/ops.hpp>

#include "common.hpp"

#include <Python.h>
#include <algorithm>
#include <pybind11/stl.h>
#include <span>
#include <string>

namespace xdpy {

namespace {

using xd::Tensor;
using release_gil = py::call_guard<py::gil_scoped_release>;

py::tuple to_tuple(std::span<const int64_t> s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = s[i];
  return t;
}

// A Python scalar of the tensor's only element: float, int or bool as the dtype is.
py::object item_of(const Tensor& t) {
  const xd::Dtype d = t.dtype();
  if (d == xd::Dtype::boolean) return py::bool_(t.item<bool>());
  if (xd::is_integral(d)) return py::int_(t.item<int64_t>());
  return py::float_(t.item<double>());
}

// Nested lists of the elements (row-major), as torch.Tensor.tolist().
template <class T, class Out>
py::object nest(const std::vector<T>& v, std::span<const int64_t> sizes, size_t dim, size_t& pos) {
  if (dim == sizes.size()) return Out(v[pos++]);
  py::list l;
  for (int64_t i = 0; i < sizes[dim]; ++i) l.append(nest<T, Out>(v, sizes, dim + 1, pos));
  return l;
}

py::object tolist(const Tensor& t) {
  size_t pos = 0;
  const xd::Dtype d = t.dtype();
  if (d == xd::Dtype::boolean) {
    const std::vector<uint8_t> v = t.to_vector<uint8_t>();
    return nest<uint8_t, py::bool_>(v, t.sizes(), 0, pos);
  }
  if (xd::is_integral(d)) return nest<int64_t, py::int_>(t.to_vector<int64_t>(), t.sizes(), 0, pos);
  return nest<double, py::float_>(t.to_vector<double>(), t.sizes(), 0, pos);
}

Tensor squeeze_all(const Tensor& t) {
  Tensor out = t;
  for (int64_t d = out.dim() - 1; d >= 0; --d)
    if (out.size(d) == 1) out = out.squeeze(d);
  return out;
}

// t[index] with ints, slices (positive steps), None and Ellipsis, alone or in a tuple.
Tensor index(const Tensor& t, py::handle idx) {
  py::tuple items = py::isinstance<py::tuple>(idx) ? py::reinterpret_borrow<py::tuple>(idx) : py::make_tuple(idx);
  int consumed = 0;  // dims of `t` the index names (ints and slices)
  for (py::handle it : items)
    if (!it.is_none() && it.ptr() != Py_Ellipsis) ++consumed;
  Tensor out = t;
  int64_t dim = 0;  // the dim of `out` the next item applies to
  bool seen_ellipsis = false;
  for (py::handle it : items) {
    if (it.is_none()) {
      out = out.unsqueeze(dim++);
    } else if (it.ptr() == Py_Ellipsis) {
      if (seen_ellipsis) throw xd::IndexError("an index can only have a single ellipsis ('...')");
      seen_ellipsis = true;
      dim += t.dim() - consumed;
    } else if (PyLong_Check(it.ptr())) {
      if (dim >= out.dim())
        throw xd::IndexError("too many indices for a tensor of dimension " + std::to_string(t.dim()));
      int64_t i = it.cast<int64_t>();
      const int64_t n = out.size(dim);
      if (i < -n || i >= n)
        throw xd::IndexError("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(dim) +
                             " with size " + std::to_string(n));
      if (i < 0) i += n;
      out = out.select(dim, i);
    } else if (PySlice_Check(it.ptr())) {
      if (dim >= out.dim())
        throw xd::IndexError("too many indices for a tensor of dimension " + std::to_string(t.dim()));
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(it.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      if (step <= 0)
        throw xd::ValueError("step must be greater than zero (as in PyTorch), got " + std::to_string(step));
      PySlice_AdjustIndices(static_cast<Py_ssize_t>(out.size(dim)), &start, &stop, step);
      out = out.slice(dim, start, std::max(start, stop), step);
      ++dim;
    } else {
      throw py::type_error(
          "only integers, slices, None and '...' are valid indices (tensor indexing is not "
          "supported), got " +
          std::string(py::str(it.get_type().attr("__name__"))));
    }
  }
  return out;
}

// Dims or sizes from *args: t.permute(1, 0) or t.permute((1, 0)).
std::vector<int64_t> dims_of(const py::args& a, const char* what) { return int_args(a, what); }

Tensor to_any(const Tensor& t, py::handle target, bool non_blocking) {
  if (py::isinstance<xd::Dtype>(target)) return t.to(target.cast<xd::Dtype>());
  const xd::Device d = to_device(target);
  py::gil_scoped_release nogil;
  return t.to(d, non_blocking);
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<Tensor> cls(m, "Tensor",
                         "A strided view of device memory held by reference-counted storage (xd::Tensor). "
                         "Views share memory; copying a Tensor object copies the reference.");
  cls.def_property_readonly("shape", [](const Tensor& t) { return to_tuple(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return to_tuple(t.sizes());
            return py::int_(t.size(dim.cast<int64_t>()));
          },
          py::arg("dim") = py::none())
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return to_tuple(t.strides());
            return py::int_(t.stride(dim.cast<int64_t>()));
          },
          py::arg("dim") = py::none())
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("element_size", [](const Tensor& t) { return xd::itemsize(t.dtype()); })
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("storage_offset", &Tensor::storage_offset)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("is_pinned", &Tensor::is_pinned)
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.size(0);
           })
      // Views.
      .def("view", [](const Tensor& t, const py::args& a) { return t.view(dims_of(a, "view")); })
      .def("reshape", [](const Tensor& t, const py::args& a) { return t.reshape(dims_of(a, "reshape")); })
      .def("permute", [](const Tensor& t, const py::args& a) { return t.permute(dims_of(a, "permute")); })
      .def("expand", [](const Tensor& t, const py::args& a) { return t.expand(dims_of(a, "expand")); })
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("t", &Tensor::t)
      .def_property_readonly("T",
                             [](const Tensor& t) {
                               std::vector<int64_t> dims;
                               for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
                               return t.permute(dims);
                             })
      .def(
          "narrow",
          [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
            return t.slice(dim, start, start + length);
          },
          py::arg("dim"), py::arg("start"), py::arg("length"))
      .def("select", &Tensor::select, py::arg("dim"), py::arg("index"))
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def(
          "squeeze",
          [](const Tensor& t, py::object dim) {
            return dim.is_none() ? squeeze_all(t) : t.squeeze(dim.cast<int64_t>());
          },
          py::arg("dim") = py::none())
      .def("flatten", [](const Tensor& t) { return t.reshape({-1}); })
      // Copies.
      .def("contiguous", &Tensor::contiguous, release_gil())
      .def("clone", &Tensor::clone, release_gil())
      .def("to", &to_any, py::arg("target"), py::arg("non_blocking") = false,
           "to(device) or to(dtype): itself when already there, else a copy.")
      .def(
          "to",
          [](const Tensor& t, py::handle device, xd::Dtype dtype, bool non_blocking) {
            return to_any(t, device, non_blocking).to(dtype);
          },
          py::arg("device"), py::arg("dtype"), py::arg("non_blocking") = false)
      .def(
          "cpu", [](const Tensor& t) { return t.to(xd::cpu()); }, release_gil())
      .def(
          "copy_",
          [](Tensor& t, const Tensor& src, bool non_blocking) -> Tensor& { return t.copy_(src, non_blocking); },
          py::arg("src"), py::arg("non_blocking") = false, release_gil(), py::return_value_policy::reference_internal)
      .def(
          "fill_",
          [](Tensor& t, double value) -> Tensor& { return t.copy_(xd::full({}, value, t.dtype(), t.device())); },
          py::arg("value"), release_gil(), py::return_value_policy::reference_internal)
      .def(
          "pin_memory",
          [](const Tensor& t, py::object device) {
            if (device.is_none()) return t.pin_memory();
            return t.pin_memory(to_device(device));
          },
          py::arg("device") = py::none())
      // Host access.
      .def("item", &item_of)
      .def("tolist", &tolist)
      .def("__float__", [](const Tensor& t) { return t.item<double>(); })
      .def("__int__", [](const Tensor& t) { return t.item<int64_t>(); })
      .def("__bool__", [](const Tensor& t) { return t.item<bool>(); })
      .def("__repr__", &Tensor::str)
      .def("__str__", &Tensor::str)
      // Identity hashing, as torch.Tensor: __eq__ is elementwise.
      .def("__hash__", [](py::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("__getitem__", &index)
      .def("__setitem__", [](const Tensor& t, py::handle idx, py::handle value) {
        Tensor dst = index(t, idx);
        Tensor src = tensor_or_scalar(value, dst);
        py::gil_scoped_release nogil;
        dst.copy_(src);
      });

  // Operators: a Python number on either side becomes a 0-d tensor of the other's dtype; another
  // type raises tensor_or_scalar's TypeError, naming it. == and != (`others_not_implemented`)
  // answer NotImplemented instead, as Python's protocol asks: the other operand's method gets its
  // turn, then Python compares identity, so t == None is False and t != None True, as torch's (and
  // `t in [None, ...]` works).
  auto binary = [&cls](const char* name, const char* rname, Tensor (*f)(const Tensor&, const Tensor&),
                       bool others_not_implemented = false) {
    const auto method = [f, others_not_implemented](bool reflected) {
      return [f, others_not_implemented, reflected](const Tensor& a, py::handle b) -> py::object {
        if (others_not_implemented && !is_tensor_or_number(b))
          return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        Tensor bt = tensor_or_scalar(b, a);
        Tensor out;
        {
          py::gil_scoped_release nogil;
          out = reflected ? f(bt, a) : f(a, bt);
        }
        return py::cast(std::move(out));
      };
    };
    cls.def(name, method(false));
    if (rname != nullptr) cls.def(rname, method(true));
  };
  binary("__add__", "__radd__", [](const Tensor& a, const Tensor& b) { return xd::add(a, b); });
  binary("__sub__", "__rsub__", [](const Tensor& a, const Tensor& b) { return xd::sub(a, b); });
  binary("__mul__", "__rmul__", &xd::mul);
  binary("__truediv__", "__rtruediv__", &xd::div);
  binary("__eq__", nullptr, &xd::eq, true);
  binary("__lt__", nullptr, &xd::lt);
  binary("__gt__", nullptr, &xd::gt);
  binary("__ne__", nullptr, &xd::ne, true);
  binary("__ge__", nullptr, &xd::ge);
  binary("__le__", nullptr, &xd::le);
  // In place: the result is computed, then copied into the tensor's own memory (views see it).
  auto inplace = [&cls](const char* name, Tensor (*f)(const Tensor&, const Tensor&)) {
    cls.def(
        name,
        [f](Tensor& a, py::handle b) -> Tensor& {
          Tensor bt = tensor_or_scalar(b, a);
          py::gil_scoped_release nogil;
          return a.copy_(f(a, bt));
        },
        py::return_value_policy::reference_internal);
  };
  inplace("__iadd__", [](const Tensor& a, const Tensor& b) { return xd::add(a, b); });
  inplace("__isub__", [](const Tensor& a, const Tensor& b) { return xd::sub(a, b); });
  inplace("__imul__", &xd::mul);
  inplace("__itruediv__", &xd::div);
  cls.def(
         "__neg__", [](const Tensor& a) { return xd::neg(a); }, release_gil())
      .def(
          "__abs__", [](const Tensor& a) { return xd::abs(a); }, release_gil())
      .def(
          "__pow__", [](const Tensor& a, double e) { return xd::pow(a, e); }, release_gil())
      .def(
          "__matmul__", [](const Tensor& a, const Tensor& b) { return xd::matmul(a, b); }, release_gil());
}

}  // namespace xdpy
