// Generated cases of the quantised matmuls (int_mm, scaled_mm): degenerate, odd and prime sizes,
// transposed and sliced operands, both scale modes, every out_dtype, with and without bias, and
// mixed fp8 formats. Called by case_generator.cpp for the slots of these ops.
#pragma once

#include "conform_case.hpp"

#include <vector>

namespace xd::conform {

// The cases of `schema` (kind int_mm or scaled_mm) keyed on `dtype`; backend, seed and id are
// left for the caller to fill.
std::vector<Case> quant_mm_cases(const OpSchema& schema, Dtype dtype, bool quick);

}  // namespace xd::conform
