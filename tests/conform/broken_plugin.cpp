// A backend named "broken" whose f32 `add` kernel is wrong on purpose, so the tests can prove
// xd-conform catches each kind of bug. It borrows the CPU plugin's runtime (host memory).
// XD_BROKEN_MODE selects the bug:
//   value      element 5 of the output (flat, row-major) is off by 0.5
//   unwritten  the last output element is never written
//   noncontig  correct for contiguous inputs, wrong (a - b) when an input is strided
//   (unset)    a correct kernel
// XD_BROKEN_EXTRA=1 also registers "broken.add.never", whose check() declines every call: a
// kernel no case can reach, for the coverage gate.
#include "runtime/runtime.hpp"

#include <xd/plugin.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum class Bug { none, value, unwritten, noncontig };

Bug bug() {
  const char* m = std::getenv("XD_BROKEN_MODE");
  if (m == nullptr) return Bug::none;
  if (std::strcmp(m, "value") == 0) return Bug::value;
  if (std::strcmp(m, "unwritten") == 0) return Bug::unwritten;
  if (std::strcmp(m, "noncontig") == 0) return Bug::noncontig;
  return Bug::none;
}

bool contiguous(const xd_view& v, const xd_view& out) {
  int64_t expect = 1;
  for (int d = v.ndim - 1; d >= 0; --d) {
    if (v.sizes[d] != out.sizes[d]) return false;
    if (v.sizes[d] != 1 && v.strides[d] != expect) return false;
    expect *= v.sizes[d];
  }
  return true;
}

float* at(const xd_view& v, int64_t flat, const xd_view& shape) {
  int64_t off = 0;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    const int64_t i = flat % shape.sizes[d];
    flat /= shape.sizes[d];
    off += i * v.strides[d];
  }
  return reinterpret_cast<float*>(static_cast<char*>(v.handle) + v.offset) + off;
}

xd_status broken_add(const xd_kernel_call* c) {
  const xd_view& a = c->inputs[0];
  const xd_view& b = c->inputs[1];
  const xd_view& o = c->outputs[0];
  const auto* attrs = static_cast<const xd_attrs_scalar*>(c->attrs);
  const float alpha = attrs != nullptr ? static_cast<float>(attrs->real) : 1.0f;
  int64_t n = 1;
  for (int d = 0; d < o.ndim; ++d) n *= o.sizes[d];
  const Bug mode = bug();
  const bool strided = !contiguous(a, o) || !contiguous(b, o);
  for (int64_t i = 0; i < n; ++i) {
    if (mode == Bug::unwritten && i == n - 1) break;
    float r = *at(a, i, o) + alpha * *at(b, i, o);
    if (mode == Bug::value && i == 5) r += 0.5f;
    if (mode == Bug::noncontig && strided) r = *at(a, i, o) - *at(b, i, o);
    *at(o, i, o) = r;
  }
  return XD_OK;
}

int32_t never(const xd_kernel_call*, char* reason, size_t reason_size) {
  return xd::plugin::decline(reason, reason_size, "declines every call, on purpose");
}

}  // namespace

XD_PLUGIN_EXPORT xd_status xd_plugin_query(xd_plugin_info* info) {
  return xd::plugin::fill_info(info, "broken", "0.0.0", "test backend with deliberately wrong kernels",
                               XD_DEVICE_KIND_CPU);
}

XD_PLUGIN_EXPORT xd_status xd_plugin_init(const xd_host_api* host, xd_plugin_api* api) {
  return xd::plugin::init(host, api, [](xd_plugin_api& mine, xd::plugin::registrar& r) {
    xd::cpu::fill_device_api(mine);
    xd::cpu::fill_memory_api(mine);
    xd::cpu::fill_stream_api(mine);
    r.add(XD_OP_ADD, XD_DTYPE_F32, broken_add, "broken.add");
    if (std::getenv("XD_BROKEN_EXTRA") != nullptr)
      r.add(XD_OP_ADD, XD_DTYPE_F32, broken_add, "broken.add.never", nullptr, nullptr, -1, never);
  });
}
