// A fake device for the caching allocators' unit tests: a memory limit, handles that are never
// dereferenced (segments 4 GiB apart, so host-pointer arithmetic of different segments never
// meets), and events whose completion the test decides.
#pragma once

#include "runtime/caching_allocator.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xd::test {

class FakeDevice : public xd::detail::AllocatorDevice {
 public:
  explicit FakeDevice(uint64_t limit) : limit_(limit) {}
  bool raw_alloc(uint64_t n, void** handle, std::string& error) override {
    if (used_ + n > limit_) {
      error = "fake device: only " + std::to_string(limit_ - used_) + " bytes left";
      return false;
    }
    used_ += n;
    *handle = reinterpret_cast<void*>(next_);
    next_ += uintptr_t{1} << 32;
    sizes_[*handle] = n;
    ++raw_allocs;
    return true;
  }
  void raw_free(void* h) override {
    used_ -= sizes_.at(h);
    sizes_.erase(h);
    ++raw_frees;
  }
  uint64_t total_memory() const override { return limit_; }
  // An event is complete when events_complete was true when it was recorded or is true now.
  void* record_event(void* stream) override {
    recorded_on.push_back(stream);
    return new bool(events_complete);
  }
  bool event_done(void* e) override { return *static_cast<bool*>(e) || events_complete; }
  void destroy_event(void* e) override { delete static_cast<bool*>(e); }
  std::string describe() const override { return "fake:0"; }

  uint64_t used() const { return used_; }
  bool events_complete = true;
  int raw_allocs = 0, raw_frees = 0;
  std::vector<void*> recorded_on;  // the stream of every event recorded

 private:
  uint64_t limit_, used_ = 0;
  uintptr_t next_ = uintptr_t{1} << 32;
  std::map<void*, uint64_t> sizes_;
};

}  // namespace xd::test
