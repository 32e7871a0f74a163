// NumPy exchange: Tensor.numpy() (a view of a CPU tensor's memory that keeps the tensor alive)
// and from_numpy (a tensor over the array's memory that keeps the array alive).
#include <xd/error.hpp>
#include <xd/external.hpp>

#include "common.hpp"

#include <optional>
#include <pybind11/numpy.h>
#include <string>

namespace xdpy {

namespace {

using xd::Tensor;

// NumPy spells the dtypes it has as PyTorch does; bf16 and fp8 it lacks.
std::optional<const char*> numpy_name(xd::Dtype d) {
  if (d == xd::Dtype::bf16 || d == xd::Dtype::f8e4m3fn || d == xd::Dtype::f8e5m2) return std::nullopt;
  return torch_dtype_name(d);
}

xd::Dtype from_numpy_dtype(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 8) return xd::Dtype::f64;
  if (kind == 'f' && size == 4) return xd::Dtype::f32;
  if (kind == 'f' && size == 2) return xd::Dtype::f16;
  if (kind == 'i' && size == 1) return xd::Dtype::i8;
  if (kind == 'i' && size == 4) return xd::Dtype::i32;
  if (kind == 'i' && size == 8) return xd::Dtype::i64;
  if (kind == 'u' && size == 1) return xd::Dtype::u8;
  if (kind == 'b' && size == 1) return xd::Dtype::boolean;
  throw xd::DtypeError("from_numpy: NumPy dtype " + std::string(py::str(static_cast<py::handle>(dt))) +
                       " has no xdispatch dtype (float64/32/16, int8/32/64, uint8, bool)");
}

py::array to_numpy(const Tensor& t) {
  if (!t.device().properties().host_pointers)
    throw xd::DeviceError("numpy(): the tensor is on " + t.device().str() +
                          ", whose memory is not host memory; copy it first: t.cpu().numpy()");
  const auto name = numpy_name(t.dtype());
  if (!name)
    throw xd::DtypeError(std::string("numpy(): NumPy has no ") + torch_dtype_name(t.dtype()) +
                         " dtype; convert first, e.g. t.to(xdispatch.float32).numpy()");
  const py::dtype dt = py::dtype::from_args(py::str(*name));
  std::vector<py::ssize_t> shape, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    shape.push_back(t.size(d));
    strides.push_back(t.stride(d) * static_cast<py::ssize_t>(xd::itemsize(t.dtype())));
  }
  // The capsule owns a reference to the storage: the array (and arrays viewing it) keep it alive.
  auto* keep = new Tensor(t);
  py::capsule base(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(dt, shape, strides, xd::data_ptr(t).ptr, base);
}

Tensor from_numpy(py::array arr) {
  const xd::Dtype dtype = from_numpy_dtype(arr.dtype());
  // As torch.from_numpy: a read-only array is shared all the same (the library has no read-only
  // tensors), with a warning, since a write through the tensor would change memory NumPy promised
  // not to (a bytes object's buffer, a file mapped read-only: a crash).
  if (!arr.writeable() &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "from_numpy: the NumPy array is not writable; the tensor shares its memory all the same, "
                   "and writing through the tensor is undefined. Copy the array first (numpy.array(a)) to "
                   "write to it.",
                   1) != 0)
    throw py::error_already_set();  // the warning was turned into an error (-W error)
  const auto itemsize = static_cast<py::ssize_t>(xd::itemsize(dtype));
  bool direct = arr.dtype().attr("byteorder").cast<std::string>() != ">" &&
                reinterpret_cast<uintptr_t>(arr.data()) % itemsize == 0;
  for (py::ssize_t d = 0; d < arr.ndim(); ++d) direct = direct && arr.strides(d) >= 0 && arr.strides(d) % itemsize == 0;
  // What the library cannot view (negative or odd byte strides, misaligned or byte-swapped data)
  // is copied into a new C-contiguous array first, which the tensor then owns.
  if (!direct)
    arr = py::array::ensure(
        py::module_::import("numpy").attr("ascontiguousarray")(arr, arr.dtype().attr("newbyteorder")("=")));
  std::vector<int64_t> sizes, strides;
  for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
    sizes.push_back(arr.shape(d));
    strides.push_back(arr.strides(d) / itemsize);
  }
  void* data = const_cast<void*>(arr.data());
  try {
    return xd::from_blob(data, sizes, strides, dtype, host_device(), release_with_gil(arr));
  } catch (...) {
    arr.dec_ref();  // release_with_gil took a reference the deleter would have dropped
    throw;
  }
}

}  // namespace

void bind_numpy(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  cls.def("numpy", &to_numpy,
          "A NumPy array over the tensor's memory (CPU tensors; no copy). It keeps the tensor's storage alive.");
  cls.def(
      "__array__",
      [](const Tensor& t, const py::object& dtype) {
        py::object a = to_numpy(t.device().properties().host_pointers ? t : t.to(xd::cpu()));
        return dtype.is_none() ? a : a.attr("astype")(dtype);
      },
      py::arg("dtype") = py::none());
  m.def("from_numpy", &from_numpy, py::arg("ndarray"),
        "A CPU tensor over the array's memory (no copy when the library can view it: non-negative strides "
        "that are multiples of the item size, aligned native-order data; else over a contiguous copy). "
        "The tensor keeps the array alive; writes through either are seen by the other.");
}

}  // namespace xdpy
