// The op schemas, read-only: what each op the core declares is called, what kind of op it is
// and the names of its inputs and outputs (PyTorch's argument names). Tools that generate work
// for every op — xd-conform builds its cases from these — read them here instead of keeping
// their own list. Thread safety: safe from any thread; the data never changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xd {

// The shape of an op's signature; every op of one kind is called the same way.
enum class OpKind {
  fill,               // () -> out; attrs: value
  arange,             // () -> out; attrs: start, step
  random,             // () -> out; generator (seed, offset)
  copy,               // (self) -> out; casts between every pair of dtypes
  binary,             // (self, other) -> out, broadcasting; add/sub take alpha
  compare,            // (self, other) -> out (bool), broadcasting
  where,              // (condition, self, other) -> out, broadcasting
  unary,              // (self) -> out; pow takes a scalar exponent, gelu an approximation
  reduce,             // (self) -> out over dims, keepdim
  argreduce,          // (self) -> out (i64) over one dim, keepdim
  softmax,            // (self) -> out over one dim
  mm,                 // (self [M,K], mat2 [K,N]) -> out [M,N]
  addmm,              // (self, mat1, mat2) -> beta*self + alpha*mat1@mat2
  bmm,                // (self [B,M,K], mat2 [B,K,N]) -> out [B,M,N]
  baddbmm,            // (self, batch1, batch2) -> beta*self + alpha*batch1@batch2
  rms_norm,           // (input, weight?) -> (output, rstd)
  rms_norm_backward,  // (grad_out, input, rstd, weight?) -> (grad_input?, grad_weight?)
  int_mm,             // (self i8 [M,K], mat2 i8 [K,N]) -> out i32 [M,N]
  scaled_mm,          // (self fp8, mat2 fp8, scale_a, scale_b, bias?) -> out; attrs: out_dtype
  weight_int4_mm,     // (input [M,K], weight u8 [N,K/2], scales [K/g,N], zeros i8 [K/g,N]) -> out [M,N]
  quantize_int4,      // (weight [N,K]) -> (packed u8 [N,K/2], scales [K/g,N], zeros i8 [K/g,N])
  csr_addmm,          // (self?, crow, col, values, mat2) -> beta*self + alpha*csr@mat2 (sparse.hpp)
  csr_to_dense,       // (crow, col, values) -> out (sparse.hpp: SparseCsr::to_dense)
  index_select,       // (self, index 1-d) -> out along dim
  layer_norm,         // (input, weight?, bias?) -> (output, mean, rstd)
  // (grad_out, input, mean, rstd, weight?, bias?) -> (grad_input?, grad_weight?, grad_bias?)
  layer_norm_backward,
  gather,             // (self, index of self's rank) -> out of index's shape along dim
  attention,          // (query, key, value, attn_mask?) -> out
  conv2d,             // (input, weight, bias?) -> out
  pool2d,             // (self [N,C,H,W] or [C,H,W]) -> out (max_pool2d: indices?) over 2-d windows
  cumsum,             // (self) -> out along dim; attrs: dtype
  topk,               // (self) -> (values, indices i64) along dim; attrs: k, largest, sorted
};
const char* op_kind_name(OpKind kind) noexcept;

struct OpSchema {
  int op = 0;  // the xd_op value
  std::string name;
  OpKind kind = OpKind::unary;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  uint32_t optional_inputs = 0;   // bit i: input i may be absent
  uint32_t optional_outputs = 0;  // bit i: output i may be absent (output_mask)
};

// Every op the core declares, in xd_op order.
std::vector<OpSchema> op_schemas();

}  // namespace xd
