// Programs per device, built on first use: one program per (source, dtype[, weight dtype]) — the
// XPU launchers' xpu::program — from the embedded sources (common/kernel_list.hpp:
// program_sources) with -D options, or loaded from the disk cache (disk_cache.hpp). Kernel objects
// are pooled per program and name, because clSetKernelArg on one cl_kernel from two threads at
// once is a race: a launch takes a kernel out of the pool and returns it after enqueueing (the
// arguments are captured at enqueue).
//
// Generated kernels (codegen.cpp) come as whole sources instead: generated() builds one through the
// same disk cache, keyed by its text.
//
// Thread-safe. A failed build is remembered, with its build log, and reported by every later use
// instead of being rebuilt each time.
#pragma once

#include "common/launcher.hpp"
#include "runtime/cl.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace xd::ocl {

struct device;

using program_id = xpu::program;

// The program of the plugin's own empty kernel xd_timestamp, for event timing on drivers whose
// markers carry no time (runtime/stream.cpp); not one of the kernel sources.
inline constexpr const char* kTimestampProgram = "timestamp";

// Counters of the whole process (tests and logs read them).
struct program_stats {
  std::atomic<uint64_t> built{0};     // compiled from source
  std::atomic<uint64_t> loaded{0};    // taken from the disk cache
  std::atomic<uint64_t> rejected{0};  // cache entries found corrupt or mismatched
};
program_stats& stats();

class program_cache {
  struct entry;

 public:
  // A pooled kernel; returns to its pool when destroyed.
  class kernel_handle {
   public:
    kernel_handle(entry* e, const char* name, cl_kernel k) : entry_(e), name_(name), kernel_(k) {}
    kernel_handle(kernel_handle&& o) noexcept : entry_(o.entry_), name_(o.name_), kernel_(o.kernel_) {
      o.kernel_ = nullptr;
    }
    kernel_handle(const kernel_handle&) = delete;
    kernel_handle& operator=(const kernel_handle&) = delete;
    kernel_handle& operator=(kernel_handle&&) = delete;
    ~kernel_handle();
    cl_kernel get() const { return kernel_; }

   private:
    entry* entry_;
    const char* name_;
    cl_kernel kernel_;
  };

  explicit program_cache(device& d) : device_(d) {}
  program_cache(const program_cache&) = delete;
  program_cache& operator=(const program_cache&) = delete;

  // The kernel `name` of program `id`, building the program if needed. Throws plugin::error
  // (XD_ERR_DEVICE with the build log when the build fails).
  kernel_handle kernel(const program_id& id, const char* name);

  // The options a program is built with (also part of its cache key).
  std::string build_options(const program_id& id) const;

  // The program of a whole generated source (it carries its own #defines: built with no -D
  // option), building it or loading it from the disk cache on first use; it lives as long as the
  // plugin. Throws plugin::error XD_ERR_INVALID_ARGUMENT with the build log and the path of a copy
  // of the source (in the cache folder, else the temporary folder) when it does not build.
  cl_program generated(const std::string& source);

 private:
  struct entry {
    std::mutex build_mutex;
    bool done = false;
    cl_program program = nullptr;
    std::string error;  // non-empty: the build failed
    std::mutex pool_mutex;
    std::unordered_map<std::string, std::vector<cl_kernel>> pool;
  };

  entry& find(const program_id& id);
  void build(entry& e, const std::string& what, const std::vector<std::string_view>& parts, const std::string& options);
  std::string describe(const program_id& id) const;

  device& device_;
  std::mutex mutex_;
  std::map<std::tuple<std::string, int32_t, int32_t>, std::unique_ptr<entry>> entries_;
  std::unordered_map<std::string, std::unique_ptr<entry>> generated_;  // by source text
};

// Whether `d` (compute capability 9.x) builds wgmma kernels by the route of program/wgmma_ptx.hpp:
// a one-line kernel whose wgmma line hides behind kWgmmaMarker is built from source, its PTX
// rewritten for sm_90a and built again as a binary, as program_cache builds matmul_wgmma.cl's
// program. Sets `why` either way; no exception.
bool wgmma_route(const device& d, std::string& why);

}  // namespace xd::ocl
