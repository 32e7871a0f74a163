#include "registry/registry.hpp"

#include <xd/error.hpp>

#include "dispatch/dispatch_table.hpp"
#include "dispatch/launch.hpp"
#include "plugin/host_api.hpp"
#include "plugin/loader.hpp"
#include "registry/device_filter.hpp"
#include "runtime/pinned_memory.hpp"
#include "util/env.hpp"
#include "util/log.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>

namespace fs = std::filesystem;

namespace xd::detail {

namespace {

std::atomic<uint64_t> g_stream_ids{1};

const DeviceFilter& device_filter() {
  static const DeviceFilter filter(env("XD_DEVICES").value_or(""));
  return filter;
}

DeviceKind kind_of(int32_t k) {
  if (k == XD_DEVICE_KIND_GPU) return DeviceKind::gpu;
  if (k == XD_DEVICE_KIND_ACCELERATOR) return DeviceKind::accelerator;
  return DeviceKind::cpu;
}

// The functions every plugin must provide; host_alloc/host_free are optional.
const char* missing_function(const xd_plugin_api& a) {
#define XD_REQUIRE(f) \
  if (!XD_STRUCT_HAS(&a, xd_plugin_api, f) || a.f == nullptr) return #f;
  XD_REQUIRE(device_count)
  XD_REQUIRE(device_properties)
  XD_REQUIRE(mem_alloc)
  XD_REQUIRE(mem_free)
  XD_REQUIRE(copy_h2d)
  XD_REQUIRE(copy_d2h)
  XD_REQUIRE(copy_d2d)
  XD_REQUIRE(stream_create)
  XD_REQUIRE(stream_destroy)
  XD_REQUIRE(stream_synchronize)
  XD_REQUIRE(stream_query)
  XD_REQUIRE(event_create)
  XD_REQUIRE(event_destroy)
  XD_REQUIRE(event_record)
  XD_REQUIRE(stream_wait_event)
  XD_REQUIRE(event_query)
  XD_REQUIRE(event_synchronize)
  XD_REQUIRE(event_elapsed_ms)
#undef XD_REQUIRE
  return nullptr;
}

}  // namespace

void check(const Backend& b, xd_status s, const char* what) {
  if (s == XD_OK) return;
  std::string msg = take_plugin_error();
  if (msg.empty()) msg = "status " + std::to_string(static_cast<int>(s));
  const std::string text = b.name + ": " + what + " failed: " + msg;
  if (s == XD_ERR_OUT_OF_MEMORY) throw OutOfMemoryError(text);
  throw PluginError(text);
}

StreamState::~StreamState() {
  if (owned && device != nullptr) {
    Backend& b = *device->backend;
    (void)b.api.stream_destroy(b.api.ctx, device->plugin_device, handle);
  }
}

const std::shared_ptr<StreamState>& DeviceRecord::get_default_stream() {
  std::call_once(stream_once, [this] {
    auto s = std::make_shared<StreamState>();
    s->device = this;
    s->id = g_stream_ids.fetch_add(1);
    check(*backend, backend->api.stream_create(backend->api.ctx, plugin_device, &s->handle), "stream_create");
    s->owned = false;  // lives for the process: kernels may still run at exit
    default_stream = std::move(s);
    default_stream_ready.store(default_stream.get(), std::memory_order_release);
  });
  return default_stream;
}

bool DeviceRecord::raw_alloc(uint64_t nbytes, void** handle, std::string& error) {
  const xd_status s = backend->api.mem_alloc(backend->api.ctx, plugin_device, nbytes, handle);
  if (s == XD_OK) return true;
  error = take_plugin_error();
  if (error.empty()) error = "mem_alloc returned status " + std::to_string(static_cast<int>(s));
  return false;
}

void DeviceRecord::raw_free(void* handle) {
  const xd_status s = backend->api.mem_free(backend->api.ctx, plugin_device, handle);
  if (s != XD_OK) log(LogLevel::warn, describe() + ": mem_free failed: " + take_plugin_error());
}

void* DeviceRecord::record_event(void* stream) {
  if (flags & XD_DEVICE_FLAG_HOST_POINTERS) return nullptr;  // synchronous: nothing pending
  xd_event ev = nullptr;
  check(*backend, backend->api.event_create(backend->api.ctx, plugin_device, &ev), "event_create");
  check(*backend, backend->api.event_record(backend->api.ctx, plugin_device, ev, stream), "event_record");
  return ev;
}

bool DeviceRecord::event_done(void* event) {
  const xd_status s = backend->api.event_query(backend->api.ctx, plugin_device, event);
  if (s == XD_NOT_READY) return false;
  if (s != XD_OK) log(LogLevel::warn, describe() + ": event_query failed: " + take_plugin_error());
  return true;
}

void DeviceRecord::destroy_event(void* event) {
  (void)backend->api.event_destroy(backend->api.ctx, plugin_device, event);
}

std::string DeviceRecord::describe() const { return device.str(); }

Registry& Registry::get() {
  static Registry* instance = new Registry();  // never destroyed: tensors may outlive statics
  return *instance;
}

Registry::Registry() : table_(new DispatchTable()) {
  // The core's settings are checked here, before anything loads, so that a bad value fails the
  // first use of the library instead of being ignored or surfacing later (docs/env-vars.md).
  check_log_setting();
  check_fallback_setting();
  (void)device_filter();  // a malformed XD_DEVICES fails here too
  load_default_plugins();
}

void Registry::load_default_plugins() {
  // XD_DEVICES names backends, and which exist is known only from the plugins' queries: every
  // candidate is opened and queried first (no init yet), so that a term naming no backend (a typo
  // such as '!opencll', which would match nothing) fails before any plugin initialises. The
  // message is kept: a failed start is retried by the next call, which fails the same way
  // without opening anything again.
  static std::string names_error;
  if (!names_error.empty()) throw ValueError(names_error);
  std::lock_guard lock(mutex_);
  std::vector<OpenedPlugin> opened;
  for (const Candidate& c : plugin_candidates(searched_)) {
    if (c.skipped.empty()) {
      opened.push_back(open_plugin(c.path));
      continue;
    }
    OpenedPlugin op;
    op.row.path = c.path;
    op.row.status = LoadStatus::skipped;
    op.row.reason = c.skipped;
    opened.push_back(std::move(op));
  }
  std::vector<DeviceFilter::Known> known;
  for (const OpenedPlugin& op : opened)
    if (!op.row.name.empty()) known.push_back({op.row.name, op.row.family});
  try {
    device_filter().check_names(known);
  } catch (const ValueError& e) {
    names_error = e.what();
    throw;
  }
  for (OpenedPlugin& op : opened) (void)init_opened(op);
}

LoadReportRow Registry::load(const std::string& path) {
  std::lock_guard lock(mutex_);
  return load_locked(path);
}

const DeviceRecord* Registry::host_reference() const {
  const int n = backend_count();
  for (int i = 0; i < n; ++i) {
    const Backend& b = *backends_[static_cast<size_t>(i)];
    if ((b.flags & XD_PLUGIN_FLAG_HOST_REFERENCE) != 0 && !b.devices.empty()) return b.devices.front().get();
  }
  return nullptr;
}

Backend* Registry::find(const std::string& name) const {
  const int n = backend_count();
  for (int i = 0; i < n; ++i)
    if (backends_[i]->name == name) return backends_[i].get();
  return nullptr;
}

// The report row of the loaded backend whose file `path` is (the same file by device and inode,
// whatever the spelling of the path), or nullptr.
const LoadReportRow* Registry::loaded_row_of(const std::string& path) const {
  std::error_code ec;
  if (!fs::exists(path, ec)) return nullptr;
  const int n = backend_count();
  for (int i = 0; i < n; ++i) {
    const Backend& b = *backends_[static_cast<size_t>(i)];
    if (!fs::equivalent(path, b.path, ec) || ec) continue;
    for (const LoadReportRow& row : report_)
      if (row.status == LoadStatus::loaded && row.path == b.path) return &row;
  }
  return nullptr;
}

LoadReportRow Registry::load_locked(const std::string& path) {
  // Loading a file that is already loaded is a no-op that returns its row: init must not run
  // twice, and a library cannot be a duplicate of itself. (A file whose earlier attempt failed is
  // tried again below and gets a new row.)
  if (const LoadReportRow* loaded = loaded_row_of(path)) return *loaded;
  OpenedPlugin op = open_plugin(path);
  return init_opened(op);
}

LoadReportRow Registry::init_opened(OpenedPlugin& op) {
  LoadReportRow& row = op.row;
  const std::string& path = row.path;
  auto finish = [&]() -> LoadReportRow {
    log(row.status == LoadStatus::loaded ? LogLevel::info : LogLevel::debug,
        "plugin " + path + ": " + load_status_name(row.status) + (row.reason.empty() ? "" : ": " + row.reason));
    report_.push_back(row);
    return row;
  };
  if (row.status != LoadStatus::loaded) return finish();
  if (Backend* existing = find(row.name)) {
    row.status = LoadStatus::duplicate;
    row.reason = "a plugin named '" + row.name + "' is already loaded from " + existing->path;
    return finish();
  }
  const int type = backend_count();
  if (type >= kMaxBackends) {
    row.status = LoadStatus::init_failed;
    row.reason = "too many backends (at most " + std::to_string(kMaxBackends) + ")";
    return finish();
  }

  // Backend and host context live for the process even if init fails: the plugin may keep them.
  auto* backend = new Backend();
  backend->type = static_cast<int16_t>(type);
  backend->name = row.name;
  backend->path = path;
  backend->version = row.version;
  backend->abi = row.abi;
  backend->family = row.family;
  if (XD_STRUCT_HAS(&op.info, xd_plugin_info, flags)) {
    backend->family_preference = op.info.family_preference;
    backend->family_kinds = op.info.family_kinds;
    backend->flags = op.info.flags;
  }
  auto* hctx = new HostContext();
  hctx->backend = backend;
  hctx->plugin_name = row.name;
  backend->host = make_host_api(hctx);
  backend->host_context = hctx;
  backend->api.struct_size = sizeof(xd_plugin_api);

  hctx->registration_open = true;
  take_plugin_error();
  const xd_status s = op.init(&backend->host, &backend->api);
  hctx->registration_open = false;
  auto fail = [&](LoadStatus st, std::string reason) {
    row.status = st;
    row.reason = std::move(reason);
    failed_.push_back(backend);  // the plugin may still hold its host table
    return finish();
  };
  if (s != XD_OK) {
    std::string msg = take_plugin_error();
    if (msg.empty()) msg = "xd_plugin_init returned status " + std::to_string(static_cast<int>(s));
    return fail(s == XD_ERR_UNAVAILABLE ? LoadStatus::unavailable : LoadStatus::init_failed, msg);
  }
  if (!hctx->registration_error.empty()) return fail(LoadStatus::init_failed, hctx->registration_error);
  if (const char* f = missing_function(backend->api))
    return fail(LoadStatus::init_failed, std::string("the plugin's api table lacks ") + f);

  const int32_t count = backend->api.device_count(backend->api.ctx);
  if (count <= 0) {
    std::string msg = take_plugin_error();
    return fail(LoadStatus::no_devices, msg.empty() ? "the plugin found no devices" : msg);
  }

  struct Visible {
    int rank;
    int32_t plugin_index;
    xd_device_properties props;
  };
  std::vector<Visible> visible;
  for (int32_t d = 0; d < count; ++d) {
    xd_device_properties p{};
    p.struct_size = sizeof p;
    if (backend->api.device_properties(backend->api.ctx, d, &p) != XD_OK)
      return fail(LoadStatus::init_failed, "device_properties(" + std::to_string(d) + ") failed: " + take_plugin_error());
    if (auto r = device_filter().rank(backend->name, d, kind_of(p.kind), backend->family))
      visible.push_back({*r, d, p});
  }
  if (visible.empty())
    return fail(LoadStatus::filtered, "all " + std::to_string(count) + " device(s) hidden by XD_DEVICES='" +
                                          device_filter().spec() + "'");
  std::stable_sort(visible.begin(), visible.end(), [](const Visible& a, const Visible& b) { return a.rank < b.rank; });
  if (visible.size() > static_cast<size_t>(kMaxDevicesPerBackend)) visible.resize(kMaxDevicesPerBackend);

  for (size_t i = 0; i < visible.size(); ++i) {
    auto rec = std::make_unique<DeviceRecord>();
    const xd_device_properties& p = visible[i].props;
    rec->backend = backend;
    rec->plugin_device = visible[i].plugin_index;
    rec->device = Device(backend->type, static_cast<int16_t>(i));
    rec->flags = p.flags;
    rec->props.name = p.name;
    rec->props.vendor = p.vendor;
    rec->props.driver_version = p.driver_version;
    rec->props.kind = kind_of(p.kind);
    rec->props.total_memory = p.total_memory;
    rec->props.compute_units = p.compute_units;
    rec->props.max_work_group_size = p.max_work_group_size;
    rec->props.supports_f16 = (p.flags & XD_DEVICE_FLAG_F16) != 0;
    rec->props.supports_f64 = (p.flags & XD_DEVICE_FLAG_F64) != 0;
    rec->props.supports_bf16 = (p.flags & XD_DEVICE_FLAG_BF16) != 0;
    rec->props.host_pointers = (p.flags & XD_DEVICE_FLAG_HOST_POINTERS) != 0;
    rec->props.timing = (p.flags & XD_DEVICE_FLAG_TIMING) != 0;
    rec->allocator = std::make_unique<CachingAllocator>(*rec);
    rec->pinned = make_pinned_allocator(*rec);
    backend->devices.push_back(std::move(rec));
  }

  backends_[static_cast<size_t>(type)].reset(backend);
  // A lookup on another thread may still read the old table, so it is retired, never freed;
  // the retired list is itself never destroyed, which keeps the tables reachable for LSan.
  static auto* retired = new std::vector<const DispatchTable*>();
  const DispatchTable* old = table_.load(std::memory_order_acquire);
  retired->push_back(old);
  table_.store(DispatchTable::extend(old, hctx->pending), std::memory_order_release);
  hctx->pending.clear();
  count_.store(type + 1, std::memory_order_release);
  row.status = LoadStatus::loaded;
  row.reason = std::to_string(visible.size()) + " device(s)" +
               (static_cast<int32_t>(visible.size()) < count
                    ? " of " + std::to_string(count) + " (XD_DEVICES='" + device_filter().spec() + "')"
                    : std::string());
  return finish();
}

std::vector<LoadReportRow> Registry::report() const {
  std::lock_guard lock(mutex_);
  return report_;
}

std::vector<std::string> Registry::searched() const {
  std::lock_guard lock(mutex_);
  return searched_;
}

void Registry::throw_bad_device(Device d) const {
  if (!d.valid()) throw DeviceError("no device given (a default-constructed xd::Device); pass e.g. xd::cpu()");
  Backend* b = backend(d.type());
  if (b == nullptr)
    throw DeviceError("device type " + std::to_string(d.type()) + " names no loaded backend");
  throw DeviceError("device " + b->name + ":" + std::to_string(d.index()) + " does not exist; backend '" +
                    b->name + "' has " + std::to_string(b->devices.size()) + " visible device(s)");
}

}  // namespace xd::detail
