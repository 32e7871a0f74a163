// Sparse CSR matrices and the matmuls that take one as their left operand.
//
// A SparseCsr is a 2-d [M, K] or batched [B, M, K] matrix in compressed sparse row form, as
// PyTorch's torch.sparse_csr_tensor: three dense tensors on one device,
//   crow_indices [M + 1]   (batched: [B, M + 1])   row r holds entries crow[r] .. crow[r+1]-1
//   col_indices  [nnz]     (batched: [B, nnz])     their columns
//   values       [nnz]     (batched: [B, nnz])     their values
// with the same nnz in every batch. Indices are i32 or i64 (both the same); values are f64, f32,
// f16 or bf16.
//
// Invariants, checked on every creation (PyTorch's check_invariants, always on): crow starts at 0,
// never decreases and ends at nnz; every column is in [0, K); the columns of a row are sorted and
// distinct. Shapes, dtypes and the device are checked first. Errors: ShapeError (shapes), DtypeError
// (index or value dtypes), DeviceError (components on different devices), ValueError (crow
// invariants, unsorted or repeated columns), IndexError (a column outside [0, K)).
//
// Cost: the index checks read crow and col on the host, so creating a SparseCsr from device
// tensors copies B*(M+1+nnz) indices to the host and waits for the device's current stream. Create
// a matrix once and reuse it; the matmuls themselves never copy indices to the host.
// to_sparse_csr(dense) also runs on the host (the dense tensor is copied there once, the
// components are built and copied back to its device). to_dense() runs on the device.
//
// Ownership and lifetime: a SparseCsr holds its three component tensors (shared references, like
// Tensor: copying a SparseCsr copies the references, not the data). The components are kept as
// given when already contiguous, otherwise as contiguous copies; writing to a component tensor
// after creation bypasses the checks and is undefined behaviour (like PyTorch's unchecked use).
// Thread safety: a SparseCsr is immutable after creation; it may be shared between threads and used
// by ops from several threads at once.
#pragma once

#include <xd/ops.hpp>
#include <xd/tensor.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <span>

namespace xd {

class SparseCsr {
 public:
  SparseCsr() = default;  // undefined; every accessor but defined() throws ValueError

  // From components, checked as described above. `size` is [M, K] or [B, M, K].
  SparseCsr(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values, IntList size);

  bool defined() const { return impl_ != nullptr; }
  const Tensor& crow_indices() const;
  const Tensor& col_indices() const;
  const Tensor& values() const;
  std::span<const int64_t> sizes() const;  // [M, K] or [B, M, K]
  int dim() const;                         // 2 or 3
  bool is_batched() const { return dim() == 3; }
  int64_t nnz() const;  // stored entries per batch
  Dtype dtype() const;  // the values' dtype
  Dtype index_dtype() const;
  Device device() const;

  Tensor to_dense() const;            // [M, K] or [B, M, K] in dtype(), on device()
  SparseCsr to(Device device) const;  // itself when already there

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
  const Impl& impl() const;
};

// Same as the constructor (PyTorch's spelling).
SparseCsr sparse_csr_tensor(const Tensor& crow_indices, const Tensor& col_indices, const Tensor& values, IntList size);

// The nonzero elements of a 2-d or 3-d floating `dense` tensor (every element != 0, NaN included)
// as CSR with `index_dtype` (i32 or i64) indices, on dense's device. A 3-d tensor becomes batched
// CSR, which needs the same count of nonzeros in every batch (ValueError otherwise).
SparseCsr to_sparse_csr(const Tensor& dense, Dtype index_dtype = Dtype::i64);

// Matmuls with a sparse left operand and a dense right one; the result is dense, in a's dtype, on
// a's device. b may have any strides. Products accumulate in f32 (f64 for f64) in the order of
// the row's entries. beta == 0 does not read `input` (a NaN there does not propagate); `input`
// broadcasts to the result's shape. b (and input) must have a's dtype and device.
Tensor mm(const SparseCsr& a, const Tensor& b);  // [M,K] @ [K,N] -> [M,N]
Tensor addmm(const Tensor& input, const SparseCsr& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);
Tensor bmm(const SparseCsr& a, const Tensor& b);  // [B,M,K] @ [B,K,N] -> [B,M,N]
Tensor baddbmm(const Tensor& input, const SparseCsr& a, const Tensor& b, double beta = 1.0, double alpha = 1.0);

}  // namespace xd
