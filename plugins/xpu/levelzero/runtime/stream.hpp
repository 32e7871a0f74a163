// A stream is an immediate command list on the device's compute queue group. Level Zero 1.4 has
// no in-order flag, so every append is followed by a barrier: later work never overlaps earlier
// work, which is what the ABI's in-order streams promise. Appends to one list are serialised by
// the stream's mutex (a command list is not thread-safe).
//
// Events and elapsed time: an event is recorded as a barrier that signals it, from a pool created
// with ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP; the barrier starts only once every earlier command of
// the stream has completed, and the global kernel-end timestamp zeEventQueryKernelTimestamp
// reports for it is the moment the stream got past that point. Elapsed time is the difference of
// two such timestamps (docs/backends/levelzero.md says why the end and not the start).
//
// Lifetimes: the Level Zero spec requires that the device no longer use an event when it is
// destroyed, so destroying a recorded event first waits for it on the host, and a stream that
// appended a wait on an event holds the event (shared ownership) until that stream is known to
// be past the wait.
#pragma once

#include "runtime/driver.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace xd::l0 {

// One host-visible kernel-timestamp event in a one-event pool of its own (one pool per event
// keeps destruction simple). Destroys the event, then the pool.
struct event_slot {
  ze_event_pool_handle_t pool = nullptr;
  ze_event_handle_t event = nullptr;
  explicit event_slot(device& d);
  ~event_slot();
  event_slot(const event_slot&) = delete;
  event_slot& operator=(const event_slot&) = delete;
};

// The ABI's event. Not thread-safe by itself: the core serialises the calls on one event.
struct timed_event {
  device& dev;
  std::shared_ptr<event_slot> slot;  // shared with the streams that wait on it
  bool recorded = false;
  explicit timed_event(device& d);
  // Waits (on the host) for a recorded event to complete before letting go of it; logs a failure
  // instead of throwing.
  ~timed_event();
  timed_event(const timed_event&) = delete;
  timed_event& operator=(const timed_event&) = delete;
  ze_event_handle_t handle() const { return slot->event; }
};

class stream {
 public:
  // Registers the stream for synchronize_streams(); throws plugin::error when the command list
  // cannot be created.
  explicit stream(device& d);
  // Synchronizes (a failure is logged) and unregisters the stream, then destroys its list.
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
  // Every submission up to `upto` has completed: the events held for those may be let go.
  void completed_locked(uint64_t upto);
  // Bounds held_ for a stream that is never synchronized: drops what a completed marker covers
  // and appends a new marker for the next call to drop the rest.
  void prune_waits_locked();

  device& device_;
  std::mutex mutex_;
  ze_command_list_handle_t list_ = nullptr;
  timed_event marker_;
  bool marker_live_ = false;
  uint64_t submitted_ = 0, marked_ = 0;
  // (submission, event a command of it uses: a wait, or a record whose signal failed to append),
  // kept until that submission has completed.
  std::vector<std::pair<uint64_t, std::shared_ptr<event_slot>>> held_;
};

// Synchronizes every stream whose device belongs to `context`: what a free must do before
// zeMemFree when the driver has no blocking free policy (memory.cpp). Thread-safe; throws the
// first synchronization error.
void synchronize_streams(ze_context_handle_t context);

}  // namespace xd::l0
