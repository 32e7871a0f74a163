#include "launcher.hpp"

#include <cstring>
#include <string>

namespace xd::xpu {

grid grid::of_items(uint64_t n) {
  grid g;
  g.items = n;
  return g;
}

grid grid::of_groups(uint64_t n, int64_t group_size) {
  grid g;
  g.by_groups = true;
  g.local[0] = static_cast<uint32_t>(group_size);
  g.count[0] = n;
  return g;
}

grid grid::of_groups(uint32_t dims, const int64_t local[3], const int64_t count[3]) {
  grid g;
  g.by_groups = true;
  g.dims = dims;
  for (uint32_t d = 0; d < dims; ++d) {
    g.local[d] = static_cast<uint32_t>(local[d]);
    g.count[d] = static_cast<uint64_t>(count[d]);
  }
  return g;
}

bool grid::empty() const {
  if (!by_groups) return items == 0;
  return count[0] == 0 || count[1] == 0 || count[2] == 0;
}

api& api_of(const xd_kernel_call* c) {
  if (c->plugin_ctx == nullptr) plugin::fail(XD_ERR_INTERNAL, "a kernel call without the plugin's context");
  return *static_cast<api*>(c->plugin_ctx);
}

const device_info& device_of(const xd_kernel_call* c) { return api_of(c).device(c->device); }

int32_t check_device(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    const device_info& d = device_of(c);
    if (d.fp64 || !plugin::has_view_of(c, XD_DTYPE_F64)) return 1;
    return plugin::decline(reason, reason_size, std::string("f64 on ") + d.name + ", which lacks " + d.fp64_feature);
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, e.what());
  }
}

launch& launch::buffer(const xd_view& v) {
  if (v.handle == nullptr) plugin::invalid("a view has no memory handle");
  return buffer(v.handle);
}

launch& launch::buffer(void* handle) { return append(&handle, sizeof handle); }

launch& launch::append(const void* v, size_t size) {
  const size_t at = (used_ + 7) / 8 * 8;  // every value 8-byte aligned
  if (count_ == kMaxArgs || at + size > kMaxBytes)
    plugin::fail(XD_ERR_INTERNAL, std::string(entry_) + ": more kernel arguments than a launch holds");
  std::memcpy(bytes_ + at, v, size);
  args_[count_] = {size, nullptr};
  at_[count_++] = at;
  used_ = at + size;
  return *this;
}

launch& launch::local_bytes(size_t n) {
  if (count_ == kMaxArgs) plugin::fail(XD_ERR_INTERNAL, std::string(entry_) + ": too many kernel arguments");
  args_[count_] = {n, nullptr};
  at_[count_++] = SIZE_MAX;  // a __local buffer: no value
  return *this;
}

void launch::run(const grid& g) {
  if (g.empty()) return;
  for (size_t i = 0; i < count_; ++i) args_[i].value = at_[i] == SIZE_MAX ? nullptr : bytes_ + at_[i];
  api_of(c_).enqueue(c_, program_, entry_, std::span<const kernel_arg>(args_.data(), count_), g);
}

void launch::run_groups(uint64_t n) { run(grid::of_groups(n, device_of(c_).work_group)); }

}  // namespace xd::xpu
