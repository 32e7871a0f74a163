// DLPack (the header Debian ships, DLPACK_VERSION 60): Tensor.__dlpack__, Tensor.__dlpack_device__
// and from_dlpack, zero-copy both ways. The protocol (data-apis.org array API):
//   - the producer's capsule is named "dltensor"; a consumer renames it "used_dltensor" and
//     from then on owns the DLManagedTensor, calling its deleter once it no longer needs the
//     memory; a capsule that dies unconsumed calls the deleter itself;
//   - `stream` tells the producer on which of the consumer's streams the data will be used. The
//     array API defines its values for CUDA and ROCm only; for CPU it must be None. For OpenCL
//     and Level Zero tensors the protocol has no stream values, so the producer synchronises the
//     tensor's device before handing out the memory (stream=None), or not at all when the
//     consumer passes -1 (it synchronises itself).
// Device memory: for kDLOpenCL `data` is the cl_mem handle and `byte_offset` the offset of element
// 0 in it; for kDLOneAPI (Level Zero) a USM device pointer and the offset. Both are only meaningful
// within this process's OpenCL context / Level Zero context, i.e. for xdispatch itself.
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/runtime.hpp>

#include "common.hpp"

#include <Python.h>
#include <dlpack/dlpack.h>
#include <string>
#include <utility>
#include <vector>

namespace xdpy {

namespace {

using xd::Tensor;

// Codes of later DLPack versions that the Debian header (v0.6) lacks: kDLOneAPI (v0.7) and
// kDLBool (v0.8). Their values are fixed by the protocol.
constexpr int kDLOneAPIDevice = 14;
constexpr int kDLBoolCode = 6;
// The header's codes as int: its enums are unsigned, the struct fields uint8_t.
constexpr int kFloat = kDLFloat, kBfloat = kDLBfloat, kInt = kDLInt, kUInt = kDLUInt;
constexpr int kCpu = kDLCPU, kCudaHost = kDLCUDAHost, kOpenCL = kDLOpenCL;

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

// What an exported DLManagedTensor owns: the tensor (its storage stays alive) and the arrays.
struct Exported {
  DLManagedTensor managed{};
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

DLDataType dl_dtype(xd::Dtype d) {
  DLDataType t{};
  t.lanes = 1;
  t.bits = static_cast<uint8_t>(xd::itemsize(d) * 8);
  switch (d) {
    case xd::Dtype::f64:
    case xd::Dtype::f32:
    case xd::Dtype::f16:
      t.code = kDLFloat;
      break;
    case xd::Dtype::bf16:
      t.code = kDLBfloat;
      break;
    case xd::Dtype::i8:
    case xd::Dtype::i32:
    case xd::Dtype::i64:
      t.code = kDLInt;
      break;
    case xd::Dtype::u8:
      t.code = kDLUInt;
      break;
    case xd::Dtype::boolean:
      t.code = static_cast<uint8_t>(kDLBoolCode);
      break;
    default:
      throw xd::DtypeError(std::string("__dlpack__: DLPack has no type code for ") + torch_dtype_name(d));
  }
  return t;
}

xd::Dtype xd_dtype(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kFloat && t.bits == 64) return xd::Dtype::f64;
    if (t.code == kFloat && t.bits == 32) return xd::Dtype::f32;
    if (t.code == kFloat && t.bits == 16) return xd::Dtype::f16;
    if (t.code == kBfloat && t.bits == 16) return xd::Dtype::bf16;
    if (t.code == kInt && t.bits == 8) return xd::Dtype::i8;
    if (t.code == kInt && t.bits == 32) return xd::Dtype::i32;
    if (t.code == kInt && t.bits == 64) return xd::Dtype::i64;
    if (t.code == kUInt && t.bits == 8) return xd::Dtype::u8;
    if (t.code == kDLBoolCode && t.bits == 8) return xd::Dtype::boolean;
  }
  throw xd::DtypeError("from_dlpack: DLPack type (code " + std::to_string(t.code) + ", bits " + std::to_string(t.bits) +
                       ", lanes " + std::to_string(t.lanes) + ") has no xdispatch dtype");
}

// (device_type, device_id) of an xdispatch device: CPU for host memory, OpenCL and oneAPI (Level
// Zero) for those backends; anything else cannot be described to a consumer.
std::pair<int, int> dl_device(xd::Device d) {
  if (d.properties().host_pointers) return {kCpu, 0};
  if (d.backend() == "opencl") return {kOpenCL, d.index()};
  if (d.backend() == "levelzero") return {kDLOneAPIDevice, d.index()};
  throw xd::DeviceError("__dlpack__: DLPack has no device type for " + d.str() + " (backend '" + d.backend() + "')");
}

xd::Device xd_device(DLDevice d) {
  switch (static_cast<int>(d.device_type)) {
    case kCpu:
    case kCudaHost:  // pinned host memory is host memory
      return host_device();
    case kOpenCL:
      return xd::Device::parse("opencl:" + std::to_string(d.device_id));
    case kDLOneAPIDevice:
      return xd::Device::parse("levelzero:" + std::to_string(d.device_id));
    default:
      throw xd::DeviceError("from_dlpack: DLPack device type " + std::to_string(d.device_type) + " (device " +
                            std::to_string(d.device_id) +
                            ") has no xdispatch backend (CPU, OpenCL and oneAPI/Level Zero are taken)");
  }
}

void exported_deleter(DLManagedTensor* self) {
  delete static_cast<Exported*>(self->manager_ctx);  // NOLINT(cppcoreguidelines-owning-memory)
}

// An unconsumed capsule owns the tensor; a consumed one ("used_dltensor") belongs to its consumer.
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

py::capsule to_dlpack(const Tensor& t, const py::object& stream) {
  const auto [type, id] = dl_device(t.device());
  if (type == kCpu) {
    if (!stream.is_none())
      throw xd::ValueError("__dlpack__: stream must be None for a CPU tensor, got " + std::string(py::repr(stream)));
  } else {
    const int64_t s = stream.is_none() ? 0 : stream.cast<int64_t>();
    if (s != 0 && s != -1)
      throw xd::ValueError("__dlpack__: for " + t.device().str() +
                           " stream must be None (synchronise before export) or -1 (do not), got " + std::to_string(s));
    if (s == 0) {
      py::gil_scoped_release nogil;
      xd::synchronize(t.device());
    }
  }
  auto* e = new Exported;  // NOLINT(cppcoreguidelines-owning-memory): freed by exported_deleter
  e->tensor = t;
  for (int64_t d = 0; d < t.dim(); ++d) {
    e->shape.push_back(t.size(d));
    e->strides.push_back(t.stride(d));
  }
  const xd::DataPtr p = xd::data_ptr(t);
  DLTensor& dl = e->managed.dl_tensor;
  dl.data = p.ptr;
  dl.byte_offset = p.offset;
  dl.device = DLDevice{static_cast<DLDeviceType>(type), id};
  dl.ndim = t.dim();
  try {
    dl.dtype = dl_dtype(t.dtype());
  } catch (...) {
    delete e;  // NOLINT(cppcoreguidelines-owning-memory)
    throw;
  }
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  e->managed.manager_ctx = e;
  e->managed.deleter = exported_deleter;
  PyObject* cap = PyCapsule_New(&e->managed, kCapsuleName, capsule_destructor);
  if (cap == nullptr) {
    delete e;  // NOLINT(cppcoreguidelines-owning-memory)
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

// Takes the DLManagedTensor out of a "dltensor" capsule (renaming it, so that its destructor no
// longer frees it) and wraps its memory; the tensor's deleter calls the producer's deleter.
Tensor from_capsule(py::capsule cap) {
  if (!PyCapsule_IsValid(cap.ptr(), kCapsuleName))
    throw xd::ValueError(
        "from_dlpack: expected a capsule named 'dltensor' (a used or foreign capsule cannot be taken)");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), kCapsuleName));
  const DLTensor& dl = managed->dl_tensor;
  const xd::Dtype dtype = xd_dtype(dl.dtype);
  const xd::Device device = xd_device(dl.device);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides(static_cast<size_t>(dl.ndim));
  if (dl.strides != nullptr) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {  // NULL strides: compact row-major
    int64_t step = 1;
    for (int d = dl.ndim - 1; d >= 0; --d) {
      strides[static_cast<size_t>(d)] = step;
      step *= sizes[static_cast<size_t>(d)];
    }
  }
  const uint64_t item = xd::itemsize(dtype);
  void* data = dl.data;
  int64_t storage_offset = 0;
  if (device.properties().host_pointers) {
    data = static_cast<char*>(dl.data) + dl.byte_offset;
  } else {
    if (dl.byte_offset % item != 0)
      throw xd::ValueError("from_dlpack: byte_offset " + std::to_string(dl.byte_offset) +
                           " is not a multiple of the item size " + std::to_string(item));
    storage_offset = static_cast<int64_t>(dl.byte_offset / item);
  }
  // The producer's deleter may drop Python references (NumPy's does, without taking the GIL), and
  // the last tensor may die on a thread that does not hold it.
  auto deleter = [managed](void*) {
    if (managed->deleter == nullptr || !Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    managed->deleter(managed);
  };
  Tensor t = xd::from_blob(data, sizes, strides, dtype, device, deleter, storage_offset);
  // Only now, with the tensor owning it: a failure above leaves the capsule to free it.
  if (PyCapsule_SetName(cap.ptr(), kUsedCapsuleName) != 0) throw py::error_already_set();
  return t;
}

}  // namespace

void bind_dlpack(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  cls.def("__dlpack__", &to_dlpack, py::arg("stream") = py::none(),
          "A 'dltensor' capsule over this tensor's memory (no copy); it keeps the storage alive.");
  cls.def(
      "__dlpack_device__",
      [](const Tensor& t) {
        const auto [type, id] = dl_device(t.device());
        return py::make_tuple(type, id);
      },
      "(device_type, device_id): kDLCPU=1, kDLOpenCL=4, kDLOneAPI=14.");
  m.def(
      "from_dlpack",
      [](py::object obj) {
        if (PyCapsule_CheckExact(obj.ptr())) return from_capsule(py::reinterpret_borrow<py::capsule>(obj));
        if (!py::hasattr(obj, "__dlpack__"))
          throw py::type_error(
              "from_dlpack: expected an object with __dlpack__ (NumPy >= 1.22, PyTorch, xdispatch) or a "
              "'dltensor' capsule, got " +
              std::string(py::str(obj.get_type().attr("__name__"))));
        py::tuple dev = obj.attr("__dlpack_device__")();
        const int type = dev[0].cast<int>();
        // CPU: no stream. OpenCL/oneAPI: the protocol has no stream values; ask the producer to
        // synchronise (None). CUDA/ROCm memory cannot be used here and is refused below.
        if (type != kCpu && type != kCudaHost && type != kOpenCL && type != kDLOneAPIDevice)
          throw xd::DeviceError("from_dlpack: DLPack device type " + std::to_string(type) +
                                " has no xdispatch backend (CPU, OpenCL and oneAPI/Level Zero are taken)");
        return from_capsule(obj.attr("__dlpack__")());
      },
      py::arg("ext_tensor"),
      "A tensor over the memory of any DLPack producer (no copy); it keeps the producer's data alive.");
  m.attr("kDLCPU") = static_cast<int>(kDLCPU);
  m.attr("kDLOpenCL") = static_cast<int>(kDLOpenCL);
  m.attr("kDLOneAPI") = kDLOneAPIDevice;
}

}  // namespace xdpy
