#include <xd/error.hpp>
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
  // Past 2^64 the offset would wrap to blocks already handed out: the same numbers again.
  if (__builtin_add_overflow(offset_, blocks, &offset_)) {
    offset_ = first;
    throw ValueError("random: the generator's offset " + std::to_string(first) + " plus the " + std::to_string(blocks) +
                     " Philox blocks requested passes 2^64, after which its numbers would repeat; call "
                     "manual_seed() or set_offset() with a smaller offset");
  }
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
