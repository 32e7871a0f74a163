// The caching host (pinned memory) allocator against a fake source with a memory limit and
// events the test completes (fake_allocator_device.hpp): blocks are host pointers into the
// source's segments, are cached, and are handed out again only after every stream that copied
// from or to them has passed.
#include "runtime/caching_host_allocator.hpp"

#include <xd/error.hpp>

#include "fake_allocator_device.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using xd::detail::Block;
using xd::detail::CachingHostAllocator;
using xd::test::FakeDevice;

constexpr uint64_t MiB = 1ull << 20;

// The allocator owns its source; the test keeps a pointer to look inside.
struct Fixture {
  explicit Fixture(uint64_t limit) {
    auto d = std::make_unique<FakeDevice>(limit);
    dev = d.get();
    alloc = std::make_unique<CachingHostAllocator>(std::move(d));
  }
  FakeDevice* dev;
  std::unique_ptr<CachingHostAllocator> alloc;
};

char* ptr(const Block* b) { return static_cast<char*>(CachingHostAllocator::pointer(b)); }

TEST(CachingHostAllocator, BlocksAreHostPointersIntoOneSegmentFromTheSource) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(100);
  Block* y = f.alloc->allocate(1000);
  EXPECT_EQ(f.dev->raw_allocs, 1);
  EXPECT_EQ(ptr(x), static_cast<char*>(x->segment));
  EXPECT_EQ(ptr(y), ptr(x) + 512);  // sizes round to 512 bytes
  const auto s = f.alloc->stats();
  EXPECT_EQ(s.allocated, 512u + 1024u);
  EXPECT_EQ(s.requested, 1100u);
  EXPECT_EQ(s.reserved, 2 * MiB);
  EXPECT_EQ(s.num_raw_allocs, 1u);
  f.alloc->free(x);
  f.alloc->free(y);
}

TEST(CachingHostAllocator, AFreedBlockNoCopyUsedIsCachedAndHandedOutAgain) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(12 * MiB);
  char* p = ptr(x);
  f.alloc->free(x);
  EXPECT_EQ(f.alloc->stats().reserved, 12 * MiB);  // cached, not returned to the source
  Block* y = f.alloc->allocate(12 * MiB);
  EXPECT_EQ(ptr(y), p);
  EXPECT_EQ(f.dev->raw_allocs, 1);
  EXPECT_TRUE(f.dev->recorded_on.empty());  // no copy used it: no event needed
  f.alloc->free(y);
}

TEST(CachingHostAllocator, ABlockIsNotHandedOutAgainBeforeTheCopysStreamPassesIt) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(12 * MiB);
  char* p = ptr(x);
  int stream = 0;
  f.alloc->record_copy(x, 7, &stream, nullptr);  // an asynchronous copy on stream 7 reads it
  f.dev->events_complete = false;
  f.alloc->free(x);
  ASSERT_EQ(f.dev->recorded_on.size(), 1u);
  EXPECT_EQ(f.dev->recorded_on[0], &stream);  // the event marks the copy's stream
  EXPECT_EQ(f.alloc->stats().pending_blocks, 1u);
  Block* y = f.alloc->allocate(12 * MiB);  // the copy may still run: not x's memory
  EXPECT_NE(ptr(y), p);
  EXPECT_EQ(f.dev->raw_allocs, 2);
  EXPECT_EQ(f.alloc->stats().pending_blocks, 1u);
  f.dev->events_complete = true;
  Block* z = f.alloc->allocate(12 * MiB);  // the stream has passed the copy: x's memory is back
  EXPECT_EQ(ptr(z), p);
  EXPECT_EQ(f.alloc->stats().pending_blocks, 0u);
  EXPECT_EQ(f.dev->raw_allocs, 2);
  f.alloc->free(y);
  f.alloc->free(z);
}

TEST(CachingHostAllocator, EveryStreamThatCopiedGetsAnEventAndRepeatedCopiesOnOneStreamGetOne) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(4096);
  int s1 = 0, s2 = 0;
  f.alloc->record_copy(x, 1, &s1, nullptr);
  f.alloc->record_copy(x, 2, &s2, nullptr);
  f.alloc->record_copy(x, 1, &s1, nullptr);  // in-order streams: one event covers both copies
  f.alloc->free(x);
  ASSERT_EQ(f.dev->recorded_on.size(), 2u);
  EXPECT_EQ(f.dev->recorded_on[0], &s1);
  EXPECT_EQ(f.dev->recorded_on[1], &s2);
}

TEST(CachingHostAllocator, KeepsTheCopysStreamAliveUntilItHasPassedTheCopy) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(4096);
  auto stream = std::make_shared<int>(0);
  f.alloc->record_copy(x, 3, stream.get(), stream);
  f.dev->events_complete = false;
  f.alloc->free(x);
  EXPECT_EQ(stream.use_count(), 2);  // the owner may destroy its stream; the event still needs it
  f.dev->events_complete = true;
  f.alloc->empty_cache();
  EXPECT_EQ(stream.use_count(), 1);
}

TEST(CachingHostAllocator, EmptyCacheReleasesFreeSegmentsButKeepsOnesACopyMayStillUse) {
  Fixture f(64 * MiB);
  Block* busy = f.alloc->allocate(12 * MiB);
  Block* idle = f.alloc->allocate(12 * MiB);
  int stream = 0;
  f.alloc->record_copy(busy, 7, &stream, nullptr);
  f.dev->events_complete = false;
  f.alloc->free(busy);
  f.alloc->free(idle);
  f.alloc->empty_cache();
  EXPECT_EQ(f.dev->raw_frees, 1);  // idle's segment
  EXPECT_EQ(f.alloc->stats().reserved, 12 * MiB);
  EXPECT_EQ(f.alloc->stats().pending_blocks, 1u);
  f.dev->events_complete = true;
  f.alloc->empty_cache();
  EXPECT_EQ(f.dev->used(), 0u);
  EXPECT_EQ(f.alloc->stats().reserved, 0u);
  EXPECT_EQ(f.alloc->stats().num_segments, 0u);
}

TEST(CachingHostAllocator, FailureFreesTheCacheRetriesOnceThenStatesTheSizes) {
  Fixture f(40 * MiB);
  Block* x = f.alloc->allocate(30 * MiB);
  f.alloc->free(x);                        // cached
  Block* y = f.alloc->allocate(36 * MiB);  // needs the cached segment back
  EXPECT_EQ(f.alloc->stats().num_cache_flushes, 1u);
  try {
    (void)f.alloc->allocate(30 * MiB);
    FAIL() << "expected OutOfMemoryError";
  } catch (const xd::OutOfMemoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("fake:0"), std::string::npos) << m;
    EXPECT_NE(m.find("tried to allocate 30.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("36.00 MiB reserved"), std::string::npos) << m;
    EXPECT_NE(m.find("fake device: only"), std::string::npos) << m;
  }
  EXPECT_EQ(f.alloc->stats().num_ooms, 1u);
  f.alloc->free(y);
}

TEST(CachingHostAllocator, PeakStatisticsTrackTheHighWaterMarkUntilReset) {
  Fixture f(64 * MiB);
  Block* x = f.alloc->allocate(8 * MiB);
  f.alloc->free(x);
  EXPECT_EQ(f.alloc->stats().peak_allocated, 8 * MiB);
  EXPECT_EQ(f.alloc->stats().allocated, 0u);
  f.alloc->reset_peak();
  EXPECT_EQ(f.alloc->stats().peak_allocated, 0u);
  EXPECT_EQ(f.alloc->stats().num_allocs, 1u);
  EXPECT_EQ(f.alloc->stats().num_frees, 1u);
}

}  // namespace
