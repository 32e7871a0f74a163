// Generated cases of the sparse CSR ops (csr_addmm: mm, addmm, bmm, baddbmm with a CSR left
// operand; csr_to_dense): random sparsity with empty rows, nnz = 0, sizes 1 and primes, i32 and
// i64 indices, batches, beta = 0 over NaN, non-contiguous dense operands.
#pragma once

#include "conform_case.hpp"

#include <vector>

namespace xd::conform {

std::vector<Case> csr_cases(const OpSchema& schema, Dtype dtype, bool quick);

}  // namespace xd::conform
