#include "runtime/caching_allocator.hpp"

#include <xd/error.hpp>

#include <cstdio>
#include <tuple>

namespace xd::detail {

namespace {
std::string human(uint64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1ull << 30));
  } else if (bytes >= (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1ull << 20));
  } else if (bytes >= 1024) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024);
  } else {
    std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return buf;
}
}  // namespace

bool CachingAllocator::Order::operator()(const Block* a, const Block* b) const {
  return std::tie(a->stream_id, a->size, a->segment, a->offset) <
         std::tie(b->stream_id, b->size, b->segment, b->offset);
}

CachingAllocator::~CachingAllocator() {
  // Only reached for allocators owned by tests; the registry keeps device allocators for the
  // life of the process (plugins are never unloaded, and tensors may outlive static destructors).
  std::lock_guard lock(mutex_);
  for (const Pending& p : pending_) device_.destroy_event(p.event);
  for (Block* first : segments_) {
    Block* b = first;
    device_.raw_free(first->segment);
    while (b != nullptr) {
      Block* next = b->next;
      delete b;
      b = next;
    }
  }
}

uint64_t CachingAllocator::round_size(uint64_t nbytes) {
  if (nbytes < kRound) return kRound;
  return (nbytes + kRound - 1) / kRound * kRound;
}

Block* CachingAllocator::find_free(Pool& pool, uint64_t size, uint64_t stream_id) {
  Block key;
  key.stream_id = stream_id;
  key.size = size;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream_id != stream_id) return nullptr;
  Block* b = *it;
  pool.erase(it);
  return b;
}

bool CachingAllocator::try_raw_alloc(uint64_t size, void** handle, std::string& error) {
  ++stats_.num_raw_allocs;
  return device_.raw_alloc(size, handle, error);
}

Block* CachingAllocator::allocate(uint64_t nbytes, uint64_t stream_id) {
  const uint64_t size = round_size(nbytes);
  std::lock_guard lock(mutex_);
  if (size < nbytes) throw_oom(nbytes, size, "the size overflows");
  if (size <= kFastMax) {
    auto& bin = fast_[size / kRound - 1];
    if (!bin.empty() && bin.back()->stream_id == stream_id) {
      Block* b = bin.back();
      bin.pop_back();
      b->allocated = true;
      b->requested = nbytes;
      stats_.allocated += b->size;
      stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
      stats_.requested += nbytes;
      ++stats_.num_allocs;
      return b;
    }
  }
  if (!pending_.empty()) process_events();
  const bool small = size <= kSmallSize;
  Pool& pool = small ? small_ : large_;
  Block* block = find_free(pool, size, stream_id);
  if (block == nullptr) {
    uint64_t seg = small ? kSmallSegment
                         : (size < kMinLargeAlloc ? kLargeSegment
                                                  : (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge);
    if (seg < size) throw_oom(nbytes, size, "the size overflows");
    void* handle = nullptr;
    std::string error;
    if (!try_raw_alloc(seg, &handle, error)) {
      // Free every cached segment and retry once (with the exact size for a large request).
      ++stats_.num_cache_flushes;
      flush_fast_bins();
      process_events();
      release_cached_segments();
      if (!small) seg = size;
      error.clear();
      if (!try_raw_alloc(seg, &handle, error)) throw_oom(nbytes, size, error);
    }
    block = new Block;
    block->segment = handle;
    block->size = seg;
    block->stream_id = stream_id;
    block->small = small;
    segments_.insert(block);
    stats_.reserved += seg;
    stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.reserved);
    ++stats_.num_segments;
  }
  const uint64_t rest = block->size - size;
  if ((small && rest >= kRound) || (!small && rest > kSmallSize)) {
    Block* r = new Block;
    r->segment = block->segment;
    r->offset = block->offset + size;
    r->size = rest;
    r->stream_id = stream_id;
    r->small = small;
    r->prev = block;
    r->next = block->next;
    if (block->next != nullptr) block->next->prev = r;
    block->next = r;
    block->size = size;
    pool.insert(r);
  }
  block->allocated = true;
  block->requested = nbytes;
  stats_.allocated += block->size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  stats_.requested += nbytes;
  ++stats_.num_allocs;
  return block;
}

void CachingAllocator::record_stream(Block* block, uint64_t stream_id, void* stream,
                                     std::shared_ptr<const void> keep_alive) {
  std::lock_guard lock(mutex_);
  if (stream_id == block->stream_id) return;
  for (const auto& u : block->uses)
    if (u.stream_id == stream_id) return;
  block->uses.push_back(StreamUse{stream_id, stream, std::move(keep_alive)});
}

void CachingAllocator::free(Block* block) {
  std::lock_guard lock(mutex_);
  block->allocated = false;
  stats_.allocated -= block->size;
  stats_.requested -= block->requested;
  ++stats_.num_frees;
  if (!block->uses.empty()) {
    for (auto& u : block->uses) {
      void* ev = device_.record_event(u.stream);
      if (ev != nullptr) {
        pending_.push_back(Pending{ev, block, std::move(u.keep_alive)});
        ++block->pending_events;
      }
    }
    block->uses.clear();
    if (block->pending_events > 0) {
      ++stats_.pending_blocks;
      return;
    }
  }
  if (block->size <= kFastMax) {
    auto& bin = fast_[block->size / kRound - 1];
    if (bin.size() < kFastDepth) {
      bin.push_back(block);
      return;
    }
  }
  release_block(block);
}

void CachingAllocator::flush_fast_bins() {
  for (auto& bin : fast_) {
    for (Block* b : bin) release_block(b);
    bin.clear();
  }
}

void CachingAllocator::release_block(Block* block) {
  Pool& pool = block->small ? small_ : large_;
  auto mergeable = [](const Block* b) { return b != nullptr && !b->allocated && b->pending_events == 0; };
  if (mergeable(block->prev) && pool.count(block->prev) != 0) {
    Block* p = block->prev;
    pool.erase(p);
    p->size += block->size;
    p->next = block->next;
    if (block->next != nullptr) block->next->prev = p;
    delete block;
    block = p;
  }
  if (mergeable(block->next) && pool.count(block->next) != 0) {
    Block* n = block->next;
    pool.erase(n);
    block->size += n->size;
    block->next = n->next;
    if (n->next != nullptr) n->next->prev = block;
    delete n;
  }
  pool.insert(block);
}

void CachingAllocator::process_events() {
  for (size_t i = 0; i < pending_.size();) {
    void* event = pending_[i].event;
    Block* block = pending_[i].block;
    if (device_.event_done(event)) {
      device_.destroy_event(event);
      pending_[i] = std::move(pending_.back());
      pending_.pop_back();
      if (--block->pending_events == 0) {
        --stats_.pending_blocks;
        release_block(block);
      }
    } else {
      ++i;
    }
  }
}

void CachingAllocator::release_cached_segments() {
  for (Pool* pool : {&small_, &large_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->prev == nullptr && b->next == nullptr) {
        device_.raw_free(b->segment);
        stats_.reserved -= b->size;
        --stats_.num_segments;
        segments_.erase(b);
        it = pool->erase(it);
        delete b;
      } else {
        ++it;
      }
    }
  }
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  flush_fast_bins();
  process_events();
  release_cached_segments();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
  stats_.peak_reserved = stats_.reserved;
}

void CachingAllocator::throw_oom(uint64_t nbytes, uint64_t size, const std::string& error) {
  ++stats_.num_ooms;
  const uint64_t total = device_.total_memory();
  std::string msg = "out of memory on " + device_.describe() + ": tried to allocate " + human(nbytes);
  if (size != nbytes) msg += " (rounded to " + human(size) + ")";
  msg += "; xdispatch has " + human(stats_.reserved) + " reserved, " + human(stats_.allocated) +
         " of it in tensors and " + human(stats_.reserved - stats_.allocated) + " cached";
  if (total > 0) {
    msg += "; the device has " + human(total) + " in all";
    if (total > stats_.reserved) msg += ", at most " + human(total - stats_.reserved) + " free";
  }
  if (!error.empty()) msg += "; the backend said: " + error;
  msg += ". Free tensors you no longer need, call " + device_.release_hint() + ", or use smaller sizes.";
  throw OutOfMemoryError(msg);
}

}  // namespace xd::detail
