// Streams, events, guards, the allocator's statistics, the generator, and concurrent dispatch.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

TEST(Runtime, DefaultDeviceIsCpuWithoutXdBackend) { EXPECT_EQ(xd::default_device().backend(), "cpu"); }

TEST(Runtime, DeviceGuardRestoresTheCurrentDevice) {
  const xd::Device before = xd::current_device();
  {
    xd::DeviceGuard g(xd::cpu());
    EXPECT_EQ(xd::current_device(), xd::cpu());
  }
  EXPECT_EQ(xd::current_device(), before);
}

TEST(Runtime, StreamGuardMakesAStreamCurrentAndRestoresTheDefault) {
  const xd::Device cpu = xd::cpu();
  const xd::Stream def = xd::current_stream(cpu);
  EXPECT_EQ(def, xd::default_stream(cpu));
  const xd::Stream s = xd::Stream::create(cpu);
  {
    xd::StreamGuard g(s);
    EXPECT_EQ(xd::current_stream(cpu), s);
    auto t = xd::ones({4}, xd::Dtype::f32, cpu);
    EXPECT_EQ(xd::sum(t).item<float>(), 4.0f);
  }
  EXPECT_EQ(xd::current_stream(cpu), def);
  s.synchronize();
  EXPECT_TRUE(s.query());
}

TEST(Runtime, EventsMeasureElapsedTime) {
  xd::Event start(xd::cpu()), end(xd::cpu());
  start.record();
  auto a = xd::rand({256, 256}, xd::Dtype::f32, xd::cpu());
  (void)xd::mm(a, a);
  end.record();
  end.synchronize();
  EXPECT_TRUE(end.query());
  EXPECT_GE(start.elapsed_ms(end), 0.0);
  start.block(xd::current_stream(xd::cpu()));
}

TEST(Runtime, ElapsedTimeNeedsRecordedEvents) {
  xd::Event a(xd::cpu()), b(xd::cpu());
  EXPECT_THROW((void)a.elapsed_ms(b), xd::ValueError);
}

TEST(Runtime, MemoryStatsFollowTensorLifetimes) {
  const xd::Device cpu = xd::cpu();
  const auto before = xd::memory_stats(cpu);
  {
    auto t = xd::empty({1024, 1024}, xd::Dtype::f32, cpu);  // 4 MiB: large pool
    const auto during = xd::memory_stats(cpu);
    EXPECT_EQ(during.allocated, before.allocated + (4u << 20));
    EXPECT_GE(during.peak_allocated, during.allocated);
  }
  const auto after = xd::memory_stats(cpu);
  EXPECT_EQ(after.allocated, before.allocated);
  EXPECT_GE(after.reserved, 4u << 20);  // cached
  xd::empty_cache(cpu);
  EXPECT_LT(xd::memory_stats(cpu).reserved, after.reserved);
}

TEST(Runtime, GeneratorReservesDisjointRangesAndSeedsReproduce) {
  xd::Generator g(7);
  EXPECT_EQ(g.reserve(10), 0u);
  EXPECT_EQ(g.reserve(5), 10u);
  EXPECT_EQ(g.offset(), 15u);
  xd::Generator a(42), b(42);
  EXPECT_EQ(xd::rand({100}, xd::Dtype::f32, xd::cpu(), &a).to_vector<float>(),
            xd::rand({100}, xd::Dtype::f32, xd::cpu(), &b).to_vector<float>());
  EXPECT_NE(xd::rand({4}, xd::Dtype::f32, xd::cpu(), &a).to_vector<float>(),
            xd::rand({4}, xd::Dtype::f32, xd::cpu(), &a).to_vector<float>());
}

TEST(Runtime, ManyThreadsDispatchConcurrently) {
  // Plugins load on the first call, here on the main thread: PoCL's LLVM installs a malloc'd
  // sigaltstack on the thread that loads it, and ASan's thread teardown then tries to munmap
  // that stack ("unable to unmap") when a worker thread exits. Dispatch itself is what is tested.
  ASSERT_FALSE(xd::backends().empty());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 200; ++i) {
        auto a = xd::full({17}, t, xd::Dtype::f32, xd::cpu());
        auto b = xd::full({17}, i, xd::Dtype::f32, xd::cpu());
        auto c = xd::sum(xd::add(a, b));
        if (c.item<float>() != 17.0f * static_cast<float>(t + i)) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Runtime, BackendListAndKernelCoverageNameTheCpuBackend) {
  bool cpu = false;
  for (const auto& b : xd::backends()) cpu |= b.name == "cpu" && b.device_count == 1;
  EXPECT_TRUE(cpu);
  int add_kernels = 0;
  for (const auto& k : xd::kernels()) add_kernels += k.op == "add" && k.backend == "cpu";
  EXPECT_GE(add_kernels, 8);  // f64 f32 f16 bf16 i8 u8 i32 i64
  EXPECT_EQ(xd::op_names().size(), static_cast<size_t>(XD_OP_COUNT_LATEST));
}

}  // namespace
