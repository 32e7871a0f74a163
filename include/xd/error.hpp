// The one error hierarchy of xdispatch's C++ API. Every function of the public API reports
// failure by throwing one of these; none returns an error code. Each message says what was
// expected, what was given, and what to do about it.
//
//   xd::Error                 base; catch this for "any xdispatch failure"
//   ├─ ShapeError             sizes that do not fit together (matmul inner dims, broadcast, ...)
//   ├─ DtypeError             an element type the op does not accept, or mixed types
//   ├─ DeviceError            tensors on different devices, a device that does not exist
//   │   └─ BackendError       a backend that is unknown or unavailable (message embeds the load report)
//   ├─ IndexError             a dim or index out of range
//   ├─ ValueError             a bad argument value (negative size, bad env var, bad CSR, ...)
//   ├─ LayoutError            a layout the op cannot take (too many dims, overlapping output, ...)
//   ├─ OutOfMemoryError       allocation failed even after freeing the cache (states the sizes)
//   ├─ NotImplementedError    no kernel for (op, backend, dtype) and no fallback enabled
//   ├─ PluginError            a plugin call failed (names the plugin and the call)
//   └─ CompileError           generated code did not build (xd::compile; carries the log and source path)
#pragma once

#include <stdexcept>
#include <string>

namespace xd {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class ShapeError : public Error {
 public:
  using Error::Error;
};
class DtypeError : public Error {
 public:
  using Error::Error;
};
class DeviceError : public Error {
 public:
  using Error::Error;
};
class BackendError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};
class IndexError : public Error {
 public:
  using Error::Error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};
class LayoutError : public Error {
 public:
  using Error::Error;
};
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};
class NotImplementedError : public Error {
 public:
  using Error::Error;
};
class PluginError : public Error {
 public:
  using Error::Error;
};
// Generated code (xd::compile) that the backend could not build: the message carries the
// compiler's log and the path of the source it was given.
class CompileError : public Error {
 public:
  using Error::Error;
};

}  // namespace xd
