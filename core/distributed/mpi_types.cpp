#include "mpi_types.hpp"

#include <string>

namespace xd::dist::detail {

Dtype reduction_dtype(Dtype d) noexcept {
  switch (d) {
    case Dtype::f16:
    case Dtype::bf16:
    case Dtype::f8e4m3fn:
    case Dtype::f8e5m2: return Dtype::f32;
    default: return d;
  }
}

MPI_Datatype mpi_type(Dtype d) noexcept {
  switch (d) {
    case Dtype::f64: return MPI_DOUBLE;
    case Dtype::f32: return MPI_FLOAT;
    case Dtype::f16:
    case Dtype::bf16: return MPI_UINT16_T;
    case Dtype::i8: return MPI_INT8_T;
    case Dtype::u8:
    case Dtype::f8e4m3fn:
    case Dtype::f8e5m2: return MPI_UINT8_T;
    case Dtype::i32: return MPI_INT32_T;
    case Dtype::i64: return MPI_INT64_T;
    case Dtype::boolean: return MPI_C_BOOL;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(ReduceOp op, Dtype d) noexcept {
  if (d == Dtype::boolean) {  // MPI reduces C bool with logical operations only
    return op == ReduceOp::product || op == ReduceOp::min ? MPI_LAND : MPI_LOR;
  }
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return MPI_SUM;
    case ReduceOp::product: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
  }
  return MPI_OP_NULL;
}

namespace {
template <class T>
void divide(T* p, int64_t count, int n) {
  const T divisor = static_cast<T>(n);
  for (int64_t i = 0; i < count; ++i) p[i] = static_cast<T>(p[i] / divisor);
}
}  // namespace

void divide_in_place(void* data, int64_t count, Dtype d, int n) {
  switch (d) {
    case Dtype::f64: divide(static_cast<double*>(data), count, n); break;
    case Dtype::f32: divide(static_cast<float*>(data), count, n); break;
    case Dtype::i8: divide(static_cast<int8_t*>(data), count, n); break;
    case Dtype::u8: divide(static_cast<uint8_t*>(data), count, n); break;
    case Dtype::i32: divide(static_cast<int32_t*>(data), count, n); break;
    case Dtype::i64: divide(static_cast<int64_t*>(data), count, n); break;
    default: break;  // bool; the narrow floating types are reduced in f32
  }
}

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw DistributedError(std::string("xd::dist: ") + call + " failed: " +
                         (len > 0 ? std::string(text, static_cast<size_t>(len)) : "MPI error " + std::to_string(rc)));
}

}  // namespace xd::dist::detail
