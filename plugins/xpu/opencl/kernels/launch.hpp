// What every kernel file needs: checked access to a call's views and attributes, the call's
// device and queue, and `launch`, which takes a pooled kernel, sets its arguments and enqueues it.
#pragma once

#include "kernels/layout.hpp"
#include "program/program_cache.hpp"
#include "runtime/platform.hpp"
#include "xpu_call.hpp"
#include "xpu_dtype.hpp"

#include <xd/plugin.hpp>

#include <string>

namespace xd::ocl {

// This plugin's name in front of every error message ("opencl: ...").
inline constexpr const char* kBackend = "opencl";

[[noreturn]] inline void invalid(const std::string& message) { xpu::invalid(kBackend, message); }

// Runs a kernel body; exceptions become a status plus a message through the host.
template <class F>
xd_status kernel_guard(const xd_kernel_call* call, F&& body) noexcept {
  return plugin::guarded(call->host, std::forward<F>(body));
}

// The shared view and attribute checks (xpu_call.hpp) under this plugin's name.
inline const xd_view& input(const xd_kernel_call* c, int i) { return xpu::input(c, i, kBackend); }
inline const xd_view& output(const xd_kernel_call* c, int i) { return xpu::output(c, i, kBackend); }
using xpu::optional_input;
using xpu::optional_output;
using xpu::same_sizes;
template <class A>
const A* find_attrs(const xd_kernel_call* c) { return xpu::find_attrs<A>(c, kBackend); }
template <class A>
const A& need_attrs(const xd_kernel_call* c) { return xpu::need_attrs<A>(c, kBackend); }
inline void check_dtype(const xd_view& v, int32_t expected, const char* what) {
  xpu::check_dtype(v, expected, what, kBackend);
}

inline size_t itemsize(int32_t dtype) { return static_cast<size_t>(xpu::element_size(dtype, kBackend)); }
int64_t numel(const xd_view& v);
// The view's offset in elements (kernels index typed pointers).
int64_t elem_offset(const xd_view& v);
inline operand operand_of(const xd_view& v) { return {v.strides, elem_offset(v)}; }
cl_mem mem_of(const xd_view& v);

device& call_device(const xd_kernel_call* c);

// Scratch memory on the call's stream (the host's workspace callback).
struct scratch {
  cl_mem mem;
  int64_t offset;  // bytes
};
scratch workspace(const xd_kernel_call* c, uint64_t nbytes);

// supports(): declines a call that involves f64 on a device without fp64 (its programs cannot
// contain double code). Every kernel of this plugin registers it.
int supports_device(const xd_kernel_call* c);

inline size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

class launch {
 public:
  // `kernel` must be a string with static lifetime (a literal).
  launch(const xd_kernel_call* c, const program_id& id, const char* kernel);

  template <class A>
  launch& arg(const A& a) {
    set(sizeof a, &a);
    return *this;
  }
  launch& mem(const xd_view& v) { return arg(mem_of(v)); }
  launch& mem(cl_mem m) { return arg(m); }
  launch& local_bytes(size_t n) {
    set(n, nullptr);
    return *this;
  }

  // 1-d: `items` work-items rounded up to a multiple of `local`. Nothing runs for 0 items.
  void run(size_t items, size_t local);
  void run(cl_uint dims, const size_t* global, const size_t* local);

  device& dev() const { return dev_; }

 private:
  void set(size_t size, const void* value);

  device& dev_;
  cl_command_queue queue_;
  program_cache::kernel_handle kernel_;
  const char* name_;
  cl_uint index_ = 0;
};

}  // namespace xd::ocl
