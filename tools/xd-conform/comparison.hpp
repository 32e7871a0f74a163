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
  bool elementwise = false;          // elements were compared (false: shapes, dtypes or sizes differ)
  std::string message;               // empty when ok
  // Infinite when a NaN or infinity is out of place (or a bool byte is invalid): such an element
  // is infinitely wrong, and reporting 0 would hide it. The finite_ pair covers the other elements.
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  double finite_max_abs_error = 0.0;
  double finite_max_rel_error = 0.0;
  int64_t mismatches = 0;                     // elements outside the tolerance, nonfinite ones included
  int64_t nonfinite_mismatches = 0;           // NaN/Inf position mismatches (bool: invalid bytes)
  std::vector<int64_t> first_nonfinite_index; // of the first such element (empty when none)
  std::vector<int64_t> worst_index;  // multi-dim index of the worst element (empty when ok)
  double got = 0.0, expected = 0.0;  // the values at worst_index
};

// The tolerance of a dtype (PyTorch's assert_close defaults; fp8: one unit in the last place);
// integers and bool are exact. Which tolerance an op's outputs get is its family's choice
// (OpFamily::tolerance, ops/). See docs/conformance.md.
Tolerance dtype_tolerance(Dtype dtype);
// dtype_tolerance widened by sqrt(reduction_length), for outputs that sum that many terms.
Tolerance sum_tolerance(Dtype dtype, int64_t reduction_length);

// `expected` and `got` must have equal dtypes; different shapes fail.
Comparison compare(const Tensor& expected, const Tensor& got, Tolerance tol);
// The same on raw row-major bytes of one dtype.
Comparison compare_bytes(Dtype dtype, const std::vector<int64_t>& shape, const std::vector<uint8_t>& expected,
                         const std::vector<uint8_t>& got, Tolerance tol);

// Decodes element i of row-major bytes of `dtype` as a double (bool: the raw byte).
double decode(Dtype dtype, const uint8_t* bytes, int64_t i);

std::string index_text(const std::vector<int64_t>& index);

}  // namespace xd::conform
