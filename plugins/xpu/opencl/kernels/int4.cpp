// WEIGHT_INT4_MM and QUANTIZE_INT4 (int4.cl). The checks, the argument struct and the choice of
// kernel and grid (xpu_int4.hpp) are shared with the Level Zero plugin.
#include "kernels/register.hpp"
#include "xpu_int4.hpp"

namespace xd::ocl {
namespace {

// NVIDIA's OpenCL maps work-group dim 1 onto a CUDA grid's y, which holds 65535 blocks.
constexpr int64_t kMaxGridY = 65535;

xd_status run_int4_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::int4_mm_call call = xpu::make_int4_mm(c, kBackend);
    device& dev = call_device(c);
    const xpu::int4_plan plan = xpu::plan_int4_mm(call.args, static_cast<int64_t>(dev.work_group), kMaxGridY);
    const size_t local[2] = {static_cast<size_t>(plan.local[0]), static_cast<size_t>(plan.local[1])};
    for (const xpu::int4_launch& l : plan.launches) {
      const size_t global[2] = {static_cast<size_t>(l.groups[0]) * local[0],
                                static_cast<size_t>(l.groups[1]) * local[1]};
      launch k(c, {family::int4, call.x->dtype}, plan.entry);
      k.mem(*call.out).mem(*call.x).mem(*call.w).mem(*call.s).mem(*call.z).arg(call.args);
      if (!plan.gemv) k.arg(static_cast<cl_long>(l.row0));
      k.run(2, global, local);
    }
  });
}

xd_status run_quantize_int4(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::quantize_int4_call call = xpu::make_quantize_int4(c, kBackend);
    launch k(c, {family::int4, call.w->dtype}, "xd_quantize_int4");
    k.mem(*call.packed).mem(*call.s).mem(*call.z).mem(*call.w).arg(call.args);
    k.run(static_cast<size_t>(call.items), k.dev().work_group);
  });
}

}  // namespace

void register_int4(plugin::registrar& r) {
  add_kernels(r, XD_OP_WEIGHT_INT4_MM, "opencl.weight_int4_mm", run_int4_mm,
              {XD_DTYPE_F32, XD_DTYPE_F16, XD_DTYPE_BF16});
  add_kernels(r, XD_OP_QUANTIZE_INT4, "opencl.quantize_int4", run_quantize_int4, {XD_DTYPE_F32, XD_DTYPE_BF16});
}

}  // namespace xd::ocl
