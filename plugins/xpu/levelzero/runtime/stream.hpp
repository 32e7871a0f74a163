// A stream is an immediate command list on the device's compute queue group. Level Zero 1.4 has
// no in-order flag, so every append is followed by a barrier: later work never overlaps earlier
// work, which is what the ABI's in-order streams promise. Appends to one list are serialised by
// the stream's mutex (a command list is not thread-safe).
#pragma once

#include "runtime/driver.hpp"

#include <mutex>

namespace xd::l0 {

// A host-visible event from a kernel-timestamp pool of its own (one per event keeps destruction
// simple), plus a host USM word the device writes its global timestamp into when the event is
// recorded: zeCommandListAppendWriteGlobalTimestamp is the call Level Zero provides for marking
// a point in a command list, where kernel timestamps measure a kernel.
struct timed_event {
  device& dev;
  ze_event_pool_handle_t pool = nullptr;
  ze_event_handle_t event = nullptr;
  uint64_t* stamp = nullptr;  // host USM
  bool recorded = false;
  explicit timed_event(device& d);
  ~timed_event();
  timed_event(const timed_event&) = delete;
  timed_event& operator=(const timed_event&) = delete;
};

class stream {
 public:
  explicit stream(device& d);
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  device& dev() { return device_; }
  // Runs `append(list)` under the lock, then the ordering barrier.
  template <class F>
  void submit(F&& append) {
    const std::lock_guard lock(mutex_);
    append(list_);
    check(zeCommandListAppendBarrier(list_, nullptr, 0, nullptr), "zeCommandListAppendBarrier");
    ++submitted_;
  }
  void synchronize();
  bool idle();  // a non-blocking query
  void record(timed_event& e);
  void wait(timed_event& e);

 private:
  // Appends a marker signalling marker_ if the last one does not cover every submission.
  void mark_locked();

  device& device_;
  std::mutex mutex_;
  ze_command_list_handle_t list_ = nullptr;
  timed_event marker_;
  bool marker_live_ = false;
  uint64_t submitted_ = 0, marked_ = 0;
};

}  // namespace xd::l0
