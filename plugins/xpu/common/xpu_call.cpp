#include "xpu_call.hpp"

namespace xd::xpu {

void invalid(const char* backend, const std::string& message) {
  throw plugin::error(XD_ERR_INVALID_ARGUMENT, std::string(backend) + ": " + message);
}

const xd_view& input(const xd_kernel_call* c, int i, const char* backend) {
  if (i >= c->num_inputs || c->inputs[i].ndim < 0)
    invalid(backend, "kernel for op " + std::to_string(c->op) + " needs input " + std::to_string(i));
  return c->inputs[i];
}

const xd_view& output(const xd_kernel_call* c, int i, const char* backend) {
  if (i >= c->num_outputs || c->outputs[i].ndim < 0)
    invalid(backend, "kernel for op " + std::to_string(c->op) + " needs output " + std::to_string(i));
  return c->outputs[i];
}

const xd_view* optional_input(const xd_kernel_call* c, int i) {
  return i < c->num_inputs && c->inputs[i].ndim >= 0 ? &c->inputs[i] : nullptr;
}

const xd_view* optional_output(const xd_kernel_call* c, int i) {
  return i < c->num_outputs && c->outputs[i].ndim >= 0 ? &c->outputs[i] : nullptr;
}

bool has_f64_view(const xd_kernel_call* c) {
  for (int i = 0; i < c->num_inputs; ++i)
    if (c->inputs[i].ndim >= 0 && c->inputs[i].dtype == XD_DTYPE_F64) return true;
  for (int i = 0; i < c->num_outputs; ++i)
    if (c->outputs[i].ndim >= 0 && c->outputs[i].dtype == XD_DTYPE_F64) return true;
  return false;
}

host_scratch host_workspace(const xd_kernel_call* c, uint64_t nbytes, const char* backend) {
  host_scratch s;
  if (c->workspace == nullptr) invalid(backend, "the host gave no workspace callback");
  const xd_status st = c->workspace(c->workspace_ctx, nbytes, &s.handle, &s.offset);
  if (st != XD_OK)
    throw plugin::error(st, std::string(backend) + ": no workspace of " + std::to_string(nbytes) + " bytes");
  return s;
}

bool same_sizes(const xd_view& a, int ndim, const int64_t* sizes) {
  if (a.ndim != ndim) return false;
  for (int d = 0; d < ndim; ++d)
    if (a.sizes[d] != sizes[d]) return false;
  return true;
}

void check_dtype(const xd_view& v, int32_t expected, const char* what, const char* backend) {
  if (v.dtype != expected)
    invalid(backend, std::string(what) + " has dtype " + std::to_string(v.dtype) + ", expected " +
                         std::to_string(expected));
}

}  // namespace xd::xpu
