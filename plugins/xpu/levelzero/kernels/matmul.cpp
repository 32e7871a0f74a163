// MM, ADDMM, BMM, BADDBMM (matmul.cl) as one batched problem with arbitrary strides: the argument
// struct (xpu::make_gemm) and the choice between the register-tiled xd_gemm_big (128 x 128 tiles,
// 16 x 16 work-items) and xd_gemm_tiled (XD_GT x XD_GT), with the grid cut into launches along
// rows and batches (xpu::plan_gemm), are the OpenCL plugin's. Level Zero takes the grid as 3-D
// group counts; dims 1 and 2 are cut at the device's maxGroupCountY / maxGroupCountZ.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_plan.hpp"

#include <algorithm>

namespace xd::l0 {

xd_status run_matmul(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::gemm_call call = xpu::make_gemm(c, kBackend);
    const xpu::gemm_args& g = call.args;
    device& dev = call_device(c);
    const int64_t max_yz = std::max<int64_t>(std::min(dev.max_group_count[1], dev.max_group_count[2]), 1);
    const xpu::gemm_plan plan = xpu::plan_gemm(g, kWorkGroup, max_yz);
    const uint32_t local[3] = {static_cast<uint32_t>(plan.local[0]), static_cast<uint32_t>(plan.local[1]),
                               static_cast<uint32_t>(plan.local[2])};
    for (const xpu::gemm_launch& l : plan.launches) {
      launch k(c, "matmul", call.out->dtype, plan.entry);
      k.ptr(*call.out).ptr(*call.a).ptr(*call.b).ptr(*call.input).value(g).value(l.row0).value(l.batch0);
      const uint64_t groups[3] = {static_cast<uint64_t>(l.groups[0]), static_cast<uint64_t>(l.groups[1]),
                                  static_cast<uint64_t>(l.groups[2])};
      k.run_groups(local, groups);
    }
  });
}

}  // namespace xd::l0
