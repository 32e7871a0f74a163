#include "dispatch/dispatch_table.hpp"

#include "registry/registry.hpp"

#include <algorithm>

namespace xd::detail {

static_assert(DispatchTable::kMaxTypes == kMaxBackends);

DispatchTable::DispatchTable() : slots_(static_cast<size_t>(kOps) * kMaxTypes * kNumDtypes) {}

const DispatchTable* DispatchTable::extend(const DispatchTable* base,
                                           const std::vector<const KernelEntry*>& added) {
  auto* t = base != nullptr ? new DispatchTable(*base) : new DispatchTable();
  for (const KernelEntry* e : added) {
    auto& s = t->slots_[(static_cast<size_t>(e->op) * kMaxTypes + static_cast<size_t>(e->backend->type)) *
                            kNumDtypes + static_cast<size_t>(e->dtype)];
    s.push_back(e);
    std::stable_sort(s.begin(), s.end(), [](const KernelEntry* a, const KernelEntry* b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      return a->order < b->order;
    });
  }
  return t;
}

std::vector<const KernelEntry*> DispatchTable::all() const {
  std::vector<const KernelEntry*> out;
  for (const Slot& s : slots_) out.insert(out.end(), s.begin(), s.end());
  return out;
}

}  // namespace xd::detail
