// CSR_ADDMM and CSR_TO_DENSE (sparse.cl), launched as the OpenCL plugin does (xpu::make_csr):
// one work-group per row along x, column blocks along y, rows in launches of at most
// xpu::kCsrRowsPerLaunch.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_sparse.hpp"

#include <algorithm>

namespace xd::l0 {

xd_status run_csr(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    device& dev = call_device(c);
    const int64_t max_group = std::max<int64_t>(dev.max_group_size, 1);
    const xpu::csr_call k = xpu::make_csr(c, kBackend, max_group);
    const bool mm = c->op == XD_OP_CSR_ADDMM;
    const int64_t rows = k.args.batch * k.args.m;
    const uint32_t local[3] = {static_cast<uint32_t>(k.group), 1, 1};
    for (int64_t row0 = 0; row0 < rows; row0 += xpu::kCsrRowsPerLaunch) {
      const int64_t n = std::min(xpu::kCsrRowsPerLaunch, rows - row0);
      launch l(c, "sparse", k.out->dtype, mm ? "xd_csr_mm" : "xd_csr_to_dense");
      l.ptr(*k.out).ptr(*k.crow).ptr(*k.col).ptr(*k.values);
      if (mm) l.ptr(*k.b).ptr(*k.input);
      l.value(k.args).value(row0);
      const uint64_t groups[3] = {static_cast<uint64_t>(n), static_cast<uint64_t>(k.col_blocks), 1};
      l.run_groups(local, groups);
    }
  });
}

}  // namespace xd::l0
