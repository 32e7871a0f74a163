// Many threads at once through the public API: ops of several families, tensors created on one
// thread and destroyed on another, cross-device copies (blocking and through pinned memory),
// streams and events shared between threads. Correctness is checked here; the tsan preset runs
// these under ThreadSanitizer (docs/reliability.md). The plugins are loaded on the main thread
// first (the cold start is tests/unit/cold_start_test.cpp).
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

const bool kCacheDirSet = [] {
#ifdef XD_TEST_CACHE_DIR
  setenv("XD_CACHE_DIR", XD_TEST_CACHE_DIR, 0);
#endif
  return true;
}();

std::optional<xd::Device> opencl() {
  for (const xd::Device& d : xd::devices())
    if (d.backend() == "opencl") return d;
  return std::nullopt;
}

// Devices every test runs on: the CPU, and OpenCL when it is there.
std::vector<xd::Device> test_devices() {
  std::vector<xd::Device> out{xd::cpu()};
  if (auto d = opencl()) out.push_back(*d);
  return out;
}

template <class F>
void run_threads(int n, F&& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) threads.emplace_back([t, &body] { body(t); });
  for (auto& th : threads) th.join();
}

TEST(Concurrency, ManyThreadsRunOpsOfEveryFamily) {
  for (const xd::Device dev : test_devices()) {
    // The reference, computed once on this thread.
    const xd::Tensor x = xd::randn({6, 40}, xd::Dtype::f32, xd::cpu());
    const xd::Tensor w = xd::randn({40, 9}, xd::Dtype::f32, xd::cpu());
    const xd::Tensor g = xd::ones({40}, xd::Dtype::f32, xd::cpu());
    auto compute = [](const xd::Tensor& xi, const xd::Tensor& wi, const xd::Tensor& gi) {
      auto [y, rstd] = xd::rms_norm(xi, {40}, gi);
      const xd::Tensor h = xd::silu(xd::mm(y, wi));
      return std::vector<xd::Tensor>{xd::softmax(h, 1), xd::sum(h, {0}), xd::amax(xi, {1}),
                                     xd::cast(h, xd::Dtype::bf16).to(xd::Dtype::f32), rstd};
    };
    std::vector<std::vector<float>> want;
    for (const auto& r : compute(x.to(dev), w.to(dev), g.to(dev))) want.push_back(r.to_vector<float>());
    std::atomic<int> mismatches{0};
    run_threads(8, [&](int) {
      const xd::Tensor xi = x.to(dev), wi = w.to(dev), gi = g.to(dev);
      for (int i = 0; i < 10; ++i) {
        const auto got = compute(xi, wi, gi);
        for (size_t k = 0; k < got.size(); ++k)
          if (got[k].to_vector<float>() != want[k]) ++mismatches;
      }
    });
    EXPECT_EQ(mismatches.load(), 0) << dev.backend() << ": same inputs, other results on other threads";
  }
}

// Big enough for the CPU backend's oneDNN matmul to use its own thread pool (libgomp) while
// other threads do the same: the project's code around it must stay race-free (oneDNN itself is
// uninstrumented; tests/tsan.supp).
TEST(Concurrency, ConcurrentLargeMatmulsAgree) {
  for (const xd::Device dev : test_devices()) {
    const xd::Tensor a = xd::randn({96, 160}, xd::Dtype::f32, xd::cpu()).to(dev);
    const xd::Tensor b = xd::randn({160, 112}, xd::Dtype::f32, xd::cpu()).to(dev);
    const std::vector<float> want = xd::mm(a, b).to_vector<float>();
    std::atomic<int> mismatches{0};
    run_threads(4, [&](int) {
      for (int i = 0; i < 4; ++i) {
        // Within rounding: a thread pool shared with other callers may split the work otherwise.
        const std::vector<float> got = xd::mm(a, b).to_vector<float>();
        for (size_t k = 0; k < got.size(); ++k)
          if (!(std::fabs(got[k] - want[k]) <= 1e-3f * (1.0f + std::fabs(want[k])))) {
            ++mismatches;
            break;
          }
      }
    });
    EXPECT_EQ(mismatches.load(), 0) << dev.backend();
  }
}

TEST(Concurrency, TensorsMadeOnOneThreadDieOnAnother) {
  for (const xd::Device dev : test_devices()) {
    std::mutex m;
    std::condition_variable cv;
    std::deque<xd::Tensor> queue;
    bool producers_done = false;
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;
    for (int p = 0; p < 3; ++p)
      threads.emplace_back([&, p] {
        for (int i = 0; i < 60; ++i) {
          xd::Tensor t = xd::full({1 + (i * 7 + p) % 300}, p + 1, xd::Dtype::f32, dev);
          xd::Tensor v = t.slice(0, 0, 1);  // a view that outlives its base on the other side
          std::lock_guard lock(m);
          queue.push_back(std::move(v));
          cv.notify_one();
        }
      });
    for (int c = 0; c < 3; ++c)
      threads.emplace_back([&] {
        for (;;) {
          xd::Tensor t;
          {
            std::unique_lock lock(m);
            cv.wait(lock, [&] { return !queue.empty() || producers_done; });
            if (queue.empty()) return;
            t = std::move(queue.front());
            queue.pop_front();
          }
          const float v = t.item<float>();
          if (v < 1.0f || v > 3.0f) ++bad;
          t = xd::Tensor();  // the last reference goes here, not on the thread that made it
        }
      });
    for (int p = 0; p < 3; ++p) threads[static_cast<size_t>(p)].join();
    {
      std::lock_guard lock(m);
      producers_done = true;
    }
    cv.notify_all();
    for (size_t c = 3; c < threads.size(); ++c) threads[c].join();
    EXPECT_EQ(bad.load(), 0) << dev.backend();
    xd::empty_cache(dev);
  }
}

TEST(Concurrency, CrossDeviceCopiesFromManyThreads) {
  const auto ocl = opencl();
  if (!ocl) GTEST_SKIP() << "opencl is not available here";
  const bool pinned = xd::pinned_memory_available(*ocl);
  std::atomic<int> bad{0};
  run_threads(8, [&](int t) {
    for (int i = 0; i < 15; ++i) {
      const int64_t n = 1 + (t * 131 + i * 17) % 2000;
      const xd::Tensor h = xd::arange(0.0, static_cast<double>(n), 1.0, xd::Dtype::f32, xd::cpu());
      const xd::Tensor d = h.to(*ocl);
      xd::Tensor back = xd::empty({n}, xd::Dtype::f32, xd::cpu());
      back.copy_(xd::add(d, d));
      const auto v = back.to_vector<float>();
      if (v[static_cast<size_t>(n - 1)] != 2.0f * static_cast<float>(n - 1)) ++bad;
      if (pinned) {
        const xd::Tensor p = h.pin_memory(*ocl);
        const xd::Tensor dd = p.to(*ocl, true);
        const xd::Tensor hp = dd.to(xd::cpu(), true);
        xd::current_stream(*ocl).synchronize();
        if (hp.to_vector<float>() != h.to_vector<float>()) ++bad;
      }
    }
  });
  EXPECT_EQ(bad.load(), 0);
}

TEST(Concurrency, StreamsAndEventsSharedBetweenThreads) {
  for (const xd::Device dev : test_devices()) {
    std::atomic<int> bad{0};
    run_threads(6, [&](int t) {
      xd::Stream s1 = xd::Stream::create(dev), s2 = xd::Stream::create(dev);
      for (int i = 0; i < 10; ++i) {
        xd::Tensor a;
        xd::Event e(dev);
        {
          xd::StreamGuard guard(s1);
          a = xd::full({257}, t + i, xd::Dtype::f32, dev);
          a = xd::mul(a, a);
          e.record(s1);
        }
        // Another thread waits on the event and reads the tensor on its own stream.
        std::thread reader([&] {
          e.block(s2);
          xd::StreamGuard guard(s2);
          const float s = xd::sum(a).item<float>();
          if (s != 257.0f * static_cast<float>((t + i) * (t + i))) {
            ++bad;
            ADD_FAILURE() << dev.backend() << " thread " << t << " round " << i << ": sum read on another stream after the event is " << s;
          }
          (void)e.query();
        });
        reader.join();
        e.synchronize();
        if (!e.query()) ADD_FAILURE() << dev.backend() << ": event not done after its synchronize";
        // (A stream's query right after its last event's synchronize may still say "not ready" on
        // OpenCL: the query enqueues a marker of its own; after the stream's synchronize it may not.)
        s1.synchronize();
        if (!s1.query()) ADD_FAILURE() << dev.backend() << ": stream not done after its synchronize";
      }
      xd::synchronize(dev);
    });
    EXPECT_EQ(bad.load(), 0) << dev.backend();
  }
}

}  // namespace
