// The op schemas: one per xd_op, owned by the core. A schema names the op, its inputs and outputs
// (PyTorch's argument names) and its kind, and holds the op's attribute struct (attrs.hpp) and
// meta function (op_meta.hpp). Every public op calls through its schema: run_meta validates the
// call and computes the outputs, then the op allocates them and launches the kernel. The
// conformance generator reads the same table (xd::op_schemas()). Plugins implement ops; they
// never add any. Thread safety: the table is immutable.
#pragma once

#include <xd/error.hpp>
#include <xd/plugin_abi.h>
#include <xd/schema.hpp>

#include "ops/attrs.hpp"
#include "ops/op_count.hpp"
#include "ops/op_meta.hpp"

#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace xd::detail {

using xd::OpKind;

// An op's attribute struct (what the meta function reads) and the xd_attrs_* struct its kernel
// receives, by identity and size.
struct AttrsInfo {
  const std::type_info* type = nullptr;  // typeid of the attribute struct
  size_t size = 0;                       // its sizeof
  size_t kernel_size = 0;                // sizeof the xd_attrs_* struct; 0: the kernel gets none
};
template <class Attrs, class KernelAttrsT = void>
AttrsInfo attrs_info() {
  if constexpr (std::is_void_v<KernelAttrsT>)
    return {&typeid(Attrs), sizeof(Attrs), 0};
  else
    return {&typeid(Attrs), sizeof(Attrs), sizeof(KernelAttrsT)};
}

struct OpSchema {
  xd_op op;
  const char* name;
  OpKind kind;
  std::vector<const char*> inputs;
  std::vector<const char*> outputs;
  MetaFn meta;  // validates a call and computes its outputs
  AttrsInfo attrs;
  uint32_t optional_inputs = 0;   // bit i: input i may be absent
  uint32_t optional_outputs = 0;  // bit i: output i may be absent
};

const OpSchema& op_schema(int op);               // op in [0, kOpCount)
const OpSchema* find_op(std::string_view name);  // nullptr when unknown

// Throws xd::Error ("internal error") when a call does not match its schema's attribute struct
// or input count: a bug in the core, never a user's mistake.
[[noreturn]] void throw_schema_mismatch(const OpSchema& s, const std::type_info& attrs, size_t inputs);

// Validates one call of `op` through its schema's meta function. `name` is the public function's
// name (for messages), `inputs` the tensors in schema order (nullptr: absent optional input).
template <class Attrs>
MetaResult run_meta(xd_op op, const char* name, std::initializer_list<const Tensor*> inputs, const Attrs& attrs) {
  const OpSchema& s = op_schema(op);
  if (*s.attrs.type != typeid(Attrs) || inputs.size() != s.inputs.size())
    throw_schema_mismatch(s, typeid(Attrs), inputs.size());
  return s.meta(MetaArgs{op, name, std::span<const Tensor* const>(inputs.begin(), inputs.size()), &attrs});
}

}  // namespace xd::detail
