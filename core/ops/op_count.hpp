// How many ops the core declares: the xd_op values of the newest ABI minor this core implements.
// Every table indexed by xd_op (schemas, the dispatch table, kernel registration, op_names) is
// sized by this one constant, so a new ABI minor with new ops changes it here only.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::detail {

inline constexpr int kOpCount = XD_OP_COUNT_V1_1;

}  // namespace xd::detail
