// The caching allocator against a fake device with a memory limit and controllable events
// (fake_allocator_device.hpp).
#include <xd/error.hpp>

#include "fake_allocator_device.hpp"
#include "runtime/caching_allocator.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using xd::detail::Block;
using xd::detail::CachingAllocator;

using xd::test::FakeDevice;

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

TEST(CachingAllocator, AStreamThatUsedABlockIsKeptAliveUntilItPassesThatUse) {
  FakeDevice dev(64 * MiB);
  CachingAllocator a(dev);
  Block* x = a.allocate(4 * MiB, 1);
  auto stream = std::make_shared<int>(0);  // stands for the stream's state
  a.record_stream(x, 2, stream.get(), stream);
  EXPECT_EQ(stream.use_count(), 2);
  dev.events_complete = false;
  a.free(x);  // the event is recorded on the stream that used the block
  ASSERT_EQ(dev.recorded_on.size(), 1u);
  EXPECT_EQ(dev.recorded_on[0], stream.get());
  EXPECT_EQ(a.stats().pending_blocks, 1u);
  EXPECT_EQ(stream.use_count(), 2);  // its owner may drop it now: the allocator still holds it
  dev.events_complete = true;
  a.empty_cache();  // sees the event complete
  EXPECT_EQ(a.stats().pending_blocks, 0u);
  EXPECT_EQ(stream.use_count(), 1);
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
