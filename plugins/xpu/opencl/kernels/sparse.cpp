// CSR_ADDMM and CSR_TO_DENSE (sparse.cl): the arguments and the group size come from the shared
// xpu::make_csr (the Level Zero plugin launches the same way); one work-group per row, rows in
// launches of at most xpu::kCsrRowsPerLaunch.
#include "kernels/register.hpp"
#include "xpu_sparse.hpp"

#include <algorithm>

namespace xd::ocl {
namespace {

xd_status run_csr(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    device& dev = call_device(c);
    const xpu::csr_call k = xpu::make_csr(c, kBackend, static_cast<int64_t>(dev.work_group));
    const bool mm = c->op == XD_OP_CSR_ADDMM;
    const int64_t rows = k.args.batch * k.args.m;
    const size_t local[2] = {static_cast<size_t>(k.group), 1};
    for (int64_t row0 = 0; row0 < rows; row0 += xpu::kCsrRowsPerLaunch) {
      const int64_t n = std::min(xpu::kCsrRowsPerLaunch, rows - row0);
      const size_t global[2] = {static_cast<size_t>(n * k.group), static_cast<size_t>(k.col_blocks)};
      const cl_long first = row0;
      launch l(c, {family::sparse, k.out->dtype}, mm ? "xd_csr_mm" : "xd_csr_to_dense");
      l.mem(*k.out).mem(*k.crow).mem(*k.col).mem(*k.values);
      if (mm) l.mem(*k.b).mem(*k.input);
      l.arg(k.args).arg(first);
      l.run(2, global, local);
    }
  });
}

}  // namespace

void register_sparse(plugin::registrar& r) {
  add_kernels(r, XD_OP_CSR_ADDMM, "opencl.csr_addmm", run_csr, kFloating);
  add_kernels(r, XD_OP_CSR_TO_DENSE, "opencl.csr_to_dense", run_csr, kFloating);
}

}  // namespace xd::ocl
