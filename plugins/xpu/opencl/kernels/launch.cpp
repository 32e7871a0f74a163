#include "kernels/launch.hpp"

#include "runtime/stream.hpp"

namespace xd::ocl {

const xd_view& input(const xd_kernel_call* c, int i) {
  if (i >= c->num_inputs || c->inputs[i].ndim < 0)
    invalid("kernel for op " + std::to_string(c->op) + " needs input " + std::to_string(i));
  return c->inputs[i];
}

const xd_view& output(const xd_kernel_call* c, int i) {
  if (i >= c->num_outputs || c->outputs[i].ndim < 0)
    invalid("kernel for op " + std::to_string(c->op) + " needs output " + std::to_string(i));
  return c->outputs[i];
}

const xd_view* optional_input(const xd_kernel_call* c, int i) {
  return i < c->num_inputs && c->inputs[i].ndim >= 0 ? &c->inputs[i] : nullptr;
}

const xd_view* optional_output(const xd_kernel_call* c, int i) {
  return i < c->num_outputs && c->outputs[i].ndim >= 0 ? &c->outputs[i] : nullptr;
}

size_t itemsize(int32_t dtype) {
  switch (dtype) {
    case XD_DTYPE_F64:
    case XD_DTYPE_I64: return 8;
    case XD_DTYPE_F32:
    case XD_DTYPE_I32: return 4;
    case XD_DTYPE_F16:
    case XD_DTYPE_BF16: return 2;
    case XD_DTYPE_I8:
    case XD_DTYPE_U8:
    case XD_DTYPE_BOOL:
    case XD_DTYPE_F8E4M3FN:
    case XD_DTYPE_F8E5M2: return 1;
    default: invalid("unknown dtype " + std::to_string(dtype));
  }
}

int64_t numel(const xd_view& v) {
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.sizes[d];
  return n;
}

bool same_sizes(const xd_view& a, int ndim, const int64_t* sizes) {
  if (a.ndim != ndim) return false;
  for (int d = 0; d < ndim; ++d)
    if (a.sizes[d] != sizes[d]) return false;
  return true;
}

int64_t elem_offset(const xd_view& v) {
  const uint64_t size = itemsize(v.dtype);
  if (v.offset % size != 0)
    invalid("a view's byte offset " + std::to_string(v.offset) + " is not a multiple of its element size");
  if (v.ndim > kMaxDims) invalid("a view has " + std::to_string(v.ndim) + " dims (at most 8)");
  return static_cast<int64_t>(v.offset / size);
}

cl_mem mem_of(const xd_view& v) {
  if (v.handle == nullptr) invalid("a view has no memory handle");
  return static_cast<cl_mem>(v.handle);
}

void check_dtype(const xd_view& v, int32_t expected, const char* what) {
  if (v.dtype != expected)
    invalid(std::string(what) + " has dtype " + std::to_string(v.dtype) + ", expected " + std::to_string(expected));
}

device& call_device(const xd_kernel_call* c) { return get_device(c->device); }

scratch workspace(const xd_kernel_call* c, uint64_t nbytes) {
  void* handle = nullptr;
  uint64_t offset = 0;
  if (c->workspace == nullptr) invalid("the host gave no workspace callback");
  const xd_status s = c->workspace(c->workspace_ctx, nbytes, &handle, &offset);
  if (s != XD_OK) throw plugin::error(s, "opencl: no workspace of " + std::to_string(nbytes) + " bytes");
  return {static_cast<cl_mem>(handle), static_cast<int64_t>(offset)};
}

int supports_device(const xd_kernel_call* c) {
  if (c->device < 0 || c->device >= device_count()) return 0;
  if (get_device(c->device).fp64) return 1;
  for (int i = 0; i < c->num_inputs; ++i)
    if (c->inputs[i].ndim >= 0 && c->inputs[i].dtype == XD_DTYPE_F64) return 0;
  for (int i = 0; i < c->num_outputs; ++i)
    if (c->outputs[i].ndim >= 0 && c->outputs[i].dtype == XD_DTYPE_F64) return 0;
  return 1;
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
