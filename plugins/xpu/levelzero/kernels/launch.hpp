// What every launcher needs: checked access to a call's views and attributes, the host's
// workspace, and `launch`, which takes the kernel of (source, module tag, entry) on the call's
// device, sets its arguments in the .cl kernel's order and appends it to the call's stream.
#pragma once

#include "program/module_cache.hpp"
#include "runtime/stream.hpp"
#include "xpu_call.hpp"
#include "xpu_layout.hpp"

#include <xd/plugin.hpp>

#include <string>

namespace xd::l0 {

// The work-group size the SPIR-V was compiled for (-DXD_WG; xpu_variants.cmake): the
// reqd_work_group_size of every work-group kernel, so a fixed group size, not a device choice.
#ifndef XD_L0_WORK_GROUP
#define XD_L0_WORK_GROUP 256
#endif
inline constexpr uint32_t kWorkGroup = XD_L0_WORK_GROUP;

// This plugin's name in front of every error message ("levelzero: ...").
inline constexpr const char* kBackend = "levelzero";

[[noreturn]] inline void invalid(const std::string& message) { xpu::invalid(kBackend, message); }

// The shared view and attribute checks (xpu_call.hpp), as the OpenCL plugin spells them.
inline const xd_view& input(const xd_kernel_call* c, int i) { return xpu::input(c, i, kBackend); }
inline const xd_view& output(const xd_kernel_call* c, int i) { return xpu::output(c, i, kBackend); }
template <class A>
const A& need_attrs(const xd_kernel_call* c) { return xpu::need_attrs<A>(c, kBackend); }

// The view as a layout operand: its strides and its offset in elements.
xpu::operand operand_of(const xd_view& v);
// make_layout, with a typed error for views the kernels cannot take.
xpu::layout layout_of(int ndim, const int64_t* sizes, std::initializer_list<xpu::operand> ops, uint64_t skip = 0);

device& call_device(const xd_kernel_call* c);

// Scratch memory on the call's stream through the host's workspace callback (as the OpenCL
// plugin's workspace()): a USM pointer to the start of a caching-allocator segment and a byte
// offset into it, passed to the kernels as (pointer, element offset) like any view.
struct scratch {
  void* base;
  uint64_t offset;  // bytes
};
scratch workspace(const xd_kernel_call* c, uint64_t nbytes);

// supports(): declines a call with an f64 view on a device without fp64 (its modules have no
// double code, and the f64 modules do not build there), so the core reports it as unsupported
// (or falls back) instead of failing in zeModuleCreate. Every kernel of this plugin registers it.
int supports_device(const xd_kernel_call* c);

class launch {
 public:
  // The kernel `entry` of the module of kernels/<source>.cl for `tag` (xpu::module_tag).
  launch(const xd_kernel_call* c, const char* source, const std::string& tag, const std::string& entry);
  launch(const xd_kernel_call* c, const char* source, int32_t dtype, const std::string& entry);

  launch& ptr(const xd_view& v);  // the allocation's USM pointer (offsets travel as arguments)
  launch& ptr(void* p) { return value(p); }
  template <class T>
  launch& value(const T& v) {
    set(sizeof v, &v);
    return *this;
  }
  // A __local buffer argument of `bytes` (zeKernelSetArgumentValue with a null value). The
  // shared kernels declare their local memory statically today; this keeps the argument path
  // of the OpenCL plugin's launch::local_bytes for a kernel that takes one.
  launch& local_bytes(size_t bytes) {
    set(bytes, nullptr);
    return *this;
  }

  // `groups` work-groups of kWorkGroup work-items along x (a work-group per row or output).
  void run_groups(uint64_t groups);
  // `work` work-items in one dimension, group size from zeKernelSuggestGroupSize: for kernels
  // without a required group size (pointwise, the _lane kernels).
  void run(uint64_t work);
  // `groups` work-groups of the fixed size `local` (the kernel's reqd_work_group_size), checked
  // against the kernel's and the device's limits first (XD_ERR_NOT_IMPLEMENTED naming the
  // limit). A zero count runs nothing.
  void run_groups(const uint32_t local[3], const uint64_t groups[3]);

 private:
  void set(size_t size, const void* value);
  void check_group_size(const uint32_t local[3]) const;

  device& dev_;
  stream& stream_;
  kernel_object& kernel_;
  std::unique_lock<std::mutex> lock_;
  uint32_t next_ = 0;
};

// Runs `f` for a kernel call, turning exceptions into the call's status.
template <class F>
xd_status kernel_guard(const xd_kernel_call* c, F&& f) {
  return plugin::guarded(c->host, std::forward<F>(f));
}

}  // namespace xd::l0
