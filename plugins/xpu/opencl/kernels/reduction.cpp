// SUM, MEAN, AMAX, AMIN, ARGMAX (reduce.cl). The input's index space is split into the kept dims
// (K, shared with the keepdim output) and the reduced dims (R). Strategy per call:
//  - work-group per output when the reduced elements are dense (the common "last dim" case) or
//    when outputs are too few to fill the device with one work-item each; long ranges are cut
//    into splits whose partials a second kernel combines, so one big sum still uses the whole
//    device;
//  - work-item per output otherwise (reduced dims outside the innermost: neighbouring outputs
//    read neighbouring addresses), and for short floating sums, which then add in the
//    reference's order (in double where the device has fp64, as the reference does).
#include "kernels/register.hpp"

#include <algorithm>
#include <bit>

namespace xd::ocl {
namespace {

enum class red { sum, mean, amax, amin, argmax };

struct red_desc {
  red kind;
  const char* group;
  const char* finish;
  const char* lane;
};

const red_desc k_sum{red::sum, "xd_sum_group", "xd_sum_finish", "xd_sum_lane"};
const red_desc k_mean{red::mean, "xd_mean_group", "xd_mean_finish", "xd_mean_lane"};
const red_desc k_amax{red::amax, "xd_amax_group", "xd_amax_finish", "xd_amax_lane"};
const red_desc k_amin{red::amin, "xd_amin_group", "xd_amin_finish", "xd_amin_lane"};
const red_desc k_argmax{red::argmax, "xd_argmax_group", "xd_argmax_finish", "xd_argmax_lane"};

// Floating sums over at most this many elements take the sequential (work-item per output) path.
constexpr int64_t kSequentialSum = 64;

// Bytes of the compute type of a dtype: float for f32 and narrower, double for f64, long for
// integers (the accumulator of sum/mean/amax/amin and the value half of argmax partials).
size_t compute_size(int32_t dtype) { return dtype == XD_DTYPE_F32 || dtype == XD_DTYPE_F16 || dtype == XD_DTYPE_BF16 ? 4 : 8; }

xd_status run_reduction(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const auto& desc = *static_cast<const red_desc*>(c->user_data);
    const xd_view& in = input(c, 0);
    const xd_view& out = output(c, 0);
    const uint64_t mask = need_attrs<xd_attrs_reduce>(c).dim_mask;
    bool keepdim = out.ndim == in.ndim;
    for (int d = 0; keepdim && d < in.ndim; ++d) keepdim = out.sizes[d] == (((mask >> d) & 1u) ? 1 : in.sizes[d]);
    if (!keepdim) invalid("reduction output must have the input's shape with size 1 on the reduced dims");
    const bool integer = !is_floating(in.dtype);
    if (desc.kind == red::argmax) {
      check_dtype(out, XD_DTYPE_I64, "argmax output");
      if (std::popcount(mask) != 1 || std::countr_zero(mask) >= in.ndim) invalid("argmax reduces exactly one dim");
    } else {
      check_dtype(out, desc.kind == red::sum && integer ? XD_DTYPE_I64 : in.dtype, "reduction output");
    }

    const cl_layout K = make_layout(in.ndim, in.sizes, {operand_of(out), operand_of(in)}, mask);
    const cl_layout R = make_layout(in.ndim, in.sizes, {{in.strides, 0}}, ~mask);
    const int64_t n_out = K.numel, n_red = R.numel;
    if (n_out == 0) return;
    if (n_red == 0 && (desc.kind == red::amax || desc.kind == red::amin || desc.kind == red::argmax))
      invalid("reduction over an empty dim has no identity");
    device& dev = call_device(c);
    const size_t wg = dev.work_group;
    const program_id prog{family::reduce, in.dtype};
    const bool dense = R.ndim == 1 && R.stride[0][0] == 1;
    // Short floating sums run sequentially per output, in the reference's order: with values of
    // very different magnitudes (or that cancel) only the same order gives the same answer.
    const bool sequential = !integer && (desc.kind == red::sum || desc.kind == red::mean) && n_red <= kSequentialSum;
    const bool by_group = n_red > 0 && !sequential && ((dense && n_red >= 32) || n_out < 2048);

    if (!by_group) {
      launch k(c, prog, desc.lane);
      k.mem(out).mem(in).arg(K).arg(R);
      k.run(static_cast<size_t>(n_out), wg);
      return;
    }
    // Enough work-groups to fill the device, each split at least 16 elements per work-item.
    const int64_t target = 4 * static_cast<int64_t>(std::max<uint32_t>(dev.compute_units, 1));
    int64_t splits = 1;
    if (n_out < target) {
      splits = std::min<int64_t>((target + n_out - 1) / n_out, (n_red + 16 * static_cast<int64_t>(wg) - 1) / (16 * static_cast<int64_t>(wg)));
      splits = std::clamp<int64_t>(splits, 1, 1024);
    }
    const cl_long chunk = (n_red + splits - 1) / splits;
    const cl_long nsplits = splits;
    const size_t groups = static_cast<size_t>(n_out * splits);
    const size_t csize = compute_size(in.dtype);

    if (desc.kind == red::argmax) {
      scratch ws{mem_of(out), 0};
      cl_long vo = 0, io = 0;
      if (splits > 1) {
        const uint64_t n = static_cast<uint64_t>(groups);
        ws = workspace(c, n * (csize + 8) + 8);  // + alignment of the index half
        vo = ws.offset / static_cast<cl_long>(csize);
        io = (ws.offset + static_cast<cl_long>(n * csize) + 7) / 8;
      }
      {
        launch k(c, prog, desc.group);
        k.mem(out).mem(in).arg(K).arg(R).arg(nsplits).arg(chunk).mem(ws.mem).arg(vo).mem(ws.mem).arg(io);
        k.run(groups * wg, wg);
      }
      if (splits > 1) {
        launch k(c, prog, desc.finish);
        k.mem(out).mem(ws.mem).arg(vo).mem(ws.mem).arg(io).arg(K).arg(nsplits);
        k.run(static_cast<size_t>(n_out) * wg, wg);
      }
      return;
    }
    // sum/mean accumulate in long (integers) or double (floats, where the device has fp64).
    const bool summing = desc.kind == red::sum || desc.kind == red::mean;
    const size_t asize = summing && (integer || dev.fp64) ? 8 : csize;
    scratch ws{mem_of(out), 0};
    cl_long po = 0;
    if (splits > 1) {
      ws = workspace(c, static_cast<uint64_t>(groups) * asize);
      po = ws.offset / static_cast<cl_long>(asize);
    }
    {
      launch k(c, prog, desc.group);
      k.mem(out).mem(in).arg(K).arg(R).arg(nsplits).arg(chunk).mem(ws.mem).arg(po);
      k.run(groups * wg, wg);
    }
    if (splits > 1) {
      const cl_long n = n_red;
      launch k(c, prog, desc.finish);
      k.mem(out).mem(ws.mem).arg(po).arg(K).arg(nsplits).arg(n);
      k.run(static_cast<size_t>(n_out) * wg, wg);
    }
  });
}

}  // namespace

void register_reduction(plugin::registrar& r) {
  add_kernels(r, XD_OP_SUM, "opencl.sum", run_reduction, kNumeric, const_cast<red_desc*>(&k_sum));
  add_kernels(r, XD_OP_MEAN, "opencl.mean", run_reduction, kFloating, const_cast<red_desc*>(&k_mean));
  add_kernels(r, XD_OP_AMAX, "opencl.amax", run_reduction, kNumeric, const_cast<red_desc*>(&k_amax));
  add_kernels(r, XD_OP_AMIN, "opencl.amin", run_reduction, kNumeric, const_cast<red_desc*>(&k_amin));
  add_kernels(r, XD_OP_ARGMAX, "opencl.argmax", run_reduction, kNumeric, const_cast<red_desc*>(&k_argmax));
}

}  // namespace xd::ocl
