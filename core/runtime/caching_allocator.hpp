// A device-agnostic caching allocator over a device's raw alloc/free (PyTorch's CUDA caching
// allocator, made independent of pointer arithmetic): memory is handed out as Blocks addressed by
// (segment handle, byte offset), so it works for cl_mem handles as well as for pointers.
//
// - Sizes round up to 512 bytes. Requests up to 1 MiB come from a small pool of 2 MiB segments;
//   larger ones from a large pool (20 MiB segments under 10 MiB, else rounded to 2 MiB).
// - A free block is split when the rest is worth keeping (>= 512 B small, > 1 MiB large) and is
//   merged with free neighbours of the same segment when freed.
// - Stream-aware: a block is reused only by allocations on the stream it was allocated on. If it
//   was also used on other streams (record_stream), freeing records an event on each and the
//   block returns to the pool only once all have completed. Those streams are kept alive (the
//   caller's keep-alive handle) until then, so a stream destroyed by its owner in the meantime
//   is never recorded on or queried after it is gone.
// - Fast bins: freed blocks of at most 4 KiB with no pending stream uses go onto a per-size LIFO
//   (up to 256 each) instead of being merged, so the common small alloc/free pair is a pop and a
//   push under the lock (glibc's tcache idea). They count as cached and are merged back before
//   empty_cache and before a retry after a failed allocation.
// - On failure: free every cached segment, retry once, then throw OutOfMemoryError stating the
//   requested, reserved, allocated and device sizes.
// Thread safety: all members are thread-safe (one lock per device).
#pragma once

#include <xd/runtime.hpp>

#include "util/spin_mutex.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace xd::detail {

// What the allocator needs from a device. Implemented by the registry over a plugin, and by fakes
// in the unit tests.
class AllocatorDevice {
 public:
  virtual ~AllocatorDevice() = default;
  // On failure returns false and sets `error` (never throws).
  virtual bool raw_alloc(uint64_t nbytes, void** handle, std::string& error) = 0;
  virtual void raw_free(void* handle) = 0;
  virtual uint64_t total_memory() const = 0;
  // An event marking the work enqueued on `stream` so far, or nullptr when the device runs
  // synchronously (then nothing is pending).
  virtual void* record_event(void* stream) = 0;
  virtual bool event_done(void* event) = 0;
  virtual void destroy_event(void* event) = 0;
  virtual std::string describe() const = 0;  // the device as users write it ("<backend>:0"), for messages
  // The call that returns this memory's cached blocks, for out-of-memory messages.
  virtual std::string release_hint() const { return "xd::empty_cache()"; }
};

// A stream other than the block's own that used it; `keep_alive` owns the stream.
struct StreamUse {
  uint64_t stream_id = 0;
  void* stream = nullptr;
  std::shared_ptr<const void> keep_alive;
};

struct Block {
  void* segment = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t requested = 0;
  uint64_t stream_id = 0;
  bool allocated = false;
  bool small = false;
  int pending_events = 0;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::vector<StreamUse> uses;  // streams other than stream_id that used it
};

class CachingAllocator {
 public:
  static constexpr uint64_t kRound = 512;
  static constexpr uint64_t kSmallSize = 1ull << 20;
  static constexpr uint64_t kSmallSegment = 2ull << 20;
  static constexpr uint64_t kLargeSegment = 20ull << 20;
  static constexpr uint64_t kMinLargeAlloc = 10ull << 20;
  static constexpr uint64_t kRoundLarge = 2ull << 20;

  explicit CachingAllocator(AllocatorDevice& device) : device_(device) {}
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Throws OutOfMemoryError. `stream_id` identifies the stream the block is used on.
  Block* allocate(uint64_t nbytes, uint64_t stream_id);
  void free(Block* block);
  // Marks `block` as used by another stream (see the header comment). `keep_alive` (may be
  // empty) is held until the stream has passed the block's last use.
  void record_stream(Block* block, uint64_t stream_id, void* stream, std::shared_ptr<const void> keep_alive = {});
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak();

  static uint64_t round_size(uint64_t nbytes);

 private:
  struct Order {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, Order>;

  static constexpr uint64_t kFastMax = 4096;
  static constexpr size_t kFastBins = kFastMax / kRound;
  static constexpr size_t kFastDepth = 256;

  Block* find_free(Pool& pool, uint64_t size, uint64_t stream_id);
  void flush_fast_bins();
  bool try_raw_alloc(uint64_t size, void** handle, std::string& error);
  void release_block(Block* block);  // merge with neighbours and return to its pool
  void process_events();
  void release_cached_segments();
  [[noreturn]] void throw_oom(uint64_t nbytes, uint64_t size, const std::string& error);

  AllocatorDevice& device_;
  mutable SpinMutex mutex_;  // short sections; raw alloc/free of the plugin happen under it too
  Pool small_;
  Pool large_;
  struct Pending {
    void* event;
    Block* block;
    std::shared_ptr<const void> keep_alive;  // the stream the event was recorded on
  };
  std::vector<Pending> pending_;
  std::set<Block*> segments_;                      // first block of every live segment
  std::vector<Block*> fast_[kFastBins];            // bin i: blocks of (i + 1) * kRound bytes
  MemoryStats stats_;
};

}  // namespace xd::detail
