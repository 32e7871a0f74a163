// How tensors meet MPI: the datatype and operation for each dtype, the dtype a reduction runs in,
// and MPI's error codes as exceptions.
#pragma once

#include <xd/distributed.hpp>

#include <mpi.h>

#include <cstdint>

namespace xd::dist::detail {

// The dtype a reduction of `d` runs in: f32 for f16, bf16 and the fp8 types (MPI has no such
// types, and one rounding at the end beats one per rank); `d` otherwise.
Dtype reduction_dtype(Dtype d) noexcept;
// The MPI datatype that carries `d` (moving bytes: f16/bf16 as 16-bit, fp8 as 8-bit integers).
MPI_Datatype mpi_type(Dtype d) noexcept;
// The MPI operation for `op` on `d` (a reduction dtype). avg is a sum, divided afterwards.
MPI_Op mpi_op(ReduceOp op, Dtype d) noexcept;
// Divides `count` elements at `data` (of reduction dtype `d`) by `n` in place: avg's last step.
// Integers truncate toward zero; bool is left as it is (avg of bool is a logical or, like sum).
void divide_in_place(void* data, int64_t count, Dtype d, int n);
// Throws DistributedError naming the call and MPI's message unless rc is MPI_SUCCESS.
void check_mpi(int rc, const char* call);

}  // namespace xd::dist::detail
