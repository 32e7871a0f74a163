// The plugin's runtime (init, memory, streams, events, the module cache) against the fake Level
// Zero driver of fake_ze.hpp: no machine of this project has a real one, so this is where what
// the runtime asks of a driver, in which order, is checked. What the fake cannot tell (that a
// real driver computes what the spec says) is left to `xd-conform --backend levelzero` on an
// Intel GPU (docs/backends/levelzero.md).
//
// Every test ends by checking that the fake saw no breach of the Level Zero contract (memory
// freed or an event destroyed while a queued command may use it, a host wait that would never
// end, ...).
#include <xd/plugin.hpp>

#include "fake_ze.hpp"
#include "program/module_cache.hpp"
#include "runtime/driver.hpp"
#include "runtime/runtime.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct recorded_host {
  xd_status code = XD_OK;
  std::string error;
};

xd_status record_error(void* ctx, xd_status code, const char* message) {
  auto& h = *static_cast<recorded_host*>(ctx);
  h.code = code;
  h.error = message;
  return code;
}

void ignore_log(void*, int32_t, const char*) {}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "  " + l + "\n";
  return out;
}

size_t position_of(const std::string& prefix, size_t from = 0) {
  const auto& c = fake_ze::calls();
  for (size_t i = from; i < c.size(); ++i)
    if (c[i].rfind(prefix, 0) == 0) return i;
  return c.size();
}

class LevelZeroFakeDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    host_.struct_size = sizeof host_;
    host_.ctx = &recorded_;
    host_.set_error = record_error;
    host_.log = ignore_log;
    xd::plugin::this_plugin().host.set(&host_);
  }
  void TearDown() override {
    EXPECT_TRUE(fake_ze::violations().empty()) << "the plugin broke the Level Zero contract:\n"
                                               << joined(fake_ze::violations());
  }

  // A fresh fake driver and a platform initialised on it.
  void start(const fake_ze::config& c = {}) {
    fake_ze::reset(c);
    xd::l0::init_platform();
    api_ = {};
    api_.struct_size = sizeof api_;
    xd::l0::fill_device_api(api_);
    xd::l0::fill_memory_api(api_);
    xd::l0::fill_stream_api(api_);
  }

  void* device_memory(int32_t dev, uint64_t n) {
    void* p = nullptr;
    EXPECT_EQ(api_.mem_alloc(nullptr, dev, n, &p), XD_OK) << recorded_.error;
    return p;
  }
  xd_stream new_stream(int32_t dev) {
    xd_stream s = nullptr;
    EXPECT_EQ(api_.stream_create(nullptr, dev, &s), XD_OK) << recorded_.error;
    return s;
  }
  xd_event new_event(int32_t dev) {
    xd_event e = nullptr;
    EXPECT_EQ(api_.event_create(nullptr, dev, &e), XD_OK) << recorded_.error;
    return e;
  }
  // Two events recorded on `s` around a device-to-device copy; the stream is then synchronized.
  // Device time between the two record barriers' ends: the copy, its ordering barrier and the
  // second record's barrier (fake_ze: copy_ticks + 2 * barrier_ticks).
  void two_recorded_events(int32_t dev, xd_stream s, xd_event* first, xd_event* second) {
    void* a = device_memory(dev, 256);
    void* b = device_memory(dev, 256);
    *first = new_event(dev);
    *second = new_event(dev);
    ASSERT_EQ(api_.event_record(nullptr, dev, *first, s), XD_OK) << recorded_.error;
    ASSERT_EQ(api_.copy_d2d(nullptr, dev, s, b, 0, a, 0, 256), XD_OK) << recorded_.error;
    ASSERT_EQ(api_.event_record(nullptr, dev, *second, s), XD_OK) << recorded_.error;
    ASSERT_EQ(api_.stream_synchronize(nullptr, dev, s), XD_OK) << recorded_.error;
    ASSERT_EQ(api_.mem_free(nullptr, dev, a), XD_OK) << recorded_.error;
    ASSERT_EQ(api_.mem_free(nullptr, dev, b), XD_OK) << recorded_.error;
  }
  static constexpr double kTicksBetween = 1000 + 2 * 3;  // fake_ze::config defaults

  xd_host_api host_{};
  recorded_host recorded_;
  xd_plugin_api api_{};
};

// ---------------------------------------------------------------- init

TEST_F(LevelZeroFakeDriver, InitFailingOnTheSecondDeviceLeavesNoContextAndNoDeviceBehind) {
  fake_ze::config c;
  c.gpus = 2;
  c.fail_compute_properties_of_device = 1;
  fake_ze::reset(c);
  const int32_t before = xd::l0::device_count();
  try {
    xd::l0::init_platform();
    FAIL() << "init succeeded although zeDeviceGetComputeProperties failed";
  } catch (const xd::plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_DEVICE);
    EXPECT_STREQ(e.what(), "levelzero: zeDeviceGetComputeProperties failed: ZE_RESULT_ERROR_DEVICE_LOST");
  }
  EXPECT_EQ(fake_ze::count().live_contexts, 0);
  EXPECT_EQ(fake_ze::count().contexts_destroyed, 1);
  EXPECT_EQ(xd::l0::device_count(), before) << "the failed init changed the platform";

  // Tried again once the fault is gone: the two devices, none left from the first attempt.
  fake_ze::settings().fail_compute_properties_of_device = -1;
  xd::l0::init_platform();
  EXPECT_EQ(xd::l0::device_count(), 2);
  EXPECT_EQ(fake_ze::count().live_contexts, 1);
}

TEST_F(LevelZeroFakeDriver, ZeInitFailingIsUnavailableWithTheLoadersResultCode) {
  fake_ze::config c;
  c.init_result = ZE_RESULT_ERROR_UNINITIALIZED;
  fake_ze::reset(c);
  try {
    xd::l0::init_platform();
    FAIL() << "init succeeded although zeInit failed";
  } catch (const xd::plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_UNAVAILABLE);
    EXPECT_EQ(std::string(e.what()).rfind("no Level Zero driver: zeInit(ZE_INIT_FLAG_GPU_ONLY) returned "
                                          "ZE_RESULT_ERROR_UNINITIALIZED (",
                                          0),
              0u)
        << e.what();
  }
  EXPECT_FALSE(fake_ze::called("zeContextCreate"));
}

// ---------------------------------------------------------------- freeing memory

TEST_F(LevelZeroFakeDriver, FreeUsesTheBlockingFreePolicyWhereTheDriverOffersIt) {
  fake_ze::config c;
  c.free_policies_extension = true;
  c.free_policies =
      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE | ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
  start(c);
  void* a = device_memory(0, 1024);
  void* b = device_memory(0, 1024);
  xd_stream s = new_stream(0);
  ASSERT_EQ(api_.copy_d2d(nullptr, 0, s, b, 0, a, 0, 1024), XD_OK);  // queued, reads a
  ASSERT_GT(fake_ze::count().pending_commands, 0);

  ASSERT_EQ(api_.mem_free(nullptr, 0, a), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().mem_free_ext_calls, 1);
  EXPECT_EQ(fake_ze::count().last_free_policy,
            static_cast<uint32_t>(ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE));
  EXPECT_EQ(fake_ze::count().mem_free_calls, 0);
  EXPECT_FALSE(fake_ze::called("zeEventHostSynchronize")) << "the blocking free needs no stream synchronization";

  EXPECT_EQ(api_.mem_free(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
  EXPECT_EQ(fake_ze::count().live_allocations, 0);
}

TEST_F(LevelZeroFakeDriver, FreeWithoutTheExtensionSynchronizesEveryStreamOfTheContextFirst) {
  fake_ze::config c;
  c.gpus = 2;  // one context, two devices: a stream of either may use the memory's context
  start(c);
  void* a0 = device_memory(0, 512);
  void* b0 = device_memory(0, 512);
  void* a1 = device_memory(1, 512);
  void* b1 = device_memory(1, 512);
  xd_stream s0 = new_stream(0);
  xd_stream s1 = new_stream(1);
  ASSERT_EQ(api_.copy_d2d(nullptr, 0, s0, b0, 0, a0, 0, 512), XD_OK);
  ASSERT_EQ(api_.copy_d2d(nullptr, 1, s1, b1, 0, a1, 0, 512), XD_OK);

  ASSERT_EQ(api_.mem_free(nullptr, 0, a0), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().mem_free_ext_calls, 0);
  EXPECT_EQ(fake_ze::count().mem_free_calls, 1);
  EXPECT_EQ(fake_ze::count().pending_commands, 0) << "a stream of the context was not synchronized before zeMemFree";

  EXPECT_EQ(api_.mem_free(nullptr, 0, b0), XD_OK);
  for (void* p : {a1, b1}) EXPECT_EQ(api_.mem_free(nullptr, 1, p), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s0), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 1, s1), XD_OK);
}

TEST_F(LevelZeroFakeDriver, AFreePolicyExtensionWithoutTheBlockingPolicyIsNotUsed) {
  fake_ze::config c;
  c.free_policies_extension = true;
  c.free_policies = ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
  start(c);
  void* a = device_memory(0, 64);
  void* b = device_memory(0, 64);
  xd_stream s = new_stream(0);
  ASSERT_EQ(api_.copy_d2d(nullptr, 0, s, b, 0, a, 0, 64), XD_OK);
  ASSERT_EQ(api_.mem_free(nullptr, 0, a), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().mem_free_ext_calls, 0);
  EXPECT_EQ(fake_ze::count().mem_free_calls, 1);
  EXPECT_EQ(api_.mem_free(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, PinnedHostMemoryIsFreedOnlyAfterTheCopiesQueuedFromIt) {
  start();
  void* pinned = nullptr;
  ASSERT_EQ(api_.host_alloc(nullptr, 0, 128, &pinned), XD_OK);
  std::memset(pinned, 0x5a, 128);
  void* d = device_memory(0, 128);
  xd_stream s = new_stream(0);
  ASSERT_EQ(api_.copy_h2d(nullptr, 0, s, d, 0, pinned, 128, 0), XD_OK);  // pinned: asynchronous
  ASSERT_GT(fake_ze::count().pending_commands, 0);
  ASSERT_EQ(api_.host_free(nullptr, 0, pinned), XD_OK) << recorded_.error;
  EXPECT_EQ(static_cast<unsigned char*>(d)[127], 0x5a) << "the copy had not run when its source was freed";
  EXPECT_EQ(api_.mem_free(nullptr, 0, d), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

// ---------------------------------------------------------------- events

TEST_F(LevelZeroFakeDriver, DestroyingARecordedEventWaitsForItFirst) {
  start();
  void* a = device_memory(0, 64);
  void* b = device_memory(0, 64);
  xd_stream s = new_stream(0);
  xd_event e = new_event(0);
  ASSERT_EQ(api_.copy_d2d(nullptr, 0, s, b, 0, a, 0, 64), XD_OK);
  ASSERT_EQ(api_.event_record(nullptr, 0, e, s), XD_OK);
  ASSERT_EQ(api_.event_query(nullptr, 0, e), XD_NOT_READY);

  const int destroyed = fake_ze::count().events_destroyed;
  ASSERT_EQ(api_.event_destroy(nullptr, 0, e), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().events_destroyed, destroyed + 1);
  const size_t destroy = position_of("zeEventDestroy");
  size_t wait = fake_ze::calls().size();
  for (size_t i = 0; i < destroy; ++i)
    if (fake_ze::calls()[i] == "zeEventHostSynchronize") wait = i;
  EXPECT_LT(wait, destroy) << "zeEventDestroy without waiting for the event:\n" << joined(fake_ze::calls());

  EXPECT_EQ(api_.mem_free(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.mem_free(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, AnEventAnotherStreamWaitsOnIsDestroyedOnlyOnceThatStreamIsPastTheWait) {
  start();
  xd_stream producer = new_stream(0);
  xd_stream consumer = new_stream(0);
  xd_event e = new_event(0);
  ASSERT_EQ(api_.event_record(nullptr, 0, e, producer), XD_OK);
  ASSERT_EQ(api_.stream_wait_event(nullptr, 0, consumer, e), XD_OK);
  const int destroyed = fake_ze::count().events_destroyed;

  // The caller lets go at once (CUDA allows it); the consumer's wait is still queued.
  ASSERT_EQ(api_.event_destroy(nullptr, 0, e), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().events_destroyed, destroyed) << "destroyed while the consumer's wait may still read it";

  ASSERT_EQ(api_.stream_synchronize(nullptr, 0, consumer), XD_OK) << recorded_.error;
  EXPECT_EQ(fake_ze::count().events_destroyed, destroyed + 1) << "kept after the consumer got past its wait";

  EXPECT_EQ(api_.stream_destroy(nullptr, 0, producer), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, consumer), XD_OK);
  EXPECT_EQ(fake_ze::count().live_events, 0);
  EXPECT_EQ(fake_ze::count().live_pools, 0);
}

TEST_F(LevelZeroFakeDriver, EventsWaitedOnByAStreamNeverSynchronizedDoNotAccumulate) {
  start();
  xd_stream producer = new_stream(0);
  xd_stream consumer = new_stream(0);
  for (int i = 0; i < 300; ++i) {
    xd_event e = new_event(0);
    ASSERT_EQ(api_.event_record(nullptr, 0, e, producer), XD_OK);
    ASSERT_EQ(api_.stream_wait_event(nullptr, 0, consumer, e), XD_OK);
    ASSERT_EQ(api_.event_destroy(nullptr, 0, e), XD_OK);
    fake_ze::run_all();  // the device keeps up
  }
  // Two stream markers, and at most about one pruning period of events still held.
  EXPECT_LT(fake_ze::count().live_events, 2 + 2 * 64);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, consumer), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, producer), XD_OK);
  EXPECT_EQ(fake_ze::count().live_events, 0);
}

TEST_F(LevelZeroFakeDriver, RecordAppendsABarrierSignallingAKernelTimestampEvent) {
  start();
  xd_stream s = new_stream(0);
  xd_event e = new_event(0);
  const size_t from = fake_ze::calls().size();
  ASSERT_EQ(api_.event_record(nullptr, 0, e, s), XD_OK);
  EXPECT_LT(position_of("zeCommandListAppendEventReset", from),
            position_of("zeCommandListAppendBarrier(signal)", from));
  EXPECT_LT(position_of("zeCommandListAppendBarrier(signal)", from), fake_ze::calls().size());
  ASSERT_EQ(api_.event_synchronize(nullptr, 0, e), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, e), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeIsTheDifferenceOfTheRecordBarriersKernelEndTimestamps) {
  fake_ze::config c;
  c.api = ZE_API_VERSION_1_1;  // DEVICE_PROPERTIES: timerResolution in nanoseconds
  c.timer_resolution_ns = 80;
  start(c);
  EXPECT_EQ(fake_ze::last_device_properties_stype(), ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  xd_stream s = new_stream(0);
  xd_event a = nullptr, b = nullptr;
  two_recorded_events(0, s, &a, &b);
  double ms = 0;
  ASSERT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_OK) << recorded_.error;
  EXPECT_DOUBLE_EQ(ms, kTicksBetween * 80e-6);
  EXPECT_TRUE(fake_ze::called("zeEventQueryKernelTimestamp"));
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeReadsTimerResolutionAsTicksPerSecondFromApi12On) {
  fake_ze::config c;
  c.api = ZE_API_VERSION_1_4;  // DEVICE_PROPERTIES_1_2: timerResolution in ticks per second
  c.timer_frequency_hz = 19200000;
  start(c);
  EXPECT_EQ(fake_ze::last_device_properties_stype(), ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2);
  xd_stream s = new_stream(0);
  xd_event a = nullptr, b = nullptr;
  two_recorded_events(0, s, &a, &b);
  double ms = 0;
  ASSERT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_OK) << recorded_.error;
  EXPECT_NEAR(ms, kTicksBetween / 19200000.0 * 1e3, 1e-12);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeSurvivesAWrapOfTheKernelTimestampCounter) {
  fake_ze::config c;
  c.api = ZE_API_VERSION_1_1;
  c.timer_resolution_ns = 80;
  c.kernel_timestamp_bits = 32;
  c.clock_start = (1ull << 32) - 500;  // the copy between the two records crosses 2^32
  start(c);
  xd_stream s = new_stream(0);
  xd_event a = nullptr, b = nullptr;
  two_recorded_events(0, s, &a, &b);
  double ms = 0;
  ASSERT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_OK) << recorded_.error;
  EXPECT_DOUBLE_EQ(ms, kTicksBetween * 80e-6);
  // The other way round is the same interval, negative.
  ASSERT_EQ(api_.event_elapsed_ms(nullptr, 0, b, a, &ms), XD_OK) << recorded_.error;
  EXPECT_DOUBLE_EQ(ms, -kTicksBetween * 80e-6);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeWithAnEventNeverRecordedIsAnInvalidArgument) {
  start();
  xd_stream s = new_stream(0);
  xd_event a = new_event(0);
  xd_event b = new_event(0);
  ASSERT_EQ(api_.event_record(nullptr, 0, a, s), XD_OK);
  ASSERT_EQ(api_.stream_synchronize(nullptr, 0, s), XD_OK);
  double ms = 0;
  EXPECT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(recorded_.error, "levelzero: elapsed time between events that were not recorded");
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeOfAnEventNotYetCompleteIsAnInvalidArgument) {
  start();
  xd_stream s = new_stream(0);
  xd_event a = new_event(0);
  xd_event b = new_event(0);
  ASSERT_EQ(api_.event_record(nullptr, 0, a, s), XD_OK);
  ASSERT_EQ(api_.event_record(nullptr, 0, b, s), XD_OK);  // neither has run
  double ms = 0;
  EXPECT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(recorded_.error, "levelzero: elapsed time of an event that has not completed");
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ElapsedTimeBetweenEventsOfTwoDevicesIsAnInvalidArgument) {
  fake_ze::config c;
  c.gpus = 2;
  start(c);
  xd_stream s0 = new_stream(0);
  xd_stream s1 = new_stream(1);
  xd_event a = new_event(0);
  xd_event b = new_event(1);
  ASSERT_EQ(api_.event_record(nullptr, 0, a, s0), XD_OK);
  ASSERT_EQ(api_.event_record(nullptr, 1, b, s1), XD_OK);
  ASSERT_EQ(api_.stream_synchronize(nullptr, 0, s0), XD_OK);
  ASSERT_EQ(api_.stream_synchronize(nullptr, 1, s1), XD_OK);
  double ms = 0;
  EXPECT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(recorded_.error,
            "levelzero: elapsed time between events of two devices (fake GPU 0, fake GPU 1): their timers are not "
            "comparable");
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 1, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s0), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 1, s1), XD_OK);
}

TEST_F(LevelZeroFakeDriver, ADeviceWithoutATimerResolutionCannotTimeAndSaysSo) {
  fake_ze::config c;
  c.timer_frequency_hz = 0;
  start(c);
  xd_device_properties p{};
  p.struct_size = sizeof p;
  ASSERT_EQ(api_.device_properties(nullptr, 0, &p), XD_OK);
  EXPECT_EQ(p.flags & XD_DEVICE_FLAG_TIMING, 0u) << "a device that cannot time claims XD_DEVICE_FLAG_TIMING";
  xd_stream s = new_stream(0);
  xd_event a = nullptr, b = nullptr;
  two_recorded_events(0, s, &a, &b);
  double ms = 0;
  EXPECT_EQ(api_.event_elapsed_ms(nullptr, 0, a, b, &ms), XD_ERR_NOT_IMPLEMENTED);
  EXPECT_EQ(recorded_.error, "levelzero: fake GPU 0 reports no timer resolution (timerResolution 0): no elapsed time");
  EXPECT_EQ(api_.event_destroy(nullptr, 0, a), XD_OK);
  EXPECT_EQ(api_.event_destroy(nullptr, 0, b), XD_OK);
  EXPECT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK);
}

// ---------------------------------------------------------------- module cache

// The DPAS route (matmul_dpas.cl's SPIR-V modules): taken where the driver lists Intel's dot-product
// properties extension and the device reports DPAS through it, for the device's smallest sub-group
// size when that is 8 or 16, with SPIR-V 1.1 accepted. The fake answers as the configuration says;
// what a real driver reports on which GPU is not tested here.
fake_ze::config dpas_device(std::vector<uint32_t> sub_group_sizes) {
  fake_ze::config c;
  c.dp_extension = true;
  c.dp_flags = 1u << 1;  // ZE_INTEL_DEVICE_MODULE_EXP_FLAG_DPAS
  c.sub_group_sizes = std::move(sub_group_sizes);
  return c;
}

TEST_F(LevelZeroFakeDriver, ADeviceReportingDpasGetsTheModuleOfItsSmallestSubGroupSize) {
  start(dpas_device({16, 32}));
  EXPECT_EQ(xd::l0::device_at(0).dpas_sub_group, 16) << xd::l0::device_at(0).dpas_why;
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 16);
  EXPECT_FALSE(xd::l0::device_at(0).launch.matmul_dpas_emulated);
  EXPECT_STREQ(xd::l0::device_at(0).launch.matmul_dpas_why, "DPAS, sub-group size 16");
  start(dpas_device({8, 16, 32}));
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 8);
}

TEST_F(LevelZeroFakeDriver, DpasIsNotUsedWithoutTheExtensionTheFlagALayoutOrSpirv11SayingWhy) {
  fake_ze::config c = dpas_device({16, 32});
  c.dp_extension = false;  // the query is then not chained (the fake records it if it is)
  start(c);
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 0);
  EXPECT_EQ(xd::l0::device_at(0).dpas_why,
            "the driver does not list ZE_intel_experimental_device_module_dp_properties");
  c = dpas_device({16, 32});
  c.dp_flags = 1u;  // DP4A only
  start(c);
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 0);
  EXPECT_EQ(xd::l0::device_at(0).dpas_why, "the device does not report ZE_INTEL_DEVICE_MODULE_EXP_FLAG_DPAS");
  start(dpas_device({32}));
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 0);
  EXPECT_EQ(xd::l0::device_at(0).dpas_why, "its smallest sub-group size is neither 8 nor 16");
  c = dpas_device({16, 32});
  c.spirv_version = ZE_MAKE_VERSION(1, 0);
  start(c);
  EXPECT_EQ(xd::l0::device_at(0).launch.matmul_dpas_sg, 0);
  EXPECT_EQ(xd::l0::device_at(0).dpas_why, "the device takes SPIR-V 1.0, the DPAS modules are SPIR-V 1.1");
}

TEST_F(LevelZeroFakeDriver, AFailedKernelCreationCachesNothingAndTheNextCallRetries) {
  fake_ze::config c;
  c.kernel_create_result = ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  start(c);
  {
    xd::l0::module_cache cache(xd::l0::device_at(0));
    try {
      (void)cache.kernel("pointwise", "f32", "xd_fill_f32");
      FAIL() << "a kernel whose zeKernelCreate failed was returned";
    } catch (const xd::plugin::error& e) {
      EXPECT_EQ(e.code(), XD_ERR_DEVICE);
      EXPECT_STREQ(e.what(), "levelzero: zeKernelCreate(xd_fill_f32) failed: ZE_RESULT_ERROR_INVALID_KERNEL_NAME");
    }
    EXPECT_TRUE(fake_ze::called("zeModuleCreate(-cl-fp32-correctly-rounded-divide-sqrt")) << joined(fake_ze::calls());

    fake_ze::settings().kernel_create_result = ZE_RESULT_SUCCESS;
    xd::l0::kernel_object& k = cache.kernel("pointwise", "f32", "xd_fill_f32");
    EXPECT_NE(k.handle, nullptr);
    EXPECT_EQ(k.name, "xd_fill_f32");
    EXPECT_EQ(&cache.kernel("pointwise", "f32", "xd_fill_f32"), &k);
    EXPECT_EQ(fake_ze::count().live_kernels, 1);
    EXPECT_EQ(fake_ze::count().live_modules, 1);

    // Another kernel of the module fails and is not tried again before the cache goes.
    fake_ze::settings().kernel_create_result = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    try {
      (void)cache.kernel("pointwise", "f32", "xd_copy_f32");
      FAIL() << "a kernel whose zeKernelCreate failed was returned";
    } catch (const xd::plugin::error& e) {
      EXPECT_EQ(e.code(), XD_ERR_OUT_OF_MEMORY);
      EXPECT_STREQ(e.what(), "levelzero: zeKernelCreate(xd_copy_f32) failed: ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY");
    }
  }
  // The cache's destructor released the one kernel and its module, and nothing it never got.
  EXPECT_EQ(fake_ze::count().live_kernels, 0);
  EXPECT_EQ(fake_ze::count().live_modules, 0);
}

TEST_F(LevelZeroFakeDriver, AFailedKernelPropertyQueryReleasesTheKernel) {
  fake_ze::config c;
  c.kernel_properties_result = ZE_RESULT_ERROR_DEVICE_LOST;
  start(c);
  xd::l0::module_cache cache(xd::l0::device_at(0));
  try {
    (void)cache.kernel("pointwise", "f32", "xd_fill_f32");
    FAIL() << "a kernel whose properties could not be read was returned";
  } catch (const xd::plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_DEVICE);
    EXPECT_STREQ(e.what(), "levelzero: zeKernelGetProperties(xd_fill_f32) failed: ZE_RESULT_ERROR_DEVICE_LOST");
  }
  EXPECT_EQ(fake_ze::count().live_kernels, 0);
}

}  // namespace
