// RAND and RANDN (random.cl): one work-item per Philox counter block, as the CPU reference maps
// blocks to elements (include/xd/philox.hpp).
#include "kernels/register.hpp"

#include <xd/philox.hpp>

namespace xd::ocl {
namespace {

template <bool Normal>
xd_status run_random(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto& a = need_attrs<xd_attrs_random>(c);
    const xd_view& out = output(c, 0);
    const cl_layout L = make_layout(out.ndim, out.sizes, {operand_of(out)});
    if (L.numel == 0) return;
    cl_scalars s = make_scalars(a.low, a.high);
    // rand scales in float by (high - low) computed in double, as the reference does.
    if (!Normal) s.f[1] = static_cast<float>(a.high - a.low);
    s.u[0] = a.seed;
    s.u[1] = a.offset;
    const uint64_t per = philox::elements_per_block(Normal, out.dtype == XD_DTYPE_F64);
    launch k(c, {family::elementwise, out.dtype}, Normal ? "xd_randn" : "xd_rand");
    k.mem(out).arg(L).arg(s);
    k.run(static_cast<size_t>(philox::blocks_for(static_cast<uint64_t>(L.numel), per)), k.dev().work_group);
  });
}

}  // namespace

void register_random(plugin::registrar& r) {
  add_kernels(r, XD_OP_RAND, "opencl.rand", run_random<false>, kFloating);
  add_kernels(r, XD_OP_RANDN, "opencl.randn", run_random<true>, kFloating);
}

}  // namespace xd::ocl
