// INT_MM reference loop: i8 x i8 -> i32, exact, any strides. The oneDNN s8 kernel
// (matmul_dnnl.cpp) is registered above it; the tests disable that one by name ("cpu.int_mm.dnnl")
// and compare the two.
//
// Rows are spread over threads; `b` is first converted once into a dense [K, N] i32 buffer so the
// inner loop is a contiguous multiply-add over a row of out (vectorised by the compiler).
#include "kernels/quant_mm.hpp"

#include <vector>

namespace xd::cpu {

int_mm_problem describe_int_mm(const xd_kernel_call* c) {
  const xd_view& a = input(c, 0);
  const xd_view& b = input(c, 1);
  const xd_view& out = output(c, 0);
  if (a.ndim != 2 || b.ndim != 2 || out.ndim != 2) invalid("int_mm operands and output must have rank 2");
  check_dtype(a, XD_DTYPE_I8, "int_mm operand a");
  check_dtype(b, XD_DTYPE_I8, "int_mm operand b");
  check_dtype(out, XD_DTYPE_I32, "int_mm output");
  int_mm_problem p;
  p.m = a.sizes[0];
  p.k = a.sizes[1];
  p.n = b.sizes[1];
  if (b.sizes[0] != p.k || out.sizes[0] != p.m || out.sizes[1] != p.n) invalid("int_mm shapes do not agree");
  p.a = reinterpret_cast<const int8_t*>(data(a));
  p.b = reinterpret_cast<const int8_t*>(data(b));
  p.out = reinterpret_cast<int32_t*>(data(out));
  p.a_m = a.strides[0], p.a_k = a.strides[1];
  p.b_k = b.strides[0], p.b_n = b.strides[1];
  p.out_m = out.strides[0], p.out_n = out.strides[1];
  return p;
}

void int_mm_loop(const int_mm_problem& p) {
  if (p.m == 0 || p.n == 0) return;
  std::vector<int32_t> bd(static_cast<size_t>(p.k * p.n));
  for (int64_t kk = 0; kk < p.k; ++kk)
    for (int64_t j = 0; j < p.n; ++j) bd[static_cast<size_t>(kk * p.n + j)] = p.b[kk * p.b_k + j * p.b_n];
  const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, p.k * p.n));
  parallel_for(p.m, grain, [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> acc(static_cast<size_t>(p.n));
    for (int64_t i = begin; i < end; ++i) {
      std::fill(acc.begin(), acc.end(), 0u);
      for (int64_t kk = 0; kk < p.k; ++kk) {
        const int32_t av = p.a[i * p.a_m + kk * p.a_k];
        const int32_t* brow = bd.data() + kk * p.n;
        // |av * b| <= 2^14 fits; the sum wraps modulo 2^32, defined for unsigned.
        for (int64_t j = 0; j < p.n; ++j) acc[static_cast<size_t>(j)] += static_cast<uint32_t>(av * brow[j]);
      }
      for (int64_t j = 0; j < p.n; ++j)
        p.out[i * p.out_m + j * p.out_n] = static_cast<int32_t>(acc[static_cast<size_t>(j)]);
    }
  });
}

namespace {
xd_status run_int_mm(const xd_kernel_call* c) {
  return kernel_guard(c, [&] { int_mm_loop(describe_int_mm(c)); });
}
}  // namespace

// The entry of the registration list (kernel_list.cpp): the reference loop, last for int_mm.
extern const plugin::kernel_def def_int_mm_loop{XD_OP_INT_MM, "int_mm.loop", {XD_DTYPE_I8}, run_int_mm};

}  // namespace xd::cpu
