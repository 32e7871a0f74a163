// The host's memory rates that xd-bench's CPU figures are read against, measured with plain loops
// outside xdispatch: glibc's memcpy (one thread, and split over the OpenMP threads), a copy with
// non-temporal stores split over the threads (what the CPU plugin's copy kernel does for large
// same-dtype copies), and a read-only sum over the threads (the ceiling of ops that only read,
// such as sum, mean and amax). Each is timed in alternating rounds; medians are printed.
//
//   bench_cpu_bandwidth [MiB per buffer, default 64] [rounds, default 20]
//
// Rates count the bytes a kernel moves: a copy reads and writes its size (2 x MiB), a read-only
// pass reads it once, as xd-bench's traffic model does. docs/performance.md cites the output.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu_bandwidth.cpp"
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <omp.h>
#include <vector>

HWY_BEFORE_NAMESPACE();
namespace xd_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// dst[0, n) = src[0, n) through non-temporal stores; dst is aligned to the vector size.
void StreamCopy(float* HWY_RESTRICT dst, const float* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto a = hn::LoadU(d, src + i), b = hn::LoadU(d, src + i + N);
    const auto c = hn::LoadU(d, src + i + 2 * N), e = hn::LoadU(d, src + i + 3 * N);
    hn::Stream(a, d, dst + i);
    hn::Stream(b, d, dst + i + N);
    hn::Stream(c, d, dst + i + 2 * N);
    hn::Stream(e, d, dst + i + 3 * N);
  }
  for (; i < n; ++i) dst[i] = src[i];
  hwy::FlushStream();
}

// The sum of x[0, n) in f32 over four vector accumulators: reading is all it does.
float ReadSum(const float* HWY_RESTRICT x, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  auto a = hn::Zero(d), b = hn::Zero(d), c = hn::Zero(d), e = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    a = hn::Add(a, hn::LoadU(d, x + i));
    b = hn::Add(b, hn::LoadU(d, x + i + N));
    c = hn::Add(c, hn::LoadU(d, x + i + 2 * N));
    e = hn::Add(e, hn::LoadU(d, x + i + 3 * N));
  }
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a, b), hn::Add(c, e))));
  for (; i < n; ++i) s += x[i];
  return s;
}

}  // namespace HWY_NAMESPACE
}  // namespace xd_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xd_bench {
HWY_EXPORT(StreamCopy);
HWY_EXPORT(ReadSum);

namespace {

// This thread's part [begin, end) of n elements, in whole 64-byte lines.
void part(size_t n, size_t& begin, size_t& end) {
  const size_t threads = static_cast<size_t>(omp_get_num_threads());
  const size_t t = static_cast<size_t>(omp_get_thread_num());
  const size_t lines = n / 16;
  begin = lines * t / threads * 16;
  end = t + 1 == threads ? n : lines * (t + 1) / threads * 16;
}

}  // namespace
}  // namespace xd_bench

int main(int argc, char** argv) {
  using namespace xd_bench;
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 64;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
  if (mib == 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: bench_cpu_bandwidth [MiB > 0] [rounds > 0]\n");
    return 2;
  }
  const size_t bytes = mib << 20;
  const size_t n = bytes / sizeof(float);
  auto* x = static_cast<float*>(std::aligned_alloc(64, bytes));
  auto* y = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (x == nullptr || y == nullptr) return 1;
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7), y[i] = 0;  // touched: no page faults timed

  struct pass {
    const char* name;
    double bytes_moved;
    std::vector<double> ms;
  };
  std::vector<pass> passes = {{"memcpy, one thread", 2.0 * bytes, {}},
                              {"memcpy, split over the threads", 2.0 * bytes, {}},
                              {"copy with non-temporal stores, threads", 2.0 * bytes, {}},
                              {"read-only vector sum, threads", 1.0 * bytes, {}}};
  volatile float sink = 0;
  for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up
    for (size_t p = 0; p < passes.size(); ++p) {
      const auto t0 = std::chrono::steady_clock::now();
      if (p == 0) {
        std::memcpy(y, x, bytes);
      } else {
        float total = 0;
#pragma omp parallel reduction(+ : total)
        {
          size_t b = 0, e = 0;
          part(n, b, e);
          if (p == 1) std::memcpy(y + b, x + b, (e - b) * sizeof(float));
          if (p == 2) HWY_DYNAMIC_DISPATCH(StreamCopy)(y + b, x + b, e - b);
          if (p == 3) total += HWY_DYNAMIC_DISPATCH(ReadSum)(x + b, e - b);
        }
        sink = sink + total;
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) passes[p].ms.push_back(ms);
    }
  }
  std::printf("host bandwidth: %zu MiB buffers, %d OpenMP threads, %d rounds alternating, medians\n", mib,
              omp_get_max_threads(), rounds);
  for (pass& p : passes) {
    std::sort(p.ms.begin(), p.ms.end());
    const double med = p.ms[p.ms.size() / 2];
    std::printf("  %-42s %8.3f ms %7.1f GB/s\n", p.name, med, p.bytes_moved / (med * 1e6));
  }
  std::free(x);
  std::free(y);
  return sink == -1.0f ? 1 : 0;
}
#endif  // HWY_ONCE
