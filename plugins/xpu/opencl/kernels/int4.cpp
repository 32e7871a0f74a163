// WEIGHT_INT4_MM and QUANTIZE_INT4 (int4.cl). The checks, the argument struct and the choice of
// kernel and grid (xpu_int4.hpp) are shared with the Level Zero plugin.
#include "kernels/register.hpp"
#include "runtime/host.hpp"
#include "xpu_int4.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xd::ocl {
namespace {

// NVIDIA's OpenCL maps work-group dim 1 onto a CUDA grid's y, which holds 65535 blocks.
constexpr int64_t kMaxGridY = 65535;

// The tensor-core kernel serves f16 and bf16 inputs where the device builds it, unless
// XD_OPENCL_INT4_MMA=0 (to compare with the CUDA-core kernels, which keep the weight in float).
bool use_mma(const device& dev, int32_t dtype) {
  static const bool enabled = [] {
    const char* v = secure_getenv("XD_OPENCL_INT4_MMA");
    if (v == nullptr || *v == '\0' || std::strcmp(v, "1") == 0) return true;
    if (std::strcmp(v, "0") == 0) return false;
    log(XD_LOG_WARN, std::string("XD_OPENCL_INT4_MMA='") + v + "' is neither 0 nor 1; using 1");
    return true;
  }();
  return enabled && dev.nv_mma && (dtype == XD_DTYPE_F16 || dtype == XD_DTYPE_BF16);
}

// XD_OPENCL_INT4_TUNING="lanes,cols,split_k,tiles" replaces xpu::int4_tuning's constants, for
// measuring shapes built with the matching XD_OPENCL_BUILD_OPTIONS (-DXD_I4D_L, -DXD_I4D_R,
// -DXD_I4M_NT; split_k is the mma kernels' work-group size / 32 and needs no rebuild).
const xpu::int4_tuning& tuning() {
  static const xpu::int4_tuning t = [] {
    xpu::int4_tuning r;
    const char* v = secure_getenv("XD_OPENCL_INT4_TUNING");
    if (v == nullptr || *v == '\0') return r;
    long f[4] = {};
    char tail = 0;
    if (std::sscanf(v, "%ld,%ld,%ld,%ld%c", &f[0], &f[1], &f[2], &f[3], &tail) != 4 || f[0] < 1 || f[0] > 256 ||
        f[1] < 1 || f[1] > 64 || f[2] < 1 || f[2] > 32 || f[3] < 1 || f[3] > 16) {
      log(XD_LOG_WARN, std::string("XD_OPENCL_INT4_TUNING='") + v + "' is not lanes,cols,split_k,tiles; ignored");
      return r;
    }
    r.direct_lanes = f[0];
    r.direct_cols = f[1];
    r.mma_split_k = f[2];
    r.mma_tiles = f[3];
    return r;
  }();
  return t;
}

xd_status run_int4_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const xpu::int4_mm_call call = xpu::make_int4_mm(c, kBackend);
    device& dev = call_device(c);
    const xpu::int4_plan plan = xpu::plan_int4_mm(call.args, static_cast<int64_t>(dev.work_group), kMaxGridY,
                                                  use_mma(dev, call.x->dtype), tuning());
    const size_t local[2] = {static_cast<size_t>(plan.local[0]), static_cast<size_t>(plan.local[1])};
    for (const xpu::int4_launch& l : plan.launches) {
      const size_t global[2] = {static_cast<size_t>(l.groups[0]) * local[0],
                                static_cast<size_t>(l.groups[1]) * local[1]};
      launch k(c, {family::int4, call.x->dtype}, plan.entry);
      k.mem(*call.out).mem(*call.x).mem(*call.w).mem(*call.s).mem(*call.z).arg(call.args);
      if (!plan.gemv) k.arg(static_cast<cl_long>(l.row0));
      if (plan.local_bytes > 0) k.local_bytes(static_cast<size_t>(plan.local_bytes));
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
