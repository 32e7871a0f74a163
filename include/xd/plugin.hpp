// Header-only C++ toolbox for plugin authors: everything every plugin needs, so that no plugin
// carries its own copy. Nothing here is part of the ABI: a plugin may be written against
// plugin_abi.h alone. What it holds, in order:
//  - XD_PLUGIN_EXPORT, xd::plugin::error and guarded(): throw inside, return a status at the C
//    boundary;
//  - this_plugin(): the plugin's name and the host's table kept from init (the host glue), with
//    log(), invalid() and fail();
//  - call accessors: view, input/output/optional_*, find_attrs/need_attrs, check_dtype,
//    workspace(): checked access to a kernel call, so a malformed call is an error, not a crash;
//  - decline(): how a kernel's check() says why it does not take a call (ABI 1.2);
//  - registrar and kernel_def/register_kernels(): one ordered registration list per plugin;
//  - declared options (xd_option_desc): parsed in one place, read_option() and its shorthands;
//  - identity/fill_info() and init(): the two entry points' bodies.
// Thread safety: everything is stateless or owned by the caller, except this_plugin(), whose host
// table is set once by init() before any other entry point runs.
// Errors: functions that can fail throw xd::plugin::error (status + message); guarded() and init()
// turn it into the status the ABI returns.
#pragma once

#include <xd/dtype_set.hpp>
#include <xd/plugin_abi.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#define XD_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace xd::plugin {

// ---------------------------------------------------------------- errors at the boundary
// Thrown inside a plugin; guarded() turns it into a status and a host-side message.
class error : public std::runtime_error {
 public:
  error(xd_status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  xd_status code() const noexcept { return code_; }

 private:
  xd_status code_;
};

// Runs `f` and converts any exception into a status reported through the host, so that no
// exception crosses the C boundary. `f` returns void or xd_status.
template <class F>
xd_status guarded(const xd_host_api* host, F&& f) noexcept {
  try {
    if constexpr (std::is_same_v<decltype(f()), void>) {
      f();
      return XD_OK;
    } else {
      return f();
    }
  } catch (const error& e) {
    return host->set_error(host->ctx, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return host->set_error(host->ctx, XD_ERR_OUT_OF_MEMORY, "host memory exhausted inside the plugin");
  } catch (const std::exception& e) {
    return host->set_error(host->ctx, XD_ERR_INTERNAL, e.what());
  } catch (...) {
    return host->set_error(host->ctx, XD_ERR_INTERNAL, "unknown exception inside the plugin");
  }
}

// ---------------------------------------------------------------- this plugin (the host glue)
// The host's API table, kept from xd_plugin_init for the plugin's runtime entry points, which
// receive no host pointer of their own but report errors and log through it. set() runs once in
// init before any other entry point; the atomic publishes it cleanly to the threads that read it.
class host_slot {
 public:
  void set(const xd_host_api* host) noexcept { host_.store(host, std::memory_order_release); }
  const xd_host_api* get() const noexcept { return host_.load(std::memory_order_acquire); }
  // Logs through the host, which prefixes the plugin's name; a no-op before set().
  void log(xd_log_level level, const std::string& message) const {
    const xd_host_api* h = get();
    if (h != nullptr && h->log != nullptr) h->log(h->ctx, level, message.c_str());
  }

 private:
  std::atomic<const xd_host_api*> host_{nullptr};
};

struct self {
  std::atomic<const char*> name{"plugin"};  // the backend name fill_info() declared
  host_slot host;
};

// One per plugin binary. Hidden, so that the static is never a process-wide (STB_GNU_UNIQUE)
// object shared by every plugin built from this header, even without -fvisibility=hidden.
__attribute__((visibility("hidden"))) inline self& this_plugin() noexcept {
  static self s;
  return s;
}
inline const char* name() noexcept { return this_plugin().name.load(std::memory_order_acquire); }
inline const xd_host_api* host() noexcept { return this_plugin().host.get(); }
inline void log(xd_log_level level, const std::string& message) { this_plugin().host.log(level, message); }

// plugin::error `code` with "<plugin name>: " in front of `message`.
[[noreturn]] inline void fail(xd_status code, const std::string& message) {
  throw error(code, std::string(name()) + ": " + message);
}
// For entry points that return a status themselves: reports "<plugin name>: <message>" through
// the host and returns `code` (`return plugin::report(XD_ERR_INVALID_ARGUMENT, "...");`).
inline xd_status report(xd_status code, const std::string& message) {
  const xd_host_api* h = host();
  return h != nullptr ? h->set_error(h->ctx, code, (std::string(name()) + ": " + message).c_str()) : code;
}
// A call that breaks the ABI's contract: XD_ERR_INVALID_ARGUMENT.
[[noreturn]] inline void invalid(const std::string& message) { fail(XD_ERR_INVALID_ARGUMENT, message); }

// ---------------------------------------------------------------- kernel calls
// Read-only accessors over a kernel's xd_view.
class view {
 public:
  explicit view(const xd_view& v) : v_(&v) {}
  bool present() const { return v_->ndim >= 0; }
  int ndim() const { return v_->ndim; }
  xd_dtype dtype() const { return static_cast<xd_dtype>(v_->dtype); }
  int64_t size(int d) const { return v_->sizes[d]; }
  int64_t stride(int d) const { return v_->strides[d]; }
  const int64_t* sizes() const { return v_->sizes; }
  const int64_t* strides() const { return v_->strides; }
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < v_->ndim; ++d) n *= v_->sizes[d];
    return n;
  }
  // Row-major contiguous (size-1 dims may have any stride).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int d = v_->ndim - 1; d >= 0; --d) {
      if (v_->sizes[d] != 1 && v_->strides[d] != expected) return false;
      expected *= v_->sizes[d];
    }
    return true;
  }
  void* handle() const { return v_->handle; }
  uint64_t offset() const { return v_->offset; }
  // For backends whose handles are host pointers (XD_DEVICE_FLAG_HOST_POINTERS).
  template <class T>
  T* host_data() const {
    return reinterpret_cast<T*>(static_cast<char*>(v_->handle) + v_->offset);
  }
  const xd_view& raw() const { return *v_; }

 private:
  const xd_view* v_;
};

inline int64_t numel(const xd_view& v) { return view(v).numel(); }

// The error input() and output() throw; out of line, so that their checks inline into every
// kernel without the message's string work (the small-op call runs three of them).
[[noreturn, gnu::cold, gnu::noinline]] inline void missing_view(const xd_kernel_call* c, const char* kind, int i) {
  invalid("kernel for op " + std::to_string(c->op) + " needs " + kind + " " + std::to_string(i));
}

// Input or output `i`, which the call must have.
inline const xd_view& input(const xd_kernel_call* c, int i) {
  if (i >= c->num_inputs || c->inputs[i].ndim < 0) [[unlikely]]
    missing_view(c, "input", i);
  return c->inputs[i];
}
inline const xd_view& output(const xd_kernel_call* c, int i) {
  if (i >= c->num_outputs || c->outputs[i].ndim < 0) [[unlikely]]
    missing_view(c, "output", i);
  return c->outputs[i];
}
// An optional tensor: nullptr when it is absent (ndim == -1) or beyond the count given.
inline const xd_view* optional_input(const xd_kernel_call* c, int i) {
  return i < c->num_inputs && c->inputs[i].ndim >= 0 ? &c->inputs[i] : nullptr;
}
inline const xd_view* optional_output(const xd_kernel_call* c, int i) {
  return i < c->num_outputs && c->outputs[i].ndim >= 0 ? &c->outputs[i] : nullptr;
}

// The op's attribute struct, or nullptr when the host passed none. A struct shorter than this
// plugin's (an older host) is rejected rather than read past its end.
template <class A>
const A* find_attrs(const xd_kernel_call* c) {
  if (c->attrs == nullptr) return nullptr;
  const A* a = static_cast<const A*>(c->attrs);
  if (a->struct_size < sizeof(A))
    invalid("attribute struct of op " + std::to_string(c->op) + " is too small (" + std::to_string(a->struct_size) +
            " bytes, expected " + std::to_string(sizeof(A)) + ")");
  return a;
}
template <class A>
const A& need_attrs(const xd_kernel_call* c) {
  const A* a = find_attrs<A>(c);
  if (a == nullptr) invalid("op " + std::to_string(c->op) + " was called without its attribute struct");
  return *a;
}

inline void check_dtype(const xd_view& v, int32_t expected, const char* what) {
  if (v.dtype != expected)
    invalid(std::string(what) + " has dtype " + std::to_string(v.dtype) + ", expected " + std::to_string(expected));
}

inline bool same_sizes(const xd_view& a, int ndim, const int64_t* sizes) {
  if (a.ndim != ndim) return false;
  for (int d = 0; d < ndim; ++d)
    if (a.sizes[d] != sizes[d]) return false;
  return true;
}

// Whether any present view of the call (input or output) has `dtype`.
inline bool has_view_of(const xd_kernel_call* c, int32_t dtype) {
  for (int i = 0; i < c->num_inputs; ++i)
    if (c->inputs[i].ndim >= 0 && c->inputs[i].dtype == dtype) return true;
  for (int i = 0; i < c->num_outputs; ++i)
    if (c->outputs[i].ndim >= 0 && c->outputs[i].dtype == dtype) return true;
  return false;
}

// Scratch memory on the call's device and stream from the host's workspace callback: the
// allocation's handle and a byte offset into it. The host's failure status is kept.
struct scratch {
  void* handle = nullptr;
  uint64_t offset = 0;  // bytes
};
// try_workspace: the same, but nullopt where the host has no memory to give
// (XD_ERR_OUT_OF_MEMORY), for a kernel that can run its call without one; other failures throw.
inline std::optional<scratch> try_workspace(const xd_kernel_call* c, uint64_t nbytes) {
  scratch s;
  if (c->workspace == nullptr) invalid("the host gave no workspace callback");
  const xd_status st = c->workspace(c->workspace_ctx, nbytes, &s.handle, &s.offset);
  if (st == XD_ERR_OUT_OF_MEMORY) return std::nullopt;
  if (st != XD_OK) fail(st, "no workspace of " + std::to_string(nbytes) + " bytes");
  return s;
}
inline scratch workspace(const xd_kernel_call* c, uint64_t nbytes) {
  const std::optional<scratch> s = try_workspace(c, nbytes);
  if (!s) fail(XD_ERR_OUT_OF_MEMORY, "no workspace of " + std::to_string(nbytes) + " bytes");
  return *s;
}

// ---------------------------------------------------------------- declining a call (ABI 1.2)
// For a kernel's check(): writes `why` as the reason (truncated to the host's buffer) and returns
// 0, the "declined" answer: `return plugin::decline(reason, size, "f64 without cl_khr_fp64");`.
inline int32_t decline(char* reason, size_t reason_size, const std::string& why) noexcept {
  if (reason != nullptr && reason_size > 0) {
    const size_t n = why.size() < reason_size - 1 ? why.size() : reason_size - 1;
    std::memcpy(reason, why.data(), n);
    reason[n] = '\0';
  }
  return 0;
}

// ---------------------------------------------------------------- registration
// Registers kernels during xd_plugin_init; throws xd::plugin::error on a rejected registration.
class registrar {
 public:
  explicit registrar(const xd_host_api* host) : host_(host) {}
  // One kernel. `check` (ABI 1.2) declines a call with a reason; `supports` (ABI 1.0) without one.
  void add(xd_op op, xd_dtype dtype, xd_kernel_fn fn, const char* name, xd_kernel_supports_fn supports = nullptr,
           void* user_data = nullptr, int32_t priority = 0, xd_kernel_check_fn check = nullptr) {
    xd_kernel_desc d{};
    d.struct_size = sizeof d;
    d.op = op;
    d.dtype = dtype;
    d.name = name;
    d.fn = fn;
    d.supports = supports;
    d.user_data = user_data;
    d.priority = priority;
    d.check = check;
    const xd_status s = host_->register_kernel(host_->ctx, &d);
    if (s != XD_OK) throw error(s, std::string("registering kernel ") + name + " was rejected");
    ++count_;
  }
  int count() const { return count_; }

 private:
  const xd_host_api* host_;
  int count_ = 0;
};

// One entry of a plugin's registration list: a kernel, the op and dtypes it serves, and the check
// that declines the calls it cannot take. Either `fn` serves every dtype (the kernel reads the
// dtype at run time) or `fn_for` gives one function per dtype (typed kernels).
struct kernel_def {
  xd_op op;
  const char* name;  // without the backend's name: "add", "mm.dnnl" (registered as "cpu.mm.dnnl")
  DtypeSet dtypes;
  xd_kernel_fn fn = nullptr;
  xd_kernel_fn (*fn_for)(xd_dtype) = nullptr;
  xd_kernel_check_fn check = nullptr;
  void* user_data = nullptr;
  // nullptr: registered for every dtype of `dtypes`. Else only for those it returns true for at
  // init: a capability of the machine or runtime (oneDNN's bf16 matmul needs AVX-512), so that a
  // kernel that could never run is not registered at all.
  bool (*available)(xd_dtype) = nullptr;
};

// Registers every kernel of a plugin's one list, in list order, as "<plugin name>.<def name>".
// The order is the order a dispatch slot tries them (equal priorities keep registration order),
// so a list names each op's specialised kernels first and its general kernel last, as oneDNN's
// implementation lists do.
inline void register_kernel(registrar& r, const kernel_def& k) {
  const std::string full = std::string(name()) + "." + k.name;
  k.dtypes.for_each([&](xd_dtype d) {
    if (k.available != nullptr && !k.available(d)) return;
    const xd_kernel_fn fn = k.fn != nullptr ? k.fn : (k.fn_for != nullptr ? k.fn_for(d) : nullptr);
    if (fn == nullptr) throw error(XD_ERR_INTERNAL, full + " lists a dtype it has no function for: " + dtype_tag(d));
    r.add(k.op, d, fn, full.c_str(), nullptr, k.user_data, 0, k.check);
  });
}
inline void register_kernels(registrar& r, std::span<const kernel_def> list) {
  for (const kernel_def& k : list) register_kernel(r, k);
}
inline void register_kernels(registrar& r, std::span<const kernel_def* const> list) {
  for (const kernel_def* k : list) register_kernel(r, *k);
}

// ---------------------------------------------------------------- declared options
// A variable of the environment, read as the core reads its own: through secure_getenv (ignored
// in setuid programs), empty the same as unset.
inline std::optional<std::string> environment(const char* variable) {
  const char* v = secure_getenv(variable);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

// An option's accepted values in words ("1..64", "0 or 1", "lanes,cols in 1..256,1..64"); empty
// for a malformed declaration. The host lists options with the same words (xd-info).
inline std::string accepted_text(const xd_option_desc& o) {
  auto range = [&](int i) { return std::to_string(o.min[i]) + ".." + std::to_string(o.max[i]); };
  switch (o.kind) {
    case XD_OPTION_TEXT:
      return "any text";
    case XD_OPTION_FLAG:
      return "0 or 1";
    case XD_OPTION_INTEGER:
      return o.min[0] <= o.max[0] ? range(0) : std::string();
    case XD_OPTION_CHOICE: {
      if (o.choices == nullptr || *o.choices == '\0') return {};
      std::string s(o.choices);
      for (size_t p = s.find('|'); p != std::string::npos; p = s.find('|', p)) s.replace(p, 1, ", ");
      return s;
    }
    case XD_OPTION_INTEGERS: {
      if (o.count < 1 || o.count > XD_OPTION_MAX_INTEGERS || o.choices == nullptr) return {};
      size_t commas = 0;
      for (const char* p = o.choices; *p != '\0'; ++p) commas += *p == ',' ? 1 : 0;
      if (commas + 1 != static_cast<size_t>(o.count)) return {};
      std::string ranges;
      for (int i = 0; i < o.count; ++i) {
        if (o.min[i] > o.max[i]) return {};
        if (i > 0) ranges += ',';
        ranges += range(i);
      }
      return std::string(o.choices) + " in " + ranges;
    }
    default:
      return {};
  }
}

// An option's value: parsed from the environment, else from its declared default.
struct option_value {
  bool from_environment = false;
  std::string text;                               // TEXT and CHOICE: the value; "" for an unset TEXT
  int64_t integers[XD_OPTION_MAX_INTEGERS] = {};  // INTEGER, INTEGERS, FLAG (0 or 1)
};

namespace options_detail {
inline bool parse_integer(const std::string& s, int64_t& out) {
  // Decimal digits with an optional leading '-': no spaces, no '+', no hexadecimal.
  const size_t digits = s.size() - (!s.empty() && s[0] == '-' ? 1 : 0);
  if (digits == 0 || digits > 18 || s.find_first_not_of("0123456789", s.size() - digits) != std::string::npos)
    return false;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size()) return false;
  out = static_cast<int64_t>(v);
  return true;
}
// Parses `text` as `o` declares; false when it is not an accepted value.
inline bool parse(const xd_option_desc& o, const std::string& text, option_value& v) {
  v.text = text;
  switch (o.kind) {
    case XD_OPTION_TEXT:
      return true;
    case XD_OPTION_FLAG:
      if (text != "0" && text != "1") return false;
      v.integers[0] = text == "1" ? 1 : 0;
      return true;
    case XD_OPTION_CHOICE: {
      const std::string all = std::string("|") + (o.choices != nullptr ? o.choices : "") + "|";
      return !text.empty() && text.find('|') == std::string::npos && all.find("|" + text + "|") != std::string::npos;
    }
    case XD_OPTION_INTEGER:
    case XD_OPTION_INTEGERS: {
      const int count = o.kind == XD_OPTION_INTEGER ? 1 : o.count;
      size_t start = 0;
      for (int i = 0; i < count; ++i) {
        const size_t comma = text.find(',', start);
        const bool last = i == count - 1;
        if (last != (comma == std::string::npos)) return false;
        const std::string part = text.substr(start, last ? std::string::npos : comma - start);
        if (!parse_integer(part, v.integers[i]) || v.integers[i] < o.min[i] || v.integers[i] > o.max[i]) return false;
        start = comma + 1;
      }
      return true;
    }
    default:
      return false;
  }
}
}  // namespace options_detail

// Reads a declared option. A malformed value is reported as a warning through the host, naming
// the variable, the value, the accepted values and the default, and the default is used.
// Callers read an option once (a function-local static) where the docs say it is read.
inline option_value read_option(const xd_option_desc& o) {
  option_value v;
  const std::string def = o.default_value != nullptr ? o.default_value : "";
  if (!def.empty() && !options_detail::parse(o, def, v))
    throw error(XD_ERR_INTERNAL, std::string(name()) + ": option " + o.name + " declares a default it does not accept");
  if (def.empty()) v.text.clear();
  const auto env = environment(o.name);
  if (!env) return v;
  option_value parsed;
  if (options_detail::parse(o, *env, parsed)) {
    parsed.from_environment = true;
    return parsed;
  }
  log(XD_LOG_WARN, std::string(o.name) + "='" + *env + "' is not valid (accepted: " + accepted_text(o) + "); using " +
                       (def.empty() ? std::string("the default (unset)") : "the default " + def));
  return v;
}
inline bool option_flag(const xd_option_desc& o) { return read_option(o).integers[0] != 0; }
inline int64_t option_integer(const xd_option_desc& o) { return read_option(o).integers[0]; }
inline std::string option_text(const xd_option_desc& o) { return read_option(o).text; }

// ---------------------------------------------------------------- query and init
// Copies `mine` into the caller's struct of the same type within the size the caller declared
// in out->struct_size (an older caller has a shorter struct), and records the size written.
template <class S>
void copy_sized(S* out, const S& mine) {
  const size_t n = out->struct_size < sizeof mine ? out->struct_size : sizeof mine;
  std::memcpy(out, &mine, n);
  out->struct_size = n;
}

// What a plugin declares in its query (xd_plugin_info). Strings live for the process (literals).
struct identity {
  const char* name;  // [a-z][a-z0-9_]*
  const char* version;
  const char* description;
  uint32_t device_kinds;
  const char* family = nullptr;  // e.g. "xpu"; see xd_plugin_info
  int32_t family_preference = 0;
  uint32_t family_kinds = 0;
  uint32_t flags = 0;  // XD_PLUGIN_FLAG_*
  std::span<const xd_option_desc> options = {};
};

// Fills an xd_plugin_info within the size the host gave, and remembers the name (name()).
inline xd_status fill_info(xd_plugin_info* info, const identity& id) {
  if (info == nullptr || info->struct_size < offsetof(xd_plugin_info, abi_minor) + sizeof(uint32_t))
    return XD_ERR_INVALID_ARGUMENT;
  this_plugin().name.store(id.name, std::memory_order_release);
  xd_plugin_info mine{};
  mine.struct_size = sizeof mine;
  mine.name = id.name;
  mine.abi_major = XD_ABI_MAJOR;
  mine.abi_minor = XD_ABI_MINOR;
  mine.version = id.version;
  mine.description = id.description;
  mine.device_kinds = id.device_kinds;
  mine.family = id.family;
  mine.family_preference = id.family_preference;
  mine.family_kinds = id.family_kinds;
  mine.flags = id.flags;
  mine.options = id.options.empty() ? nullptr : id.options.data();
  mine.option_count = static_cast<int32_t>(id.options.size());
  copy_sized(info, mine);
  return XD_OK;
}
inline xd_status fill_info(xd_plugin_info* info, const char* name, const char* version, const char* description,
                           uint32_t device_kinds) {
  return fill_info(info, identity{name, version, description, device_kinds});
}

// The runtime half of the api table in three groups, each set by one call, so that a plugin's
// runtime files name their functions once and cannot leave one of a group out.
struct device_functions {
  decltype(xd_plugin_api::device_count) count;
  decltype(xd_plugin_api::device_properties) properties;
};
struct memory_functions {
  decltype(xd_plugin_api::mem_alloc) mem_alloc;
  decltype(xd_plugin_api::mem_free) mem_free;
  decltype(xd_plugin_api::host_alloc) host_alloc;  // both nullptr: no pinned host memory
  decltype(xd_plugin_api::host_free) host_free;
  decltype(xd_plugin_api::copy_h2d) copy_h2d;
  decltype(xd_plugin_api::copy_d2h) copy_d2h;
  decltype(xd_plugin_api::copy_d2d) copy_d2d;
};
struct stream_functions {
  decltype(xd_plugin_api::stream_create) stream_create;
  decltype(xd_plugin_api::stream_destroy) stream_destroy;
  decltype(xd_plugin_api::stream_synchronize) stream_synchronize;
  decltype(xd_plugin_api::stream_query) stream_query;
  decltype(xd_plugin_api::event_create) event_create;
  decltype(xd_plugin_api::event_destroy) event_destroy;
  decltype(xd_plugin_api::event_record) event_record;
  decltype(xd_plugin_api::stream_wait_event) stream_wait_event;
  decltype(xd_plugin_api::event_query) event_query;
  decltype(xd_plugin_api::event_synchronize) event_synchronize;
  decltype(xd_plugin_api::event_elapsed_ms) event_elapsed_ms;
};
inline void set_devices(xd_plugin_api& a, const device_functions& f) {
  a.device_count = f.count;
  a.device_properties = f.properties;
}
inline void set_memory(xd_plugin_api& a, const memory_functions& f) {
  a.mem_alloc = f.mem_alloc;
  a.mem_free = f.mem_free;
  a.host_alloc = f.host_alloc;
  a.host_free = f.host_free;
  a.copy_h2d = f.copy_h2d;
  a.copy_d2h = f.copy_d2h;
  a.copy_d2d = f.copy_d2d;
}
inline void set_streams(xd_plugin_api& a, const stream_functions& f) {
  a.stream_create = f.stream_create;
  a.stream_destroy = f.stream_destroy;
  a.stream_synchronize = f.stream_synchronize;
  a.stream_query = f.stream_query;
  a.event_create = f.event_create;
  a.event_destroy = f.event_destroy;
  a.event_record = f.event_record;
  a.stream_wait_event = f.stream_wait_event;
  a.event_query = f.event_query;
  a.event_synchronize = f.event_synchronize;
  a.event_elapsed_ms = f.event_elapsed_ms;
}

// Copies a fully built api table into the host's, within the size the host gave.
inline void fill_api(xd_plugin_api* out, const xd_plugin_api& mine) { copy_sized(out, mine); }

// The body of xd_plugin_init: checks the host table, keeps it (host()), then runs
// `fill(api table, registrar)` guarded, logs how many kernels it registered and copies the table
// out. `fill` reports an absent runtime by throwing error(XD_ERR_UNAVAILABLE, why).
template <class F>
xd_status init(const xd_host_api* host, xd_plugin_api* api, F&& fill) noexcept {
  if (host == nullptr || api == nullptr || host->set_error == nullptr || host->register_kernel == nullptr)
    return XD_ERR_INVALID_ARGUMENT;
  this_plugin().host.set(host);
  return guarded(host, [&] {
    xd_plugin_api mine{};
    mine.struct_size = sizeof mine;
    registrar r(host);
    fill(mine, r);
    log(XD_LOG_DEBUG, std::to_string(r.count()) + " kernels registered");
    fill_api(api, mine);
  });
}

// Copies a string into a fixed char array, always terminated.
template <size_t N>
void copy_string(char (&dst)[N], const std::string& src) {
  const size_t n = src.size() < N - 1 ? src.size() : N - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace xd::plugin
