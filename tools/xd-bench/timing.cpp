#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <new>

namespace xd::bench {

double Timing::median() const {
  if (ms.empty()) return 0.0;
  std::vector<double> v = ms;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double Timing::min() const { return ms.empty() ? 0.0 : *std::min_element(ms.begin(), ms.end()); }

namespace {

std::map<std::string, uint64_t> calls_on(const std::string& backend) {
  std::map<std::string, uint64_t> m;
  for (const auto& k : kernels())
    if (k.backend == backend) m[k.name] += k.calls;
  return m;
}

// 64-byte aligned, as the CPU plugin's allocations are: the memcpy is not handicapped by a
// misaligned destination the copy kernel never sees.
struct AlignedFree {
  void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using HostBuffer = std::unique_ptr<std::byte[], AlignedFree>;
HostBuffer host_buffer(size_t bytes) {
  return HostBuffer(static_cast<std::byte*>(::operator new[](std::max<size_t>(bytes, 1), std::align_val_t{64})));
}

// Keeps the compiler from treating the copies into a buffer nobody reads as dead stores.
void clobber(void* p) {
#if defined(__GNUC__)
  asm volatile("" : : "r"(p) : "memory");
#else
  static volatile std::byte sink;
  sink = *static_cast<volatile std::byte*>(p);
#endif
}

}  // namespace

Timing measure_memcpy(size_t bytes, int warmup, int reps) {
  Timing t;
  t.device_clock = false;
  t.kernels = {"std::memcpy"};
  HostBuffer src = host_buffer(bytes), dst = host_buffer(bytes);
  std::memset(src.get(), 0x5a, bytes);  // first touch: page faults happen here, not in the timed calls
  std::memset(dst.get(), 0, bytes);
  clobber(dst.get());
  for (int i = 0; i < warmup; ++i) {
    std::memcpy(dst.get(), src.get(), bytes);
    clobber(dst.get());
  }
  t.ms.reserve(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.get(), src.get(), bytes);
    clobber(dst.get());
    t.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return t;
}

Timing measure(const Prepared& p, Device device, int warmup, int reps) {
  Timing t;
  Stream stream = current_stream(device);
  for (int i = 0; i < warmup; ++i) p.run();
  stream.synchronize();
  const auto before = calls_on(device.backend());
  t.device_clock = device.properties().timing;
  if (t.device_clock) {
    std::vector<Event> start, end;
    start.reserve(static_cast<size_t>(reps));
    end.reserve(static_cast<size_t>(reps));
    for (int i = 0; i < reps; ++i) {
      start.emplace_back(device);
      end.emplace_back(device);
      start.back().record(stream);
      p.run();
      end.back().record(stream);
    }
    stream.synchronize();
    for (int i = 0; i < reps; ++i) t.ms.push_back(start[static_cast<size_t>(i)].elapsed_ms(end[static_cast<size_t>(i)]));
  } else {
    for (int i = 0; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      p.run();
      stream.synchronize();
      t.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  for (const auto& [name, calls] : calls_on(device.backend())) {
    const auto it = before.find(name);
    if (calls > (it == before.end() ? 0 : it->second)) t.kernels.push_back(name);
  }
  return t;
}

}  // namespace xd::bench
