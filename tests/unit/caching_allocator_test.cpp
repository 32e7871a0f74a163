// The caching allocator against a fake device with a memory limit and controllable events.
#include <xd/error.hpp>

#include "runtime/caching_allocator.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using xd::detail::Block;
using xd::detail::CachingAllocator;

class FakeDevice : public xd::detail::AllocatorDevice {
 public:
  explicit FakeDevice(uint64_t limit) : limit_(limit) {}
  bool raw_alloc(uint64_t n, void** handle, std::string& error) override {
    if (used_ + n > limit_) {
      error = "fake device: only " + std::to_string(limit_ - used_) + " bytes left";
      return false;
    }
    used_ += n;
    *handle = reinterpret_cast<void*>(next_++);
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
  void* record_event(void* /*stream*/) override {
    auto* e = new bool(events_complete);
    return e;
  }
  bool event_done(void* e) override { return *static_cast<bool*>(e) || events_complete; }
  void destroy_event(void* e) override { delete static_cast<bool*>(e); }
  std::string describe() const override { return "fake:0"; }

  uint64_t used() const { return used_; }
  bool events_complete = true;
  int raw_allocs = 0, raw_frees = 0;

 private:
  uint64_t limit_, used_ = 0;
  uintptr_t next_ = 0x1000;
  std::map<void*, uint64_t> sizes_;
};

constexpr uint64_t MiB = 1ull << 20;

TEST(CachingAllocator, RoundsSizesUpTo512Bytes) {
  EXPECT_EQ(CachingAllocator::round_size(0), 512u);
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
}

TEST(CachingAllocator, SmallRequestsShareOneTwoMiBSegmentAsOffsets) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(100, 1);
  Block* y = a.allocate(1000, 1);
  EXPECT_EQ(dev.raw_allocs, 1);
  EXPECT_EQ(x->segment, y->segment);
  EXPECT_EQ(x->offset, 0u);
  EXPECT_EQ(y->offset, 512u);
  EXPECT_EQ(a.stats().reserved, 2 * MiB);
  EXPECT_EQ(a.stats().allocated, 512u + 1024u);
  a.free(x);
  a.free(y);
}

TEST(CachingAllocator, FreedBlockIsReusedWithoutANewRawAllocation) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(4 * MiB, 1);
  const void* seg = x->segment;
  a.free(x);
  Block* y = a.allocate(4 * MiB, 1);
  EXPECT_EQ(y->segment, seg);
  EXPECT_EQ(dev.raw_allocs, 1);
  a.free(y);
}

TEST(CachingAllocator, FreeNeighboursMergeBackIntoOneBlock) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(8192, 1);  // above the fast-bin size: freed blocks merge at once
  Block* y = a.allocate(8192, 1);
  Block* z = a.allocate(8192, 1);
  a.free(x);
  a.free(z);
  a.free(y);  // merges with both neighbours and the tail
  Block* whole = a.allocate(CachingAllocator::kSmallSize, 1);
  EXPECT_EQ(whole->offset, 0u);
  EXPECT_EQ(dev.raw_allocs, 1);
  a.free(whole);
}

TEST(CachingAllocator, SmallFreedBlocksComeBackFromTheFastBinAndMergeOnEmptyCache) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(600, 1);
  a.free(x);
  Block* y = a.allocate(1000, 1);  // same 1024-byte class: the very same block
  EXPECT_EQ(y, x);
  Block* other = a.allocate(1000, 2);  // another stream never takes it
  EXPECT_NE(other, x);
  a.free(y);
  a.free(other);
  a.empty_cache();  // fast-bin blocks merge back, whole segments are released
  EXPECT_EQ(dev.used(), 0u);
}

TEST(CachingAllocator, BlocksAreNotReusedAcrossStreams) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(4 * MiB, 1);
  const void* seg = x->segment;
  a.free(x);
  Block* y = a.allocate(4 * MiB, 2);  // another stream: must not get stream 1's block
  EXPECT_NE(y->segment, seg);
  EXPECT_EQ(dev.raw_allocs, 2);
  a.free(y);
}

TEST(CachingAllocator, BlockUsedOnAnotherStreamWaitsForItsEventBeforeReuse) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(4 * MiB, 1);
  const void* seg = x->segment;
  int other_stream = 0;
  a.record_stream(x, 2, &other_stream);
  dev.events_complete = false;
  a.free(x);
  Block* y = a.allocate(4 * MiB, 1);  // event pending: x's bytes are not handed out again
  EXPECT_FALSE(y->segment == seg && y->offset == 0);
  dev.events_complete = true;
  Block* z = a.allocate(4 * MiB, 1);  // event done: x is back
  EXPECT_EQ(z->segment, seg);
  EXPECT_EQ(z->offset, 0u);
  a.free(y);
  a.free(z);
}

TEST(CachingAllocator, EmptyCacheReturnsFreeSegmentsToTheDevice) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(4 * MiB, 1);
  Block* y = a.allocate(100, 1);
  a.free(x);
  a.empty_cache();
  EXPECT_EQ(dev.raw_frees, 1);  // y's segment stays: y is alive
  EXPECT_EQ(a.stats().reserved, 2 * MiB);
  a.free(y);
  a.empty_cache();
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(a.stats().num_segments, 0u);
}

TEST(CachingAllocator, FailedAllocationFreesTheCacheAndRetriesOnce) {
  FakeDevice dev(40 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(30 * MiB, 1);
  a.free(x);  // 30 MiB cached
  Block* y = a.allocate(20 * MiB, 2);  // other stream, needs the cached memory back
  EXPECT_EQ(a.stats().num_cache_flushes, 1u);
  EXPECT_EQ(a.stats().reserved, 20 * MiB);
  a.free(y);
}

TEST(CachingAllocator, OutOfMemoryErrorStatesRequestedReservedAndDeviceSizes) {
  FakeDevice dev(40 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(30 * MiB, 1);
  try {
    (void)a.allocate(30 * MiB, 1);
    FAIL() << "expected OutOfMemoryError";
  } catch (const xd::OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fake:0"), std::string::npos) << m;
    EXPECT_NE(m.find("tried to allocate 30.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("30.00 MiB reserved"), std::string::npos) << m;
    EXPECT_NE(m.find("40.00 MiB in all"), std::string::npos) << m;
    EXPECT_NE(m.find("fake device: only"), std::string::npos) << m;
  }
  EXPECT_EQ(a.stats().num_ooms, 1u);
  a.free(x);
  EXPECT_NO_THROW(a.free(a.allocate(30 * MiB, 1)));  // recovers once memory is free
}

TEST(CachingAllocator, PeakStatisticsTrackTheHighWaterMark) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(8 * MiB, 1);
  a.free(x);
  const auto s = a.stats();
  EXPECT_EQ(s.allocated, 0u);
  EXPECT_EQ(s.peak_allocated, 8 * MiB);
  EXPECT_EQ(s.num_allocs, 1u);
  EXPECT_EQ(s.num_frees, 1u);
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_allocated, 0u);
}

}  // namespace
