#include "dispatch/launch.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>

#include "compiler/trace.hpp"
#include "dispatch/dispatch_table.hpp"
#include "ops/schema.hpp"
#include "plugin/host_api.hpp"
#include "runtime/current.hpp"
#include "tensor/shape.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace xd::detail {

// Blocking transfers between host memory and a contiguous tensor on a device (core/tensor/tensor.cpp):
// the plugin's raw copy primitives, no kernel.
void device_to_host(const TensorImpl& t, void* dst);
void host_to_device(const void* src, TensorImpl& t);

namespace {

std::atomic<uint64_t> g_fallbacks{0};
std::atomic<bool> g_poison{false};

}  // namespace

bool poisoning_outputs() { return g_poison.load(std::memory_order_relaxed); }

// Fills the outputs that own their storage with 0xFF bytes (see xd::set_poison_outputs).
void poison_outputs(DeviceRecord& dev, StreamState& stream, std::span<const Arg> outputs) {
  for (const Arg& a : outputs) {
    if (a.t == nullptr || a.t->storage != &a.t->own_storage || a.t->storage->nbytes == 0) continue;
    const Storage& s = *a.t->storage;
    std::vector<unsigned char> ff(s.nbytes, 0xFF);
    auto& api = dev.backend->api;
    check(*dev.backend, api.copy_h2d(api.ctx, dev.plugin_device, stream.handle, s.handle, s.offset, ff.data(), s.nbytes, 1),
          "copy_h2d (poisoning outputs)");
  }
}

namespace {

enum class Fallback { error, cpu };
// XD_FALLBACK's value that sends missing kernels to the host CPU device: a device kind, as in
// XD_DEVICES' `:cpu`, never a backend's name (the backend is whichever plugin declares
// XD_PLUGIN_FLAG_HOST_REFERENCE).
constexpr const char* kFallbackToHost = device_kind_name(DeviceKind::cpu);

// Read at the first missing kernel (the registry checked it when it started; a program may have
// changed it since, e.g. xd-conform sets "error").
Fallback fallback_mode() {
  static const Fallback mode = [] {
    check_fallback_setting();
    return env("XD_FALLBACK").value_or("") == kFallbackToHost ? Fallback::cpu : Fallback::error;
  }();
  return mode;
}

// Written in place: returning the struct by value costs a copy through the stack per operand.
void to_view(const Arg& a, xd_view& v) {
  v = xd_view{};
  v.struct_size = sizeof v;
  if (a.t == nullptr) {
    v.ndim = -1;
    v.dtype = -1;
    return;
  }
  v.dtype = static_cast<int32_t>(a.t->dtype);
  v.ndim = a.ndim;
  v.sizes = a.sizes;
  v.strides = a.strides;
  v.handle = a.t->storage->handle;
  v.offset = a.t->byte_offset();
}

struct Workspace {
  DeviceRecord* dev;
  std::vector<std::shared_ptr<TensorImpl>> held;  // released when the launch returns
};

xd_status workspace_fn(void* ctx, uint64_t nbytes, void** handle, uint64_t* offset) {
  auto* w = static_cast<Workspace*>(ctx);
  try {
    const int64_t n = static_cast<int64_t>(nbytes);
    auto t = allocate_tensor(*w->dev, {n}, Dtype::u8);
    *handle = t->storage->handle;
    *offset = t->storage->offset;
    w->held.push_back(std::move(t));
    return XD_OK;
  } catch (const std::exception& e) {
    return make_host_api(nullptr).set_error(nullptr, XD_ERR_OUT_OF_MEMORY, e.what());
  }
}

// Why the kernels of a slot declined a call, kept for the error raised when every one declines.
constexpr size_t kReasonSize = 192;
constexpr int kMaxDeclines = 6;
struct Declines {
  struct Row {
    const KernelEntry* kernel;
    char reason[kReasonSize];
  };
  Row rows[kMaxDeclines];
  int count = 0;
  int dropped = 0;  // declines past kMaxDeclines (named in the error, reasons not kept)

  // The buffer the next kernel's check() may write its reason into.
  char* next() { return count < kMaxDeclines ? rows[count].reason : overflow; }
  void record(const KernelEntry& e, const char* fixed_reason) {
    char* r = next();
    if (fixed_reason != nullptr) std::snprintf(r, kReasonSize, "%s", fixed_reason);
    r[kReasonSize - 1] = '\0';
    if (r[0] == '\0') std::snprintf(r, kReasonSize, "%s", "declined without giving a reason");
    if (log_enabled(LogLevel::debug)) log(LogLevel::debug, e.name + " declined: " + r);
    if (count < kMaxDeclines) {
      rows[count++].kernel = &e;
    } else {
      ++dropped;
    }
  }
  std::string text() const {
    std::string s;
    for (int i = 0; i < count; ++i) s += std::string(i ? "; " : "") + rows[i].kernel->name + ": " + rows[i].reason;
    if (dropped > 0) s += "; and " + std::to_string(dropped) + " more";
    return s;
  }

 private:
  char overflow[kReasonSize];
};

// Whether kernel `e` takes the call; a decline is recorded with its reason.
bool accepts(const KernelEntry& e, const xd_kernel_call& call, Declines& declines) {
  if (!e.enabled.load(std::memory_order_relaxed)) {
    declines.record(e, "disabled by xd::set_kernel_enabled");
    return false;
  }
  if (e.check != nullptr) {
    char* reason = declines.next();
    reason[0] = '\0';
    if (e.check(&call, reason, kReasonSize) != 0) return true;
    declines.record(e, nullptr);
    return false;
  }
  if (e.supports != nullptr && e.supports(&call) == 0) {
    declines.record(e, "its supports() declined (it gives no reason: a plugin built before ABI 1.2)");
    return false;
  }
  return true;
}

std::string registered_dtypes(xd_op op, const Backend& b) {
  std::string s;
  for (int d = 0; d < kNumDtypes; ++d)
    if (!Registry::get().table().slot(op, b.type, static_cast<Dtype>(d)).empty())
      s += std::string(s.empty() ? "" : ", ") + dtype_name(static_cast<Dtype>(d));
  return s.empty() ? "none" : s;
}

// The elements of its storage that an argument reaches: [first, first + count), counted from the
// start of the storage in elements of its dtype. Broadcast dims (stride 0) reach nothing more.
struct Span {
  int64_t first = 0;
  int64_t count = 0;
};

Span span_of(const Arg& a) {
  int64_t lo = a.t->storage_offset, hi = lo;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.sizes[d] == 0) return {lo, 0};
    const int64_t reach = (a.sizes[d] - 1) * a.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  return {lo, hi - lo + 1};
}

bool row_major(const Arg& a) {
  int64_t expected = 1;
  for (int d = a.ndim - 1; d >= 0; --d) {
    if (a.sizes[d] == 1) continue;
    if (a.strides[d] != expected) return false;
    expected *= a.sizes[d];
  }
  return true;
}

// The elements `span` of `a`'s storage as a contiguous 1-d tensor on its device: what the raw
// transfers (device_to_host, host_to_device) move. Non-owning (an aliasing shared_ptr with no
// control block): it lives only inside run_on_cpu, while the caller's tensors are alive.
std::shared_ptr<TensorImpl> span_view(const Arg& a, Span span) {
  const std::shared_ptr<const TensorImpl> base(std::shared_ptr<const TensorImpl>(), a.t);
  const int64_t one = 1;
  return make_view(base, 1, &span.count, &one, span.first);
}

// A CPU copy of the elements `a` reaches, viewed with a's sizes, strides and offset within them.
// The bytes move by the backend's raw copy primitive, never by a COPY kernel on a's device: that
// kernel may be the missing one, and XD_FALLBACK=cpu would then fall back into itself for ever.
Tensor gather_to_cpu(DeviceRecord& cpu_dev, const Arg& a) {
  const Span span = span_of(a);
  auto buffer = allocate_tensor(cpu_dev, {span.count}, a.t->dtype);
  if (span.count > 0)
    device_to_host(*span_view(a, span), static_cast<char*>(buffer->storage->handle) + buffer->byte_offset());
  const std::shared_ptr<const TensorImpl> base = std::move(buffer);
  return Tensor(make_view(base, a.ndim, a.sizes, a.strides, a.t->storage_offset - span.first));
}

// Runs the op on the CPU backend: inputs gathered to the host, outputs computed there and
// written back, all through the device's raw copies (see gather_to_cpu).
void run_on_cpu(xd_op op, Dtype key, std::span<const Arg> inputs, std::span<const Arg> outputs, const void* attrs) {
  DeviceRecord& cpu_dev = Registry::get().device(cpu());
  std::vector<Tensor> in_cpu, out_cpu;
  // Made contiguous on the CPU (whose backend has every kernel, COPY included), so that no CPU
  // kernel sees a layout it might decline.
  for (const Arg& a : inputs) in_cpu.push_back(a.t ? gather_to_cpu(cpu_dev, a).contiguous() : Tensor());
  for (const Arg& a : outputs)
    out_cpu.push_back(a.t ? Tensor(allocate_tensor(cpu_dev, IntList(a.sizes, static_cast<size_t>(a.ndim)), a.t->dtype))
                          : Tensor());
  std::vector<Arg> ai, ao;
  for (const Tensor& t : in_cpu) ai.push_back(t.defined() ? arg(t.impl()) : arg_absent());
  for (const Tensor& t : out_cpu) ao.push_back(t.defined() ? arg(t.impl()) : arg_absent());
  launch(op, key, cpu_dev, std::span<const Arg>(ai), std::span<const Arg>(ao), attrs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Arg& a = outputs[i];
    if (a.t == nullptr) continue;
    const Span span = span_of(a);
    if (span.count == 0) continue;
    if (row_major(a)) {  // the result's bytes are the span's bytes
      host_to_device(static_cast<const char*>(out_cpu[i].impl().storage->handle) + out_cpu[i].impl().byte_offset(),
                     *span_view(a, span));
      continue;
    }
    // A strided output (a view written by copy_): read the span, scatter the result into it on the
    // CPU, write the span back, so that the elements between the view's own stay as they were.
    Tensor staged = gather_to_cpu(cpu_dev, a);
    staged.copy_(out_cpu[i]);
    const TensorImpl& st = staged.impl();
    host_to_device(static_cast<const char*>(st.storage->handle) + st.storage->offset, *span_view(a, span));
  }
}

}  // namespace

void check_fallback_setting() {
  check_choice("XD_FALLBACK", {"error", kFallbackToHost},
               {"a missing kernel is an error", "run missing kernels on the CPU backend"}, "error");
}

Arg arg(const TensorImpl& t) {
  Arg a;
  a.t = &t;
  a.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) {  // a loop, not memcpy: see allocate_tensor
    a.sizes[i] = t.sizes[i];
    a.strides[i] = t.strides[i];
  }
  return a;
}

Arg arg_absent() { return Arg{}; }

Arg arg_broadcast(const TensorImpl& t, const int64_t* sizes, int ndim) {
  Arg a;
  a.t = &t;
  a.ndim = ndim;
  for (int i = 0; i < ndim; ++i) a.sizes[i] = sizes[i];
  broadcast_strides(t.sizes, t.strides, t.ndim, sizes, ndim, a.strides);
  return a;
}

void launch(xd_op op, Dtype key, DeviceRecord& dev, std::span<const Arg> inputs, std::span<const Arg> outputs,
            const void* attrs) {
  if (inputs.size() > kMaxInputs || outputs.size() > kMaxOutputs)
    throw Error(std::string("internal error: ") + op_schema(op).name + " launched with " +
                std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) +
                " outputs; raise kMaxInputs/kMaxOutputs in core/dispatch/launch.hpp");
  if (compiler::Tracer* t = compiler::active_tracer()) [[unlikely]]
    t->on_launch(op, key, dev, inputs, outputs, attrs);
  xd_view in[kMaxInputs], out[kMaxOutputs];
  int ni = 0, no = 0;
  for (const Arg& a : inputs) to_view(a, in[ni++]);
  for (const Arg& a : outputs) to_view(a, out[no++]);
  Backend& b = *dev.backend;
  StreamState& stream = current_stream_state(dev);
  Workspace ws{&dev, {}};

  xd_kernel_call call{};
  call.struct_size = sizeof call;
  call.op = op;
  call.device = dev.plugin_device;
  call.stream = stream.handle;
  call.num_inputs = ni;
  call.num_outputs = no;
  call.inputs = in;
  call.outputs = out;
  call.attrs = attrs;
  call.plugin_ctx = b.api.ctx;
  call.host = &b.host;
  call.workspace = workspace_fn;
  call.workspace_ctx = &ws;

  const auto& slot = Registry::get().table().slot(op, b.type, key);
  Declines declines;
  for (const KernelEntry* e : slot) {
    call.user_data = e->user_data;
    if (!accepts(*e, call, declines)) continue;
    if (g_poison.load(std::memory_order_relaxed)) poison_outputs(dev, stream, outputs);
    e->calls.store(e->calls.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    const xd_status s = e->fn(&call);
    if (s != XD_OK) {
      std::string msg = take_plugin_error();
      if (msg.empty()) msg = "status " + std::to_string(static_cast<int>(s));
      const std::string text = std::string(op_schema(op).name) + " on " + dev.device.str() + " (" +
                               dtype_name(key) + "): kernel " + e->name + " failed: " + msg;
      if (s == XD_ERR_OUT_OF_MEMORY) throw OutOfMemoryError(text);
      if (s == XD_ERR_NOT_IMPLEMENTED) throw NotImplementedError(text);
      throw PluginError(text);
    }
    return;
  }

  const char* name = op_schema(op).name;
  if (fallback_mode() == Fallback::cpu && (b.flags & XD_PLUGIN_FLAG_HOST_REFERENCE) == 0) {
    g_fallbacks.fetch_add(1, std::memory_order_relaxed);
    log_once(LogLevel::warn, std::string("fallback:") + name + ":" + b.name + ":" + dtype_name(key),
             std::string(name) + " has no " + b.name + " kernel for " + dtype_name(key) +
                 "; running it on the CPU backend (XD_FALLBACK=cpu). This warning is shown once.");
    run_on_cpu(op, key, inputs, outputs, attrs);
    return;
  }
  const std::string why = slot.empty() ? std::string("no kernel is registered")
                                       : "every registered kernel declined this call (" + declines.text() + ")";
  throw NotImplementedError(std::string(name) + " on backend '" + b.name + "' with dtype " + dtype_name(key) + ": " +
                            why + ". Dtypes with " + name + " kernels on '" + b.name +
                            "': " + registered_dtypes(op, b) +
                            ". Set XD_FALLBACK=cpu to run missing kernels on the CPU backend.");
}

}  // namespace xd::detail

namespace xd {
uint64_t fallback_count() { return detail::g_fallbacks.load(std::memory_order_relaxed); }
void set_poison_outputs(bool on) { detail::g_poison.store(on, std::memory_order_relaxed); }
}  // namespace xd
