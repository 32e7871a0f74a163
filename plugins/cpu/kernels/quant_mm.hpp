// INT_MM and SCALED_MM on the CPU: the call's views read into one problem each, shared by the
// plain loops (int_mm.cpp, scaled_mm.cpp) and the oneDNN int8 kernel (matmul_dnnl.cpp), whose
// check() declines anything oneDNN turns down, so that the loop runs it instead.
#pragma once

#include "kernels/common.hpp"

namespace xd::cpu {

// out[i,j] = sum_k a[i,k] * b[k,j]; a and b i8, out i32. Element strides.
struct int_mm_problem {
  int64_t m = 0, n = 0, k = 0;
  const int8_t* a = nullptr;
  int64_t a_m = 0, a_k = 0;
  const int8_t* b = nullptr;
  int64_t b_k = 0, b_n = 0;
  int32_t* out = nullptr;
  int64_t out_m = 0, out_n = 0;
};

// Reads an INT_MM call; throws on a malformed one.
int_mm_problem describe_int_mm(const xd_kernel_call* c);

// The reference: sums modulo 2^32 (two's complement wrap, what a 32-bit accumulator gives in any
// order; exact whenever the true sum fits in i32, i.e. always for K <= 131072).
void int_mm_loop(const int_mm_problem& p);

}  // namespace xd::cpu
