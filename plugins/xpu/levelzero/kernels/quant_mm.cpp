// INT_MM and SCALED_MM (quant_mm.cl): the argument struct, checks and grid are the OpenCL
// plugin's (xpu::make_int_mm / make_scaled_mm, xpu::plan_qmm). The SPIR-V modules are built
// without XD_HAS_INT_DOT (a build-time module must load on every device), so int_mm takes the
// plain int multiply-adds here.
#include "kernels/launch.hpp"
#include "kernels/register.hpp"
#include "xpu_quant.hpp"

#include <algorithm>

namespace xd::l0 {

namespace {

template <class SetArgs>
void run_grid(const xd_kernel_call* c, const xpu::qmm_call& call, const char* entry, SetArgs&& set_args) {
  device& dev = call_device(c);
  const int64_t max_y = std::max<int64_t>(dev.max_group_count[1], 1);
  const xpu::qmm_plan plan = xpu::plan_qmm(call.args, kWorkGroup, max_y);
  const uint32_t local[3] = {static_cast<uint32_t>(plan.local[0]), static_cast<uint32_t>(plan.local[1]), 1};
  for (const xpu::gemm_launch& l : plan.launches) {
    launch k(c, "quant_mm", call.a->dtype, entry);
    set_args(k);
    k.value(l.row0);
    const uint64_t groups[3] = {static_cast<uint64_t>(l.groups[0]), static_cast<uint64_t>(l.groups[1]), 1};
    k.run_groups(local, groups);
  }
}

}  // namespace

xd_status run_int_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::qmm_call call = xpu::make_int_mm(c, kBackend);
    run_grid(c, call, xpu::kIntMmEntry,
             [&](launch& k) { k.ptr(*call.out).ptr(*call.a).ptr(*call.b).value(call.args); });
  });
}

xd_status run_scaled_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::qmm_call call = xpu::make_scaled_mm(c, kBackend);
    run_grid(c, call, xpu::kScaledMmEntry, [&](launch& k) {
      k.ptr(*call.out).ptr(*call.a).ptr(*call.b).ptr(*call.scale_a).ptr(*call.scale_b).ptr(*call.bias).value(call.args);
    });
  });
}

}  // namespace xd::l0
