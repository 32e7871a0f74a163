// The device runtime, unified in the core over each plugin's raw primitives: streams, events,
// the current device and stream with their scope guards, the caching allocator's statistics,
// and the Philox generator.
//
// Current device / stream are per thread. A thread starts on default_device() and, for each
// device, that device's default stream. Guards restore the previous value on scope exit.
// Thread safety: Stream and Event objects may be shared between threads (they are handles);
// Generator is internally synchronised.
#pragma once

#include <xd/device.hpp>

#include <cstdint>
#include <memory>
#include <mutex>

namespace xd {

namespace detail {
struct StreamState;
struct EventState;
}  // namespace detail

// An in-order queue of work on one device. Copies share the same queue.
// A default-constructed (or moved-from) Stream is null: it names no stream, and every member but
// defined(), == and != throws ValueError, as does passing it to set_current_stream, StreamGuard,
// Event::record, Event::block or Tensor::record_stream.
class Stream {
 public:
  Stream() = default;
  // A new stream on `device` (released when the last copy goes).
  static Stream create(Device device);
  bool defined() const { return state_ != nullptr; }
  Device device() const;
  void synchronize() const;  // blocks until all work enqueued so far is done
  bool query() const;        // true when all work enqueued so far is done
  void* handle() const;      // the plugin's xd_stream
  uint64_t id() const;       // unique within the process
  bool operator==(const Stream& o) const { return state_ == o.state_; }
  bool operator!=(const Stream& o) const { return state_ != o.state_; }

  explicit Stream(std::shared_ptr<detail::StreamState> s) : state_(std::move(s)) {}
  const std::shared_ptr<detail::StreamState>& state() const;  // ValueError when null

 private:
  std::shared_ptr<detail::StreamState> state_;
};

Stream default_stream(Device device);
Stream current_stream(Device device);
Stream current_stream();  // of current_device()
void set_current_stream(const Stream& stream);
Device current_device();
void set_current_device(Device device);
void synchronize(Device device);  // every stream of the device the core created

// A marker in a stream. Created lazily on first record. A moved-from Event is null: every member
// throws ValueError.
class Event {
 public:
  explicit Event(Device device);
  void record(const Stream& stream);
  void record();                        // on current_stream(device)
  void block(const Stream& stream) const;  // later work on `stream` waits for this event
  bool query() const;                   // true when the recorded work is done (or never recorded)
  void synchronize() const;
  // Milliseconds from this event to `end`; both recorded and completed (synchronises `end`).
  // DeviceError when the device cannot time events.
  double elapsed_ms(const Event& end) const;
  Device device() const;

 private:
  detail::EventState& checked(const char* what) const;
  std::shared_ptr<detail::EventState> state_;
};

class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  Device previous_;
};

// Makes `stream` current for its device (and its device current); restores both on exit.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Device previous_device_;
  Stream previous_stream_;
};

// Caching allocator statistics for one device (bytes unless noted).
struct MemoryStats {
  uint64_t allocated = 0;       // in live tensors (rounded sizes)
  uint64_t peak_allocated = 0;
  uint64_t reserved = 0;        // obtained from the plugin, cached or in use
  uint64_t peak_reserved = 0;
  uint64_t requested = 0;       // what callers asked for, live
  uint64_t num_allocs = 0;      // count
  uint64_t num_frees = 0;
  uint64_t num_segments = 0;    // live raw allocations
  uint64_t num_raw_allocs = 0;  // count of plugin mem_alloc calls
  uint64_t num_cache_flushes = 0;  // empty_cache because an allocation failed
  uint64_t num_ooms = 0;        // OutOfMemoryError thrown
  // Freed blocks not yet reusable: another stream that used them (Tensor::record_stream, or a
  // non_blocking copy of pinned memory) has not been seen to pass that use. Checked lazily, on
  // the next allocation or empty_cache.
  uint64_t pending_blocks = 0;
};
MemoryStats memory_stats(Device device);
void reset_peak_memory_stats(Device device);
// Returns every fully free cached segment to the plugin. Blocks pending on a stream stay.
void empty_cache(Device device);

// Pinned host memory for transfers to and from `device` (Tensor::pin_memory), cached per device
// by the same caching allocator as device memory, over the plugin's host_alloc/host_free.
// True when `device`'s backend provides it (opencl, levelzero); false for host-memory devices
// such as the CPU, which have nothing to pin for, and for plugins without host_alloc.
bool pinned_memory_available(Device device);
// The pinned cache's statistics (reserved: obtained through host_alloc; num_raw_allocs: calls
// of host_alloc; allocated: in pinned tensors; pending_blocks: freed but possibly still used by
// a copy in flight). All zero where pinned_memory_available is false.
MemoryStats pinned_memory_stats(Device device);
void reset_peak_pinned_memory_stats(Device device);
// Returns every fully free cached pinned segment to the plugin (host_free); blocks still used
// by a copy in flight stay. A no-op where pinned_memory_available is false.
void empty_pinned_cache(Device device);
// All of these throw DeviceError for a device that does not exist; they are thread-safe.

// Philox4x32-10 state: a 64-bit seed and an offset counted in 128-bit counter blocks.
// Ops that draw random numbers reserve a range of blocks atomically.
class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : seed_(seed) {}
  uint64_t seed() const;
  uint64_t offset() const;
  void manual_seed(uint64_t seed);  // also resets the offset to 0
  void set_offset(uint64_t offset);
  // Returns the first block of a fresh range of `blocks` blocks (and advances the offset).
  // ValueError, leaving the offset as it was, when the range would pass 2^64 (where the offset
  // would wrap and the numbers repeat).
  uint64_t reserve(uint64_t blocks);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

Generator& default_generator();
void manual_seed(uint64_t seed);  // default_generator().manual_seed(seed)

}  // namespace xd
