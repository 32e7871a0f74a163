// RAND and RANDN (kernels/random.cl) for both XPU variants: one work-item per Philox counter block,
// as the CPU reference maps blocks to elements (include/xd/philox.hpp).
#include <xd/philox.hpp>

#include "launchers.hpp"
#include "layout.hpp"

namespace xd::xpu {

xd_status run_random(const xd_kernel_call* c) {
  return guard(c, [&] {
    const auto& a = plugin::need_attrs<xd_attrs_random>(c);
    const xd_view& out = plugin::output(c, 0);
    const bool normal = c->op == XD_OP_RANDN;
    const layout L = layout_of(out.ndim, out.sizes, {operand_of(out)});
    if (L.numel == 0) return;
    scalars s = make_scalars(a.low, a.high);
    // rand scales in float by (high - low) computed in double, as the reference does.
    if (!normal) s.f[1] = static_cast<float>(a.high - a.low);
    s.u[0] = a.seed;
    s.u[1] = a.offset;
    const uint64_t per = philox::elements_per_block(normal, out.dtype == XD_DTYPE_F64);
    launch k(c, {"random", out.dtype}, normal ? "xd_randn" : "xd_rand");
    k.buffer(out).value(L).value(s);
    k.run_items(philox::blocks_for(static_cast<uint64_t>(L.numel), per));
  });
}

}  // namespace xd::xpu
