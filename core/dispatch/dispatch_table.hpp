// The dispatch table: a dense array indexed by (op, backend type, dtype), each slot an ordered
// list of kernels (highest priority first, then registration order). Tables are immutable once
// published: loading another plugin builds a new table and swaps the registry's pointer, so a
// lookup is a few loads without a lock. Old tables are kept (never freed) because a reader may
// still hold one; there is one per plugin load, so this is bounded.
#pragma once

#include <xd/dtype.hpp>
#include <xd/plugin_abi.h>

#include "ops/op_count.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace xd::detail {

struct Backend;

struct KernelEntry {
  xd_kernel_fn fn = nullptr;
  xd_kernel_supports_fn supports = nullptr;
  xd_kernel_check_fn check = nullptr;  // ABI 1.2: preferred over `supports`, says why it declines
  void* user_data = nullptr;
  int32_t priority = 0;
  int64_t order = 0;  // global registration order
  std::string name;
  Backend* backend = nullptr;
  int32_t op = 0;
  Dtype dtype = Dtype::f32;
  std::atomic<bool> enabled{true};  // see xd::set_kernel_enabled (diagnostics, tests)
  // Bumped with a relaxed load + store, not fetch_add: a locked add is a measurable part of a
  // small op's dispatch, and the counter only needs "ran at least once" to be exact.
  mutable std::atomic<uint64_t> calls{0};
};

class DispatchTable {
 public:
  using Slot = std::vector<const KernelEntry*>;
  static constexpr int kOps = kOpCount;

  DispatchTable();
  // A copy of `base` (may be null) with `added` inserted in priority order.
  static const DispatchTable* extend(const DispatchTable* base, const std::vector<const KernelEntry*>& added);

  const Slot& slot(int op, int type, Dtype dtype) const {
    return slots_[(static_cast<size_t>(op) * kMaxTypes + static_cast<size_t>(type)) * kNumDtypes +
                  static_cast<size_t>(dtype)];
  }
  // Every entry, ordered by op, backend, dtype, then the order they are tried.
  std::vector<const KernelEntry*> all() const;

  static constexpr int kMaxTypes = 16;

 private:
  std::vector<Slot> slots_;
};

}  // namespace xd::detail
