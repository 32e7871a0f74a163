// Conversions shared by the binding files (common.hpp).
#include "common.hpp"

#include <xd/error.hpp>
#include <xd/ops.hpp>

#include <Python.h>
#include <pybind11/stl.h>
#include <string>

namespace xdpy {

xd::Device to_device(py::handle h) {
  if (h.is_none()) return xd::default_device();
  if (py::isinstance<xd::Device>(h)) return h.cast<xd::Device>();
  if (py::isinstance<py::str>(h)) return xd::Device::parse(h.cast<std::string>());
  throw py::type_error("expected an xdispatch.device or a string such as 'cpu' or 'opencl:0', got " +
                       std::string(py::str(h.get_type().attr("__name__"))));
}

std::vector<int64_t> int_list(py::handle h, const char* what) {
  if (PyLong_Check(h.ptr())) return {h.cast<int64_t>()};
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw py::type_error(std::string(what) + ": expected an int or a sequence of ints, got " +
                         std::string(py::str(h.get_type().attr("__name__"))));
  std::vector<int64_t> out;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(h)) {
    if (!PyLong_Check(item.ptr()))
      throw py::type_error(std::string(what) + ": expected ints, got " +
                           std::string(py::str(item.get_type().attr("__name__"))));
    out.push_back(item.cast<int64_t>());
  }
  return out;
}

std::vector<int64_t> int_args(const py::args& args, const char* what) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return int_list(static_cast<py::handle>(args[0]), what);
  return int_list(static_cast<py::handle>(args), what);
}

namespace {
bool is_number(py::handle h) { return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()); }
}  // namespace

bool is_tensor_or_number(py::handle h) { return py::isinstance<xd::Tensor>(h) || is_number(h); }

xd::Tensor tensor_or_scalar(py::handle h, const xd::Tensor& like) {
  if (py::isinstance<xd::Tensor>(h)) return h.cast<xd::Tensor>();
  if (is_number(h)) return xd::full({}, h.cast<double>(), like.dtype(), like.device());
  throw py::type_error("expected an xdispatch.Tensor or a Python number, got " +
                       std::string(py::str(h.get_type().attr("__name__"))));
}

const char* torch_dtype_name(xd::Dtype d) {
  switch (d) {
    case xd::Dtype::f64:
      return "float64";
    case xd::Dtype::f32:
      return "float32";
    case xd::Dtype::f16:
      return "float16";
    case xd::Dtype::bf16:
      return "bfloat16";
    case xd::Dtype::i8:
      return "int8";
    case xd::Dtype::u8:
      return "uint8";
    case xd::Dtype::i32:
      return "int32";
    case xd::Dtype::i64:
      return "int64";
    case xd::Dtype::boolean:
      return "bool";
    case xd::Dtype::f8e4m3fn:
      return "float8_e4m3fn";
    case xd::Dtype::f8e5m2:
      return "float8_e5m2";
  }
  return "?";
}

xd::Device host_device() { return xd::cpu(); }

std::function<void(void*)> release_with_gil(py::object owner) {
  // A raw reference: std::function needs a copyable target, and py::object's copy would touch the
  // reference count without the GIL wherever the function object is copied.
  PyObject* ref = owner.release().ptr();
  return [ref](void*) {
    if (!Py_IsInitialized()) return;  // at exit, after finalisation: leak rather than crash
    py::gil_scoped_acquire gil;
    Py_DECREF(ref);
  };
}

}  // namespace xdpy
