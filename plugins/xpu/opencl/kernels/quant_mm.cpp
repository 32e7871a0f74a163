// INT_MM and SCALED_MM (quant_mm.cl). The argument struct, the checks and the grid
// (xpu::make_int_mm / make_scaled_mm, xpu::plan_qmm) are shared with the Level Zero plugin; the
// int_mm module is built with -DXD_HAS_INT_DOT on a device with cl_khr_integer_dot_product.
#include "kernels/register.hpp"
#include "xpu_quant.hpp"

namespace xd::ocl {
namespace {

// As matmul.cpp: NVIDIA's OpenCL maps work-group dim 1 onto a CUDA grid dim of 65535 blocks.
constexpr int64_t kMaxGridY = 65535;

template <class SetArgs>
void run_grid(const xd_kernel_call* c, const xpu::qmm_call& call, const char* entry, SetArgs&& set_args) {
  device& dev = call_device(c);
  const xpu::qmm_plan plan = xpu::plan_qmm(call.args, static_cast<int64_t>(dev.work_group), kMaxGridY);
  const size_t local[2] = {static_cast<size_t>(plan.local[0]), static_cast<size_t>(plan.local[1])};
  for (const xpu::gemm_launch& l : plan.launches) {
    const size_t global[2] = {static_cast<size_t>(l.groups[0]) * local[0], static_cast<size_t>(l.groups[1]) * local[1]};
    launch k(c, {family::quant, call.a->dtype}, entry);
    set_args(k);
    k.arg(static_cast<cl_long>(l.row0));
    k.run(2, global, local);
  }
}

xd_status run_int_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::qmm_call call = xpu::make_int_mm(c, kBackend);
    run_grid(c, call, xpu::kIntMmEntry, [&](launch& k) { k.mem(*call.out).mem(*call.a).mem(*call.b).arg(call.args); });
  });
}

xd_status run_scaled_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::qmm_call call = xpu::make_scaled_mm(c, kBackend);
    run_grid(c, call, xpu::kScaledMmEntry, [&](launch& k) {
      k.mem(*call.out).mem(*call.a).mem(*call.b).mem(*call.scale_a).mem(*call.scale_b).mem(*call.bias).arg(call.args);
    });
  });
}

}  // namespace

void register_quant_mm(plugin::registrar& r) {
  add_kernels(r, XD_OP_INT_MM, "opencl.int_mm", run_int_mm, {XD_DTYPE_I8});
  add_kernels(r, XD_OP_SCALED_MM, "opencl.scaled_mm", run_scaled_mm, {XD_DTYPE_F8E4M3FN, XD_DTYPE_F8E5M2});
}

}  // namespace xd::ocl
