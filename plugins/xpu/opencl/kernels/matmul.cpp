// MM, ADDMM, BMM, BADDBMM (matmul.cl) as one batched problem with arbitrary strides. The launcher
// picks the register-tiled kernel (128 x 128 tiles) for shapes that fill such tiles and the plain
// tiled kernel for small, skinny or odd ones.
#include "kernels/register.hpp"
#include "xpu_plan.hpp"

namespace xd::ocl {
namespace {

// NVIDIA's OpenCL maps work-group dims 1 and 2 onto a CUDA grid, whose y and z hold 65535 blocks.
constexpr int64_t kMaxGridYZ = 65535;

// The arguments (xpu::make_gemm: checks, the xd_gemm struct) and the kernel choice and grid
// (xpu::plan_gemm) are shared with the Level Zero plugin.
xd_status run_matmul(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::gemm_call call = xpu::make_gemm(c, kBackend);
    device& dev = call_device(c);
    const xpu::gemm_plan plan = xpu::plan_gemm(call.args, static_cast<int64_t>(dev.work_group), kMaxGridYZ);
    const size_t local[3] = {static_cast<size_t>(plan.local[0]), static_cast<size_t>(plan.local[1]),
                             static_cast<size_t>(plan.local[2])};
    for (const xpu::gemm_launch& l : plan.launches) {
      size_t global[3];
      for (int d = 0; d < 3; ++d) global[d] = static_cast<size_t>(l.groups[d]) * local[d];
      const cl_long row0 = l.row0, batch0 = l.batch0;
      launch k(c, {family::matmul, call.out->dtype}, plan.entry);
      k.mem(*call.out).mem(*call.a).mem(*call.b).mem(*call.input).arg(call.args).arg(row0).arg(batch0);
      k.run(3, global, local);
    }
  });
}

}  // namespace

void register_matmul(plugin::registrar& r) {
  add_kernels(r, XD_OP_MM, "opencl.mm", run_matmul, kFloating);
  add_kernels(r, XD_OP_ADDMM, "opencl.addmm", run_matmul, kFloating);
  add_kernels(r, XD_OP_BMM, "opencl.bmm", run_matmul, kFloating);
  add_kernels(r, XD_OP_BADDBMM, "opencl.baddbmm", run_matmul, kFloating);
}

}  // namespace xd::ocl
