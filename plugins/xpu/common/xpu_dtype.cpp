#include "xpu_dtype.hpp"

#include "xpu_call.hpp"
#include "xpu_layout.hpp"

#include <xd/plugin.hpp>

#include <string>

namespace xd::xpu {

bool is_floating(int32_t dtype) {
  return dtype == XD_DTYPE_F64 || dtype == XD_DTYPE_F32 || dtype == XD_DTYPE_F16 || dtype == XD_DTYPE_BF16;
}

int64_t element_size(int32_t dtype, const char* backend) {
  switch (dtype) {
    case XD_DTYPE_F64:
    case XD_DTYPE_I64: return 8;
    case XD_DTYPE_F32:
    case XD_DTYPE_I32: return 4;
    case XD_DTYPE_F16:
    case XD_DTYPE_BF16: return 2;
    case XD_DTYPE_I8:
    case XD_DTYPE_U8:
    case XD_DTYPE_BOOL:
    case XD_DTYPE_F8E4M3FN:
    case XD_DTYPE_F8E5M2: return 1;
    default:
      if (backend != nullptr) invalid(backend, "unknown dtype " + std::to_string(dtype));
      throw plugin::error(XD_ERR_INVALID_ARGUMENT, "unknown dtype " + std::to_string(dtype));
  }
}

int64_t element_offset(const xd_view& v, const char* backend, const char* what) {
  const auto size = static_cast<uint64_t>(element_size(v.dtype));
  if (v.offset % size != 0)
    invalid(backend, std::string(what != nullptr ? what : "a view") + "'s byte offset " + std::to_string(v.offset) +
                         " is not a multiple of its element size");
  if (v.ndim > kMaxDims) invalid(backend, "a view has " + std::to_string(v.ndim) + " dims (at most 8)");
  return static_cast<int64_t>(v.offset / size);
}

}  // namespace xd::xpu
