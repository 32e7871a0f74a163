#include "kernels/layout.hpp"

#include <xd/plugin.hpp>

#include <string>

namespace xd::ocl {

cl_layout make_layout(int ndim, const int64_t* sizes, std::initializer_list<operand> ops, uint64_t skip) {
  cl_layout L{};
  if (!xpu::make_layout(L, ndim, sizes, ops, skip))
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: a view has " + std::to_string(ndim) +
                                                     " dims (at most " + std::to_string(kMaxDims) + ")");
  return L;
}

cl_scalars make_scalars(double a, double b, int64_t ia, int64_t ib) { return xpu::make_scalars(a, b, ia, ib); }

}  // namespace xd::ocl
