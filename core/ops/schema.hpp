// The op schemas: one per xd_op, owned by the core. A schema names the op and its inputs and
// outputs (PyTorch's argument names) and says what kind of op it is, which the meta functions
// (ops/*.cpp) and the conformance generator use. Plugins implement ops; they never add any.
#pragma once

#include <xd/plugin_abi.h>
#include <xd/schema.hpp>

#include <string_view>
#include <vector>

namespace xd::detail {

using xd::OpKind;

struct OpSchema {
  xd_op op;
  const char* name;
  OpKind kind;
  std::vector<const char*> inputs;
  std::vector<const char*> outputs;
  uint32_t optional_inputs = 0;   // bit i: input i may be absent
  uint32_t optional_outputs = 0;  // bit i: output i may be absent
};

const OpSchema& op_schema(int op);  // op in [0, XD_OP_COUNT_V1_1)
const OpSchema* find_op(std::string_view name);  // nullptr when unknown

}  // namespace xd::detail
