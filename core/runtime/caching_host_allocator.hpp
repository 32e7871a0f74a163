// A device-agnostic caching allocator of pinned (page-locked) host memory for transfers — the idea
// of PyTorch's CachingHostAllocator, built on the device caching allocator rather than beside it:
// a backend's host_alloc/host_free play the part of raw alloc/free, and a block's address is
// segment + offset, a plain host pointer.
//
// Why cache: pinning is expensive (the OS locks the pages, the driver maps them), and freeing
// pinned memory may wait for the device, so a program that stages every batch through a fresh
// pinned buffer would otherwise pay both each time.
//
// What it inherits from CachingAllocator: 512-byte rounding, small/large pools with split and
// merge, statistics, empty_cache, and the out-of-memory path (free every cached segment, retry
// once, then an OutOfMemoryError stating the sizes).
//
// What differs: host blocks belong to no stream (all are allocated on kHostStream, an id no real
// stream has), because the CPU reads and writes them directly. Instead, every asynchronous copy
// that reads or writes a block records the copy's stream on it (record_copy); when the block is
// freed an event is recorded on each such stream, and the block is handed out again only after
// all of them have completed — a copy still in flight never sees its buffer reused.
//
// Thread safety: all members are thread-safe. Ownership: the allocator owns its source and every
// segment it obtained from it; blocks are owned by the caller between allocate and free.
#pragma once

#include "runtime/caching_allocator.hpp"

#include <memory>

namespace xd::detail {

class CachingHostAllocator {
 public:
  static constexpr uint64_t kHostStream = 0;  // stream ids start at 1

  // `source` provides host memory (raw_alloc/raw_free) and the events of the device the memory
  // is pinned for.
  explicit CachingHostAllocator(std::unique_ptr<AllocatorDevice> source)
      : source_(std::move(source)), cache_(*source_) {}

  // At least `nbytes` of pinned memory at pointer(block). Throws OutOfMemoryError.
  Block* allocate(uint64_t nbytes) { return cache_.allocate(nbytes, kHostStream); }
  static void* pointer(const Block* block) { return static_cast<char*>(block->segment) + block->offset; }
  // An asynchronous copy on `stream` reads or writes `block`: it is not reused before the stream
  // passes the work enqueued so far. `keep_alive` owns the stream until then.
  void record_copy(Block* block, uint64_t stream_id, void* stream, std::shared_ptr<const void> keep_alive) {
    cache_.record_stream(block, stream_id, stream, std::move(keep_alive));
  }
  void free(Block* block) { cache_.free(block); }
  // Returns every fully free cached segment to the source; blocks waiting for a copy stay.
  void empty_cache() { cache_.empty_cache(); }
  MemoryStats stats() const { return cache_.stats(); }
  void reset_peak() { cache_.reset_peak(); }
  const AllocatorDevice& source() const { return *source_; }

 private:
  std::unique_ptr<AllocatorDevice> source_;
  CachingAllocator cache_;
};

}  // namespace xd::detail
