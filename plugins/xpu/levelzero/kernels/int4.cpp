// WEIGHT_INT4_MM and QUANTIZE_INT4 (int4.cl): checks, arguments and the kernel and grid choice are
// the OpenCL plugin's (xpu_int4.hpp). The gemv kernels run kWorkGroup work-items per group, the
// size the SPIR-V was compiled for; the tiled grid is cut at the device's maxGroupCountY.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_int4.hpp"

#include <algorithm>

namespace xd::l0 {

xd_status run_int4_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::int4_mm_call call = xpu::make_int4_mm(c, kBackend);
    device& dev = call_device(c);
    const int64_t max_y = std::max<int64_t>(dev.max_group_count[1], 1);
    const xpu::int4_plan plan = xpu::plan_int4_mm(call.args, kWorkGroup, max_y);
    const uint32_t local[3] = {static_cast<uint32_t>(plan.local[0]), static_cast<uint32_t>(plan.local[1]), 1};
    for (const xpu::int4_launch& l : plan.launches) {
      launch k(c, "int4", call.x->dtype, plan.entry);
      k.ptr(*call.out).ptr(*call.x).ptr(*call.w).ptr(*call.s).ptr(*call.z).value(call.args);
      if (!plan.gemv) k.value(l.row0);
      const uint64_t groups[3] = {static_cast<uint64_t>(l.groups[0]), static_cast<uint64_t>(l.groups[1]), 1};
      k.run_groups(local, groups);
    }
  });
}

xd_status run_quantize_int4(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::quantize_int4_call call = xpu::make_quantize_int4(c, kBackend);
    launch k(c, "int4", call.w->dtype, "xd_quantize_int4");
    k.ptr(*call.packed).ptr(*call.s).ptr(*call.z).ptr(*call.w).value(call.args);
    k.run(static_cast<uint64_t>(call.items));
  });
}

}  // namespace xd::l0
