// Element-wise comparison of a backend's output with the expected one, on the raw bytes both
// produced: NaN and infinities must match in position (and sign), everything else within
// |got - expected| <= atol + rtol * |expected|. Integer and bool outputs are exact, and a bool
// byte other than 0 or 1 (an element the kernel never wrote, after poisoning) always fails.
#pragma once

#include "conform_case.hpp"

#include <xd/tensor.hpp>

#include <string>
#include <vector>

namespace xd::conform {

struct Comparison {
  bool ok = true;
  std::string message;               // empty when ok
  double max_abs_error = 0.0;        // over the finite elements
  double max_rel_error = 0.0;
  int64_t mismatches = 0;
  std::vector<int64_t> worst_index;  // multi-dim index of the worst element (empty when ok)
  double got = 0.0, expected = 0.0;  // the values at worst_index
};

// The default tolerance of a dtype (PyTorch's assert_close defaults), widened by sqrt of the
// reduction length for ops that sum (reductions, softmax, matmul, rms_norm). See docs/conformance.md.
Tolerance default_tolerance(Dtype dtype, OpKind kind, int64_t reduction_length);

// `expected` and `got` must have equal dtypes; different shapes fail.
Comparison compare(const Tensor& expected, const Tensor& got, Tolerance tol);
// The same on raw row-major bytes of one dtype.
Comparison compare_bytes(Dtype dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& expected,
                         const std::vector<uint8_t>& got, Tolerance tol);

// Decodes element i of row-major bytes of `dtype` as a double (bool: the raw byte).
double decode(Dtype dtype, const uint8_t* bytes, int64_t i);

std::string index_text(const std::vector<int64_t>& index);

}  // namespace xd::conform
