// Parallel loops over OpenMP, used only when the work is large enough to pay for waking threads:
// a small tensor runs inline on the calling thread and never touches the OpenMP runtime.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace xd::cpu {

// Elements of simple pointwise work worth one thread.
inline constexpr int64_t kElementGrain = int64_t{1} << 15;

inline int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Runs f(begin, end) over [0, n), split into at most one contiguous range per thread and only
// when n exceeds `grain`. Ranges are contiguous and ordered so a thread can reuse state across
// its items. Every kernel's results are independent of how the range is split (no sums across
// ranges), so results do not depend on the thread count. An exception thrown inside a thread is
// carried out and rethrown here: it must not escape an OpenMP region.
template <class F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
#ifdef _OPENMP
  if (n > grain && !omp_in_parallel()) {
    const int64_t chunks = (n + grain - 1) / std::max<int64_t>(grain, 1);
    const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), chunks));
    if (threads > 1) {
      std::exception_ptr error;
      std::mutex error_mutex;  // a mutex rather than a named omp critical: that would be an exported symbol
#pragma omp parallel num_threads(threads)
      {
        const int64_t t = omp_get_thread_num();
        const int64_t nt = omp_get_num_threads();
        const int64_t per = (n + nt - 1) / nt;
        const int64_t begin = std::min(n, t * per);
        const int64_t end = std::min(n, begin + per);
        if (begin < end) {
          try {
            f(begin, end);
          } catch (...) {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
          }
        }
      }
      if (error) std::rethrow_exception(error);
      return;
    }
  }
#endif
  (void)grain;
  f(int64_t{0}, n);
}

}  // namespace xd::cpu
