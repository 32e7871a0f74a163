#include <xd/runtime.hpp>

#include "registry/registry.hpp"

namespace xd {

uint64_t Generator::seed() const {
  std::lock_guard lock(mutex_);
  return seed_;
}
uint64_t Generator::offset() const {
  std::lock_guard lock(mutex_);
  return offset_;
}
void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}
void Generator::set_offset(uint64_t offset) {
  std::lock_guard lock(mutex_);
  offset_ = offset;
}
uint64_t Generator::reserve(uint64_t blocks) {
  std::lock_guard lock(mutex_);
  const uint64_t first = offset_;
  offset_ += blocks;
  return first;
}

Generator& default_generator() {
  static Generator* g = new Generator();
  return *g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

MemoryStats memory_stats(Device device) { return detail::Registry::get().device(device).allocator->stats(); }
void reset_peak_memory_stats(Device device) { detail::Registry::get().device(device).allocator->reset_peak(); }
void empty_cache(Device device) { detail::Registry::get().device(device).allocator->empty_cache(); }

}  // namespace xd
