// Checked access to a kernel call's views and attribute struct, shared by the XPU plugins: the
// checks do not depend on the API, only the name in front of the message does ("opencl: ...",
// "levelzero: ..."), so every function takes the caller's backend name. Each plugin's
// kernels/launch.hpp binds its name once and keeps the short spellings (input(c, 0), ...).
#pragma once

#include <xd/plugin.hpp>

#include <cstdint>
#include <string>

namespace xd::xpu {

// XD_ERR_INVALID_ARGUMENT with "<backend>: " in front of `message`.
[[noreturn]] void invalid(const char* backend, const std::string& message);

// Input or output `i`, which the call must have.
const xd_view& input(const xd_kernel_call* c, int i, const char* backend);
const xd_view& output(const xd_kernel_call* c, int i, const char* backend);
const xd_view* optional_input(const xd_kernel_call* c, int i);   // nullptr when absent
const xd_view* optional_output(const xd_kernel_call* c, int i);  // nullptr when absent

// The attribute struct, or nullptr when the host passed none; a struct shorter than this
// plugin's (an older host) is rejected rather than read past its end.
template <class A>
const A* find_attrs(const xd_kernel_call* c, const char* backend) {
  if (c->attrs == nullptr) return nullptr;
  const A* a = static_cast<const A*>(c->attrs);
  if (a->struct_size < sizeof(A)) invalid(backend, "attribute struct of op " + std::to_string(c->op) + " is too small");
  return a;
}
template <class A>
const A& need_attrs(const xd_kernel_call* c, const char* backend) {
  const A* a = find_attrs<A>(c, backend);
  if (a == nullptr) invalid(backend, "op " + std::to_string(c->op) + " was called without its attribute struct");
  return *a;
}

// Whether any view of the call (input or output) is f64: a plugin's supports() declines such a
// call on a device without fp64, whose programs cannot hold double code.
bool has_f64_view(const xd_kernel_call* c);

// Scratch memory on the call's stream from the host's workspace callback: the allocation's handle
// (the API's buffer or pointer) and a byte offset into it. The host's failure status is kept.
struct host_scratch {
  void* handle = nullptr;
  uint64_t offset = 0;  // bytes
};
host_scratch host_workspace(const xd_kernel_call* c, uint64_t nbytes, const char* backend);

bool same_sizes(const xd_view& a, int ndim, const int64_t* sizes);
void check_dtype(const xd_view& v, int32_t expected, const char* what, const char* backend);

}  // namespace xd::xpu
