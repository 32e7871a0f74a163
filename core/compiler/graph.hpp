// The compiler's graph: what one traced call of a function did, as values (buffers) and nodes
// (the launches of the public ops, with the views they took of the buffers). Built by the tracer
// (trace.cpp), fused by the scheduler (schedule.cpp), run by compiled.cpp. Plain data: no
// locking, owned by one compiled graph.
#pragma once

#include <xd/plugin_abi.h>
#include <xd/tensor.hpp>

#include "tensor/tensor_impl.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace xd::detail::compiler {

// A strided view of a value, as a node reads or writes it: element offset from the value's base.
struct View {
  int value = -1;  // -1: an absent optional argument
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  int64_t offset = 0;

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
  // Row-major contiguous from offset 0 over `numel` elements (size-1 dims' strides ignored).
  bool is_dense(int64_t value_numel) const;
};

enum class ValueKind { input, produced, constant };

struct Value {
  ValueKind kind = ValueKind::produced;
  Dtype dtype = Dtype::f32;
  int64_t numel = 0;  // elements of the buffer the views index
  int input = -1;     // ValueKind::input: the argument it is
  int producer = -1;  // ValueKind::produced / constant: the node that writes it
  double constant = 0;  // ValueKind::constant: the FILL value (already rounded to dtype on use)
};

struct Node {
  xd_op op = XD_OP_FILL;
  Dtype key = Dtype::f32;
  std::vector<View> inputs;
  std::vector<View> outputs;
  std::vector<unsigned char> attrs;  // the xd_attrs_* struct, struct_size bytes; empty: none
  const void* attrs_ptr() const { return attrs.empty() ? nullptr : attrs.data(); }
  template <class A>
  const A* attrs_as() const {
    return attrs.size() >= sizeof(A) ? reinterpret_cast<const A*>(attrs.data()) : nullptr;
  }
};

// What one argument looked like when the graph was traced; a call runs the graph only when every
// argument matches (compiled.cpp's guards).
struct ArgSignature {
  bool defined = false;
  Device device;
  Dtype dtype = Dtype::f32;
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  uint64_t align = 0;      // byte offset into its storage modulo 64
  int alias_of = -1;       // an earlier argument on the same storage, or -1
  int64_t alias_delta = 0; // element offset from that argument's
};

struct Graph {
  DeviceRecord* device = nullptr;
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<View> outputs;  // the function's results, in order
  std::vector<int> input_value;  // argument -> its value (-1 for an undefined argument)
};

std::string op_name(xd_op op);

}  // namespace xd::detail::compiler
