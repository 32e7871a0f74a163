// What every kernel file needs: checked access to a call's views and attributes, the call's
// device and queue, and `launch`, which takes a pooled kernel, sets its arguments and enqueues it.
#pragma once

#include "kernels/layout.hpp"
#include "program/program_cache.hpp"
#include "runtime/platform.hpp"

#include <xd/plugin.hpp>

#include <string>

namespace xd::ocl {

[[noreturn]] inline void invalid(const std::string& message) {
  throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: " + message);
}

// Runs a kernel body; exceptions become a status plus a message through the host.
template <class F>
xd_status kernel_guard(const xd_kernel_call* call, F&& body) noexcept {
  return plugin::guarded(call->host, std::forward<F>(body));
}

const xd_view& input(const xd_kernel_call* c, int i);
const xd_view& output(const xd_kernel_call* c, int i);
const xd_view* optional_input(const xd_kernel_call* c, int i);   // nullptr when absent
const xd_view* optional_output(const xd_kernel_call* c, int i);  // nullptr when absent

// The attribute struct, or nullptr when the host passed none; a struct shorter than this
// plugin's is rejected rather than read past its end.
template <class A>
const A* find_attrs(const xd_kernel_call* c) {
  if (c->attrs == nullptr) return nullptr;
  const A* a = static_cast<const A*>(c->attrs);
  if (a->struct_size < sizeof(A)) invalid("attribute struct of op " + std::to_string(c->op) + " is too small");
  return a;
}
template <class A>
const A& need_attrs(const xd_kernel_call* c) {
  const A* a = find_attrs<A>(c);
  if (a == nullptr) invalid("op " + std::to_string(c->op) + " was called without its attribute struct");
  return *a;
}

size_t itemsize(int32_t dtype);
int64_t numel(const xd_view& v);
bool same_sizes(const xd_view& a, int ndim, const int64_t* sizes);
// The view's offset in elements (kernels index typed pointers).
int64_t elem_offset(const xd_view& v);
inline operand operand_of(const xd_view& v) { return {v.strides, elem_offset(v)}; }
cl_mem mem_of(const xd_view& v);
void check_dtype(const xd_view& v, int32_t expected, const char* what);

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
