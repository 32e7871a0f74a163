// Programs per device, built on first use: one program per (family, dtype[, weight dtype]), from
// the embedded sources with -D options, or loaded from the disk cache (disk_cache.hpp). Kernel
// objects are pooled per program and name, because clSetKernelArg on one cl_kernel from two
// threads at once is a race: a launch takes a kernel out of the pool and returns it after
// enqueueing (the arguments are captured at enqueue).
//
// Thread-safe. A failed build is remembered, with its build log, and reported by every later
// use instead of being rebuilt each time.
#pragma once

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

// Programs group kernels that are used together, so a device compiles few of them.
enum class family : int {
  elementwise = 0,  // pointwise.cl + random.cl
  reduce = 1,       // reduce.cl + softmax.cl
  norm = 2,         // rms_norm.cl (keyed on x's and the weight's dtype)
  matmul = 3,       // matmul.cl
  timestamp = 4,    // one empty kernel, for event timing on drivers whose markers carry no time
  int4 = 5,         // int4.cl (weight_int4_mm, quantize_int4)
  sparse = 6,       // sparse.cl (CSR)
  quant = 7,        // quant_mm.cl: int_mm (i8), scaled_mm (e4m3, e5m2)
};

struct program_id {
  family fam = family::elementwise;
  int32_t dtype = XD_DTYPE_F32;
  int32_t wtype = -1;  // the second dtype of a norm program; -1 elsewhere
};

// The kernel-source tag of a dtype (f32, bf16, e4m3, b8, ...).
const char* dtype_tag(int32_t dtype);

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
  void build(entry& e, const program_id& id);
  std::string describe(const program_id& id) const;

  device& device_;
  std::mutex mutex_;
  std::map<std::tuple<int, int32_t, int32_t>, std::unique_ptr<entry>> entries_;
};

}  // namespace xd::ocl
