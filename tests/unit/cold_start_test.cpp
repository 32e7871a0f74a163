// Many threads making their first calls at the same moment against a cold library: plugin
// discovery and loading, the registry, default streams, allocators, program builds and the
// dispatch table are all started by whichever thread gets there first. Each test case is its own
// process (gtest_discover_tests), so every case starts cold; nothing may touch the library
// before the latch opens. Run under ThreadSanitizer by the tsan preset (docs/reliability.md).
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <latch>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 16;

// Set before main, before anything loads: the OpenCL programs of these tests are cached in the
// build tree, like the OpenCL backend tests' (a cold cache only makes the first run slower).
const bool kCacheDirSet = [] {
#ifdef XD_TEST_CACHE_DIR
  setenv("XD_CACHE_DIR", XD_TEST_CACHE_DIR, 0);
#endif
  return true;
}();

std::optional<xd::Device> find_backend(const std::string& name) {
  for (const xd::Device& d : xd::devices())
    if (d.backend() == name) return d;
  return std::nullopt;
}

struct Outcome {
  std::mutex mutex;
  std::vector<std::string> errors;
  std::atomic<int> unavailable{0};
  void fail(const std::string& e) {
    std::lock_guard lock(mutex);
    errors.push_back(e);
  }
};

// Thread `t`'s first call into the library, different by thread so that every entry point races
// start-up: device enumeration, the default device, the load report, a tensor, a stream, an event.
void first_call(int t, const std::string& backend) {
  switch (t % 6) {
    case 0: (void)xd::devices(); break;
    case 1: (void)xd::default_device(); break;
    case 2: (void)xd::load_report(); break;
    case 3: (void)xd::ones({3}, xd::Dtype::f32, xd::cpu()); break;
    case 4: (void)xd::current_stream(xd::cpu()); break;
    default:
      if (auto d = find_backend(backend)) (void)xd::Event(*d);
      break;
  }
}

// Everything after the first call: a tensor on `backend`'s device, an op, a copy to the other
// device and back, a stream and an event, checked against values computed here.
void work(int t, const std::string& backend, Outcome& out) {
  const auto dev = find_backend(backend);
  if (!dev) {
    ++out.unavailable;
    return;
  }
  const xd::Device other = backend == "cpu" ? (find_backend("opencl") ? *find_backend("opencl") : xd::cpu()) : xd::cpu();
  const int64_t n = 33 + t;
  const xd::Tensor a = xd::full({n}, t, xd::Dtype::f32, *dev);
  const xd::Tensor b = xd::arange(0.0, static_cast<double>(n), 1.0, xd::Dtype::f32, *dev);
  const xd::Tensor c = xd::add(a, b);                  // c[i] = t + i
  const xd::Tensor moved = c.to(other);                // cross-device copy
  const xd::Tensor back = xd::mul(moved, moved).to(*dev);
  const float want_sum = static_cast<float>(n) * static_cast<float>(t) + static_cast<float>(n * (n - 1) / 2);
  const float got_sum = xd::sum(c).item<float>();
  if (got_sum != want_sum)
    out.fail("thread " + std::to_string(t) + ": sum " + std::to_string(got_sum) + " != " + std::to_string(want_sum));
  const std::vector<float> sq = back.to_vector<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(t + i);
    if (sq[static_cast<size_t>(i)] != v * v) {
      out.fail("thread " + std::to_string(t) + ": element " + std::to_string(i) + " of (t+i)^2 is " +
               std::to_string(sq[static_cast<size_t>(i)]));
      break;
    }
  }
  xd::Stream s = xd::Stream::create(*dev);
  xd::Event e(*dev);
  {
    xd::StreamGuard guard(s);
    const xd::Tensor r = xd::softmax(c, 0);
    e.record(s);
    e.synchronize();
    if (!e.query()) out.fail("thread " + std::to_string(t) + ": event not done after synchronize");
    const float total = xd::sum(r).item<float>();
    if (total < 0.999f || total > 1.001f) out.fail("thread " + std::to_string(t) + ": softmax sums to " + std::to_string(total));
  }
}

void run_cold(const std::string& backend) {
  Outcome out;
  std::latch start(kThreads), done(kThreads);
  // The workers are never joined: they park after their work and end with the process. A
  // thread that loaded PoCL (LLVM) gets a sigaltstack it allocated itself, and ASan's thread
  // teardown then fails to unmap it (see runtime_test.cpp); under the cold start any worker may
  // be the one that loads the plugins, so none of them exits while the process runs.
  for (int t = 0; t < kThreads; ++t) {
    std::thread([t, &backend, &out, &start, &done] {
      start.arrive_and_wait();
      try {
        first_call(t, backend);
        work(t, backend, out);
      } catch (const std::exception& e) {
        out.fail("thread " + std::to_string(t) + ": " + e.what());
      }
      done.count_down();
      for (;;) ::pause();  // no static to wait on: it would be destroyed at exit under the waiter
    }).detach();
  }
  done.wait();
  std::lock_guard lock(out.mutex);
  for (const auto& e : out.errors) ADD_FAILURE() << e;
  if (out.unavailable.load() == kThreads) GTEST_SKIP() << backend << " is not available here";
  EXPECT_EQ(out.unavailable.load(), 0) << "some threads saw " << backend << ", some did not";
}

TEST(ColdStart, SixteenThreadsRaceStartUpOnCpu) { run_cold("cpu"); }

TEST(ColdStart, SixteenThreadsRaceStartUpOnOpencl) { run_cold("opencl"); }

}  // namespace
