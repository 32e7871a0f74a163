// The compiled part of the xdispatch Python module (python/xdispatch/__init__.py re-exports it).
#include "common.hpp"

PYBIND11_MODULE(_xdispatch, m) {
  m.doc() = "xdispatch: device-agnostic tensors and ops (C++ core with backend plugins)";
  // Order matters: later parts use the classes the earlier ones register.
  xdpy::bind_errors(m);
  xdpy::bind_runtime(m);
  xdpy::bind_tensor(m);
  xdpy::bind_ops(m);
  xdpy::bind_numpy(m);
  xdpy::bind_dlpack(m);
}
