// The four matmul ops (MM, ADDMM, BMM, BADDBMM) reduced to one batched problem:
//   out[b] = beta * input[b] + alpha * (a[b] @ b[b])      (input not read when beta == 0)
// shared by the plain loops (matmul_loop.cpp) and the oneDNN kernels (matmul_dnnl.cpp), whose
// check() declines anything oneDNN turns down, so that the loop kernels run it instead.
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu {

struct gemm_problem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  // Element strides; the batch stride is 0 for the 2-d ops.
  char* a = nullptr;
  int64_t a_b = 0, a_m = 0, a_k = 0;
  char* b = nullptr;
  int64_t b_b = 0, b_k = 0, b_n = 0;
  char* input = nullptr;  // nullptr: not read (MM/BMM, or beta == 0)
  int64_t in_b = 0, in_m = 0, in_n = 0;
  char* out = nullptr;
  int64_t out_b = 0, out_m = 0, out_n = 0;
  double alpha = 1, beta = 0;
};

// Reads the call's views and attributes; throws on a malformed call.
gemm_problem describe_gemm(const xd_kernel_call* c);

// The reference loops; defined for double, float, half and bfloat16.
template <class T>
void gemm_loop(const gemm_problem& p);

}  // namespace xd::cpu
