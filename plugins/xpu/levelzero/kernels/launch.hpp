// One kernel launch: the kernel of (source, dtype) on the call's device, its arguments, a group
// size from zeKernelSuggestGroupSize, appended to the call's stream.
#pragma once

#include "program/module_cache.hpp"
#include "runtime/stream.hpp"
#include "xpu_layout.hpp"

#include <string>

namespace xd::l0 {

class launch {
 public:
  launch(const xd_kernel_call* c, const char* source, int32_t dtype, const std::string& entry);
  launch& ptr(const xd_view& v);  // the allocation's USM pointer (offsets travel in the layout)
  template <class T>
  launch& value(const T& v) {
    check(zeKernelSetArgumentValue(kernel_.handle, next_++, sizeof v, &v), "zeKernelSetArgumentValue");
    return *this;
  }
  // Appends the kernel over `work` work-items (one dimension).
  void run(uint64_t work);

 private:
  stream& stream_;
  kernel_object& kernel_;
  std::unique_lock<std::mutex> lock_;
  uint32_t next_ = 0;
};

// Element size of a dtype in bytes.
int64_t element_size(int32_t dtype);

// Runs `f` for a kernel call, turning exceptions into the call's status.
template <class F>
xd_status kernel_guard(const xd_kernel_call* c, F&& f) {
  return plugin::guarded(c->host, std::forward<F>(f));
}

}  // namespace xd::l0
