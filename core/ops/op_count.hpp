// How many ops the core declares: the xd_op values of the newest ABI minor (plugin_abi.h,
// XD_OP_COUNT_LATEST). Every table indexed by xd_op (schemas, the dispatch table, kernel
// registration, op_names) is sized by this one constant.
#pragma once

#include <xd/plugin_abi.h>

namespace xd::detail {

inline constexpr int kOpCount = XD_OP_COUNT_LATEST;

}  // namespace xd::detail
