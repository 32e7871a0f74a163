// What the binding files share: argument conversions between Python values and the C++ API.
#pragma once

#include <xd/device.hpp>
#include <xd/dtype.hpp>
#include <xd/tensor.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <pybind11/pybind11.h>
#include <vector>

namespace xdpy {

namespace py = pybind11;

// Each binding file adds its part of the module.
void bind_errors(py::module_& m);
void bind_runtime(py::module_& m);
void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_numpy(py::module_& m);
void bind_dlpack(py::module_& m);

// A device from an xdispatch.device, a string ("opencl:0") or None (default_device()).
xd::Device to_device(py::handle h);
// Sizes from `args`: either several ints (t.view(2, 3)) or one sequence of ints (t.view((2, 3))).
std::vector<int64_t> int_args(const py::args& args, const char* what);
// One sequence of ints or a single int (dim=1 and dim=(0, 1) alike).
std::vector<int64_t> int_list(py::handle h, const char* what);
// A 0-d tensor of `like`'s dtype and device holding a Python number, or `h` itself when it is a
// tensor: what lets t + 1.0 and add(t, 2) work. There is no type promotion (include/xd/ops.hpp).
xd::Tensor tensor_or_scalar(py::handle h, const xd::Tensor& like);
// Whether tensor_or_scalar takes `h` (a tensor, bool, int or float); == and != answer
// NotImplemented for anything else.
bool is_tensor_or_number(py::handle h);

// The numpy-like dtype name of each Dtype as PyTorch spells it (float32, bfloat16, bool, ...).
const char* torch_dtype_name(xd::Dtype d);

// A CPU (host-memory) device to wrap host memory: xd::cpu().
xd::Device host_device();

// Takes ownership of a Python reference for a C++ deleter: dropping it later, from any thread,
// acquires the GIL first, and does nothing once the interpreter is gone (process exit).
std::function<void(void*)> release_with_gil(py::object owner);

}  // namespace xdpy
