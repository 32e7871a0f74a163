#include "kernels/launch.hpp"

#include "runtime/stream.hpp"

namespace xd::ocl {

int64_t numel(const xd_view& v) {
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.sizes[d];
  return n;
}

int64_t elem_offset(const xd_view& v) {
  // The dtype first, so that an unknown one is reported under this plugin's name (the shared
  // element_offset reports it without one, as the Level Zero plugin always has).
  (void)itemsize(v.dtype);
  return xpu::element_offset(v, kBackend);
}

cl_mem mem_of(const xd_view& v) {
  if (v.handle == nullptr) invalid("a view has no memory handle");
  return static_cast<cl_mem>(v.handle);
}

device& call_device(const xd_kernel_call* c) { return get_device(c->device); }

scratch workspace(const xd_kernel_call* c, uint64_t nbytes) {
  const xpu::host_scratch s = xpu::host_workspace(c, nbytes, kBackend);
  return {static_cast<cl_mem>(s.handle), static_cast<int64_t>(s.offset)};
}

int supports_device(const xd_kernel_call* c) {
  if (c->device < 0 || c->device >= device_count()) return 0;
  return get_device(c->device).fp64 || !xpu::has_f64_view(c) ? 1 : 0;
}

launch::launch(const xd_kernel_call* c, const program_id& id, const char* kernel)
    : dev_(call_device(c)),
      queue_(submit_queue(c->device, c->stream)),
      kernel_(dev_.programs->kernel(id, kernel)),
      name_(kernel) {}

void launch::set(size_t size, const void* value) {
  const cl_int err = clSetKernelArg(kernel_.get(), index_, size, value);
  if (err != CL_SUCCESS) throw_cl(err, std::string("clSetKernelArg(") + name_ + ", " + std::to_string(index_) + ")");
  ++index_;
}

void launch::run(size_t items, size_t local) {
  if (items == 0) return;
  const size_t global = round_up(items, local);
  run(1, &global, &local);
}

void launch::run(cl_uint dims, const size_t* global, const size_t* local) {
  for (cl_uint d = 0; d < dims; ++d)
    if (global[d] == 0) return;
  const cl_int err = clEnqueueNDRangeKernel(queue_, kernel_.get(), dims, nullptr, global, local, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) throw_cl(err, std::string("clEnqueueNDRangeKernel(") + name_ + ") on " + dev_.name);
  // Submit now: an in-order queue may otherwise hold work until the next flush or finish.
  clFlush(queue_);
}

}  // namespace xd::ocl
