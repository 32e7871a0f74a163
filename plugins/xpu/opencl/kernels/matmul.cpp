// MM, ADDMM, BMM, BADDBMM (matmul.cl) as one batched problem with arbitrary strides. The launcher
// picks the register-tiled kernel (128 x 128 tiles) for shapes that fill such tiles and the plain
// tiled kernel for small, skinny or odd ones.
#include "kernels/register.hpp"

#include <algorithm>
#include <cstring>

namespace xd::ocl {
namespace {

// Field for field as xd_gemm in matmul.cl (8-byte fields, then two floats).
struct cl_gemm {
  cl_long m, n, k, batch;
  cl_long a_off, a_b, a_m, a_k;
  cl_long b_off, b_b, b_k, b_n;
  cl_long c_off, c_b, c_m, c_n;
  cl_long i_off, i_b, i_m, i_n;
  cl_long has_input;
  cl_long alpha_d, beta_d;
  cl_float alpha_f, beta_f;
};
static_assert(sizeof(cl_gemm) == 192);

// NVIDIA's OpenCL maps work-group dims 1 and 2 onto a CUDA grid, whose y and z hold 65535 blocks.
constexpr int64_t kMaxGridYZ = 65535;

void check_rank(const xd_view& v, int rank, const char* what) {
  if (v.ndim != rank) invalid(std::string(what) + " must have rank " + std::to_string(rank));
}

xd_status run_matmul(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const bool batched = c->op == XD_OP_BMM || c->op == XD_OP_BADDBMM;
    const bool with_input = c->op == XD_OP_ADDMM || c->op == XD_OP_BADDBMM;
    const int first = with_input ? 1 : 0;
    const xd_view& a = input(c, first);
    const xd_view& b = input(c, first + 1);
    const xd_view& out = output(c, 0);
    const int rank = batched ? 3 : 2;
    check_rank(a, rank, "matmul operand a");
    check_rank(b, rank, "matmul operand b");
    check_rank(out, rank, "matmul output");
    const int o = batched ? 1 : 0;
    cl_gemm g{};
    g.batch = batched ? a.sizes[0] : 1;
    g.m = a.sizes[o];
    g.k = a.sizes[o + 1];
    g.n = b.sizes[o + 1];
    if (b.sizes[o] != g.k || out.sizes[o] != g.m || out.sizes[o + 1] != g.n ||
        (batched && (b.sizes[0] != g.batch || out.sizes[0] != g.batch)))
      invalid("matmul shapes do not agree");
    if (a.dtype != out.dtype || b.dtype != out.dtype) invalid("matmul operands and output must share a dtype");
    g.a_off = elem_offset(a), g.a_m = a.strides[o], g.a_k = a.strides[o + 1];
    g.b_off = elem_offset(b), g.b_k = b.strides[o], g.b_n = b.strides[o + 1];
    g.c_off = elem_offset(out), g.c_m = out.strides[o], g.c_n = out.strides[o + 1];
    if (batched) g.a_b = a.strides[0], g.b_b = b.strides[0], g.c_b = out.strides[0];
    double alpha = 1, beta = 0;
    const xd_view* in = &out;  // a valid buffer argument when there is no input
    if (with_input) {
      const auto& blas = need_attrs<xd_attrs_blas>(c);
      alpha = blas.alpha;
      beta = blas.beta;
      if (beta != 0) {  // beta == 0: input is not read, so a NaN in it cannot propagate
        in = &input(c, 0);
        check_rank(*in, rank, "matmul input");
        if (in->sizes[o] != g.m || in->sizes[o + 1] != g.n || (batched && in->sizes[0] != g.batch))
          invalid("matmul input must arrive broadcast to the output's shape");
        check_dtype(*in, out.dtype, "matmul input");
        g.has_input = 1;
        g.i_off = elem_offset(*in), g.i_m = in->strides[o], g.i_n = in->strides[o + 1];
        if (batched) g.i_b = in->strides[0];
      }
    }
    std::memcpy(&g.alpha_d, &alpha, 8);
    std::memcpy(&g.beta_d, &beta, 8);
    g.alpha_f = static_cast<float>(alpha);
    g.beta_f = static_cast<float>(beta);
    if (g.batch == 0 || g.m == 0 || g.n == 0) return;

    device& dev = call_device(c);
    const bool big = dev.work_group >= 256 && (g.m >= 128 || g.n >= 128) && g.m >= 32 && g.n >= 32 && g.k >= 8;
    const int64_t tile = big ? 128 : (dev.work_group >= 256 ? 16 : dev.work_group >= 64 ? 8 : 4);
    const size_t local[3] = {big ? 16u : static_cast<size_t>(tile), big ? 16u : static_cast<size_t>(tile), 1};
    const int64_t rows_per_launch = kMaxGridYZ * tile;
    for (int64_t b0 = 0; b0 < g.batch; b0 += kMaxGridYZ) {
      const int64_t nb = std::min(kMaxGridYZ, g.batch - b0);
      for (int64_t r0 = 0; r0 < g.m; r0 += rows_per_launch) {
        const int64_t nr = std::min(rows_per_launch, g.m - r0);
        const size_t global[3] = {static_cast<size_t>((g.n + tile - 1) / tile) * local[0],
                                  static_cast<size_t>((nr + tile - 1) / tile) * local[1], static_cast<size_t>(nb)};
        const cl_long row0 = r0, batch0 = b0;
        launch k(c, {family::matmul, out.dtype}, big ? "xd_gemm_big" : "xd_gemm_tiled");
        k.mem(out).mem(a).mem(b).mem(*in).arg(g).arg(row0).arg(batch0);
        k.run(3, global, local);
      }
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
