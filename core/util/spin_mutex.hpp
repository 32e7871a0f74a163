// A small test-and-test-and-set lock for short critical sections on hot paths (the caching
// allocator's alloc/free). Uncontended it costs one atomic exchange and one release store,
// about half of a pthread mutex pair; under contention it yields the CPU after a few spins.
#pragma once

#include <atomic>
#include <thread>

namespace xd::detail {

class SpinMutex {
 public:
  void lock() noexcept {
    for (int spins = 0; flag_.exchange(true, std::memory_order_acquire); ++spins) {
      while (flag_.load(std::memory_order_relaxed)) {
        if (++spins > 64) {
          std::this_thread::yield();
        } else {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
      }
    }
  }
  bool try_lock() noexcept { return !flag_.exchange(true, std::memory_order_acquire); }
  void unlock() noexcept { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

}  // namespace xd::detail
