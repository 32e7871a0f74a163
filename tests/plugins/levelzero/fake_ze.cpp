// The fake Level Zero driver of fake_ze.hpp: the ze* functions the plugin's runtime calls,
// defined here with the loader's signatures so that a test executable uses them instead.
#include "fake_ze.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <new>
#include <set>
#include <string>
#include <utility>

namespace fake_ze {

namespace {

// Every fake object. Objects are never freed (a handle the plugin kept from an earlier test may
// still be passed in); `gen` tells the current test's objects from older ones, which calls
// accept and otherwise ignore.
struct object {
  uint64_t gen = 0;
  bool alive = true;
  virtual ~object() = default;
};
struct fake_device : object {
  uint32_t index = 0;
};
struct fake_context : object {};
struct fake_pool : object {
  ze_event_pool_flags_t flags = 0;
};
struct fake_event : object {
  fake_pool* pool = nullptr;
  int id = 0;
  bool signaled = false;
  uint64_t start = 0, end = 0;
};
enum class kind { barrier, reset, wait, copy };
struct command {
  kind k = kind::barrier;
  fake_event* signal = nullptr;  // barrier
  fake_event* target = nullptr;  // reset, wait
  void* dst = nullptr;
  const void* src = nullptr;
  size_t n = 0;
};
struct fake_list : object {
  fake_context* context = nullptr;
  std::deque<command> pending;
};
struct fake_module : object {};
struct fake_kernel : object {};

struct state {
  config cfg;
  counters cnt;
  std::vector<std::string> violations, calls;
  uint64_t gen = 0;
  uint64_t clock = 0;
  int next_event_id = 0;
  ze_structure_type_t last_stype = ZE_STRUCTURE_TYPE_FORCE_UINT32;
  std::set<const void*> known;  // every object ever made
  std::vector<fake_device*> devices;
  std::vector<fake_list*> lists;
  std::map<void*, size_t> allocations;                // device USM: base -> size
  std::map<void*, size_t> host_allocations;           // host USM
  std::vector<std::pair<const char*, size_t>> freed;  // ranges freed while this test ran
  std::vector<void*> all_memory;                      // every allocation, never released (a queued copy may name it)
  int driver_tag = 0;                                 // its address is the driver handle
  int log_tag = 0;                                    // its address is every build log handle
};

state& S() {
  static auto* s = new state();
  return *s;
}

template <class T>
T* make() {
  auto* o = new T();
  o->gen = S().gen;
  S().known.insert(static_cast<object*>(o));
  return o;
}

void breach(const std::string& what) { S().violations.push_back(what); }
void call(const std::string& what) { S().calls.push_back(what); }

// The object behind a handle of the current test, or nullptr (recorded as a breach when the
// handle was never made, ignored when it is an older test's).
template <class T>
T* as(const void* h, const char* fn) {
  if (h == nullptr) {
    breach(std::string(fn) + " got a null handle");
    return nullptr;
  }
  if (S().known.count(h) == 0) {
    breach(std::string(fn) + " got a handle the driver never returned");
    return nullptr;
  }
  auto* o = dynamic_cast<T*>(static_cast<object*>(const_cast<void*>(h)));
  if (o == nullptr) {
    breach(std::string(fn) + " got a handle of another type");
    return nullptr;
  }
  if (o->gen != S().gen) return nullptr;
  if (!o->alive) {
    breach(std::string(fn) + " used a destroyed object");
    return nullptr;
  }
  return o;
}

uint64_t ts_mask() {
  const uint32_t b = S().cfg.kernel_timestamp_bits;
  return b >= 64 ? ~0ull : (1ull << b) - 1;
}

bool freed_range(const void* p) {
  const char* q = static_cast<const char*>(p);
  for (const auto& [base, n] : S().freed)
    if (q >= base && q < base + n) return true;
  return false;
}

// Runs the front command of `l`; false when it is blocked on an event not yet signalled.
bool step(fake_list& l) {
  command& c = l.pending.front();
  switch (c.k) {
    case kind::wait:
      if (!c.target->signaled) return false;
      break;
    case kind::reset:
      c.target->signaled = false;
      break;
    case kind::copy:
      // A copy reaching memory freed while it waited is the breach the free policy prevents;
      // reported, and not performed (the memory is gone).
      if (freed_range(c.dst) || freed_range(c.src))
        breach("a queued copy ran on memory freed while it waited");
      else if (c.n > 0)
        std::memmove(c.dst, c.src, c.n);
      S().clock += S().cfg.copy_ticks;
      break;
    case kind::barrier: {
      const uint64_t start = S().clock;
      S().clock += S().cfg.barrier_ticks;
      if (c.signal != nullptr) {
        c.signal->start = start & ts_mask();
        c.signal->end = S().clock & ts_mask();
        c.signal->signaled = true;
      }
      break;
    }
  }
  l.pending.pop_front();
  --S().cnt.pending_commands;
  return true;
}

bool queued_use(const fake_event* e) {
  for (const fake_list* l : S().lists)
    if (l->gen == S().gen)
      for (const command& c : l->pending)
        if (c.signal == e || c.target == e) return true;
  return false;
}

fake_list* signaller_of(const fake_event* e) {
  for (fake_list* l : S().lists)
    if (l->gen == S().gen)
      for (const command& c : l->pending)
        if (c.signal == e) return l;
  return nullptr;
}

// What the device has done by the time `e` is signalled: the list that signals it runs up to the
// signal, and a wait on its way runs the list that signals that event first.
void drive(fake_event* e, int depth = 0) {
  while (!e->signaled && depth < 16) {
    fake_list* l = signaller_of(e);
    if (l == nullptr) return;
    while (!l->pending.empty() && !e->signaled) {
      if (!step(*l)) {
        fake_event* blocker = l->pending.front().target;
        drive(blocker, depth + 1);
        if (!blocker->signaled) return;
      }
    }
  }
}

void push(fake_list& l, command c) {
  l.pending.push_back(c);
  ++S().cnt.pending_commands;
}

int queued_commands_in(const fake_context* ctx) {
  int n = 0;
  for (const fake_list* l : S().lists)
    if (l->gen == S().gen && l->context == ctx) n += static_cast<int>(l->pending.size());
  return n;
}

void free_memory(void* p, const char* fn) {
  auto& dev = S().allocations;
  auto& host = S().host_allocations;
  size_t n = 0;
  if (auto it = dev.find(p); it != dev.end()) {
    n = it->second;
    dev.erase(it);
  } else if (auto ht = host.find(p); ht != host.end()) {
    n = ht->second;
    host.erase(ht);
  } else {
    breach(std::string(fn) + " of memory the driver did not allocate");
    return;
  }
  // Kept allocated (a queued copy may still name it) but marked as freed.
  S().freed.emplace_back(static_cast<const char*>(p), n);
  --S().cnt.live_allocations;
}

}  // namespace

void reset(const config& c) {
  state& s = S();
  ++s.gen;
  s.cfg = c;
  s.cnt = {};
  s.violations.clear();
  s.calls.clear();
  s.clock = c.clock_start;
  s.last_stype = ZE_STRUCTURE_TYPE_FORCE_UINT32;
  s.devices.clear();
  s.lists.clear();
  s.allocations.clear();
  s.host_allocations.clear();
  s.freed.clear();
}

config& settings() { return S().cfg; }
const counters& count() { return S().cnt; }
const std::vector<std::string>& violations() { return S().violations; }
const std::vector<std::string>& calls() { return S().calls; }
bool called(const std::string& prefix) {
  for (const auto& c : S().calls)
    if (c.rfind(prefix, 0) == 0) return true;
  return false;
}
ze_structure_type_t last_device_properties_stype() { return S().last_stype; }

void run_all() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (fake_list* l : S().lists)
      while (l->gen == S().gen && !l->pending.empty() && step(*l)) progress = true;
  }
}

}  // namespace fake_ze

using namespace fake_ze;

extern "C" {

ze_result_t zeInit(ze_init_flags_t) {
  call("zeInit");
  return S().cfg.init_result;
}

ze_result_t zeDriverGet(uint32_t* pCount, ze_driver_handle_t* phDrivers) {
  call("zeDriverGet");
  if (phDrivers != nullptr && *pCount >= 1) phDrivers[0] = reinterpret_cast<ze_driver_handle_t>(&S().driver_tag);
  *pCount = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetApiVersion(ze_driver_handle_t, ze_api_version_t* version) {
  call("zeDriverGetApiVersion");
  *version = S().cfg.api;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetProperties(ze_driver_handle_t, ze_driver_properties_t* p) {
  call("zeDriverGetProperties");
  p->driverVersion = (1u << 24) | (3u << 16) | 12345u;
  for (auto* next = static_cast<ze_base_properties_t*>(p->pNext); next != nullptr;
       next = static_cast<ze_base_properties_t*>(next->pNext)) {
    if (next->stype != ZE_STRUCTURE_TYPE_DRIVER_MEMORY_FREE_EXT_PROPERTIES) continue;
    if (!S().cfg.free_policies_extension) breach("memory free policies queried though the extension is not listed");
    reinterpret_cast<ze_driver_memory_free_ext_properties_t*>(next)->freePolicies =
        S().cfg.free_policies_extension ? S().cfg.free_policies : 0;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDriverGetExtensionProperties(ze_driver_handle_t, uint32_t* pCount,
                                           ze_driver_extension_properties_t* pExtensionProperties) {
  call("zeDriverGetExtensionProperties");
  std::vector<std::pair<const char*, uint32_t>> ext = {{"ZE_extension_float_atomics", ZE_MAKE_VERSION(1, 0)}};
  if (S().cfg.free_policies_extension) ext.emplace_back(ZE_MEMORY_FREE_POLICIES_EXT_NAME, ZE_MAKE_VERSION(1, 0));
  if (S().cfg.dp_extension)
    ext.emplace_back("ZE_intel_experimental_device_module_dp_properties", ZE_MAKE_VERSION(1, 0));
  if (pExtensionProperties == nullptr) {
    *pCount = static_cast<uint32_t>(ext.size());
    return ZE_RESULT_SUCCESS;
  }
  const uint32_t n = std::min<uint32_t>(*pCount, static_cast<uint32_t>(ext.size()));
  for (uint32_t i = 0; i < n; ++i) {
    std::memset(pExtensionProperties[i].name, 0, ZE_MAX_EXTENSION_NAME);
    std::strncpy(pExtensionProperties[i].name, ext[i].first, ZE_MAX_EXTENSION_NAME - 1);
    pExtensionProperties[i].version = ext[i].second;
  }
  *pCount = n;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGet(ze_driver_handle_t, uint32_t* pCount, ze_device_handle_t* phDevices) {
  call("zeDeviceGet");
  state& s = S();
  while (s.devices.size() < s.cfg.gpus) {
    auto* d = make<fake_device>();
    d->index = static_cast<uint32_t>(s.devices.size());
    s.devices.push_back(d);
  }
  if (phDevices != nullptr)
    for (uint32_t i = 0; i < *pCount && i < s.cfg.gpus; ++i)
      phDevices[i] = reinterpret_cast<ze_device_handle_t>(static_cast<object*>(s.devices[i]));
  *pCount = phDevices == nullptr ? s.cfg.gpus : std::min(*pCount, s.cfg.gpus);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetProperties(ze_device_handle_t h, ze_device_properties_t* p) {
  call("zeDeviceGetProperties");
  auto* d = as<fake_device>(h, "zeDeviceGetProperties");
  if (d == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  S().last_stype = p->stype;
  const bool hz = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
  if (hz && S().cfg.api < ZE_API_VERSION_1_2) breach("DEVICE_PROPERTIES_1_2 asked of a driver older than API 1.2");
  p->type = ZE_DEVICE_TYPE_GPU;
  p->vendorId = 0x8086;
  p->timerResolution = hz ? S().cfg.timer_frequency_hz : S().cfg.timer_resolution_ns;
  p->timestampValidBits = 36;
  p->kernelTimestampValidBits = S().cfg.kernel_timestamp_bits;
  p->numSlices = 1;
  p->numSubslicesPerSlice = 4;
  p->numEUsPerSubslice = 8;
  std::snprintf(p->name, sizeof p->name, "fake GPU %u", d->index);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetComputeProperties(ze_device_handle_t h, ze_device_compute_properties_t* p) {
  call("zeDeviceGetComputeProperties");
  auto* d = as<fake_device>(h, "zeDeviceGetComputeProperties");
  if (d == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (static_cast<int>(d->index) == S().cfg.fail_compute_properties_of_device) return ZE_RESULT_ERROR_DEVICE_LOST;
  p->maxTotalGroupSize = 1024;
  p->maxGroupSizeX = p->maxGroupSizeY = p->maxGroupSizeZ = 1024;
  p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = 65535;
  p->maxSharedLocalMemory = 65536;
  const auto& sizes = S().cfg.sub_group_sizes;
  p->numSubGroupSizes = static_cast<uint32_t>(std::min<size_t>(sizes.size(), ZE_SUBGROUPSIZE_COUNT));
  for (uint32_t i = 0; i < p->numSubGroupSizes; ++i) p->subGroupSizes[i] = sizes[i];
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetModuleProperties(ze_device_handle_t, ze_device_module_properties_t* p) {
  call("zeDeviceGetModuleProperties");
  p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64;
  p->spirvVersionSupported = S().cfg.spirv_version;
  // The one extension structure this fake knows here: Intel's dot-product properties.
  struct dp_properties {
    ze_structure_type_t stype;
    void* pNext;
    uint32_t flags;
  };
  for (void* next = p->pNext; next != nullptr;) {
    auto* dp = static_cast<dp_properties*>(next);
    if (static_cast<uint32_t>(dp->stype) != 0x00030013u) {
      breach("zeDeviceGetModuleProperties got an extension structure it does not know");
      break;
    }
    if (!S().cfg.dp_extension)
      breach("zeDeviceGetModuleProperties got the DPAS query from a driver that does not list it");
    dp->flags = S().cfg.dp_flags;
    next = dp->pNext;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetMemoryProperties(ze_device_handle_t, uint32_t* pCount, ze_device_memory_properties_t* p) {
  call("zeDeviceGetMemoryProperties");
  if (p != nullptr && *pCount >= 1) p[0].totalSize = 1ull << 30;
  *pCount = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeDeviceGetCommandQueueGroupProperties(ze_device_handle_t, uint32_t* pCount,
                                                   ze_command_queue_group_properties_t* p) {
  call("zeDeviceGetCommandQueueGroupProperties");
  if (p != nullptr && *pCount >= 1)
    p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
  *pCount = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextCreate(ze_driver_handle_t, const ze_context_desc_t*, ze_context_handle_t* phContext) {
  call("zeContextCreate");
  *phContext = reinterpret_cast<ze_context_handle_t>(static_cast<object*>(make<fake_context>()));
  ++S().cnt.live_contexts;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextDestroy(ze_context_handle_t h) {
  call("zeContextDestroy");
  auto* c = as<fake_context>(h, "zeContextDestroy");
  if (c == nullptr) return ZE_RESULT_SUCCESS;
  c->alive = false;
  --S().cnt.live_contexts;
  ++S().cnt.contexts_destroyed;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemAllocDevice(ze_context_handle_t, const ze_device_mem_alloc_desc_t*, size_t size, size_t,
                             ze_device_handle_t, void** pptr) {
  call("zeMemAllocDevice");
  *pptr = ::operator new[](size, std::align_val_t{64});
  S().all_memory.push_back(*pptr);
  S().allocations.emplace(*pptr, size);
  ++S().cnt.live_allocations;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemAllocHost(ze_context_handle_t, const ze_host_mem_alloc_desc_t*, size_t size, size_t, void** pptr) {
  call("zeMemAllocHost");
  *pptr = ::operator new[](size, std::align_val_t{64});
  S().all_memory.push_back(*pptr);
  S().host_allocations.emplace(*pptr, size);
  ++S().cnt.live_allocations;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemGetAllocProperties(ze_context_handle_t, const void* ptr, ze_memory_allocation_properties_t* p,
                                    ze_device_handle_t*) {
  void* key = const_cast<void*>(ptr);
  p->type = S().allocations.count(key)        ? ZE_MEMORY_TYPE_DEVICE
            : S().host_allocations.count(key) ? ZE_MEMORY_TYPE_HOST
                                              : ZE_MEMORY_TYPE_UNKNOWN;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemFree(ze_context_handle_t h, void* ptr) {
  call("zeMemFree");
  ++S().cnt.mem_free_calls;
  auto* c = as<fake_context>(h, "zeMemFree");
  if (const int n = queued_commands_in(c); n > 0)
    breach("zeMemFree while " + std::to_string(n) + " queued command(s) of the context may still use the memory");
  free_memory(ptr, "zeMemFree");
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeMemFreeExt(ze_context_handle_t h, const ze_memory_free_ext_desc_t* desc, void* ptr) {
  call("zeMemFreeExt(policy=" + std::to_string(desc->freePolicy) + ")");
  ++S().cnt.mem_free_ext_calls;
  S().cnt.last_free_policy = desc->freePolicy;
  if (!S().cfg.free_policies_extension) {
    breach("zeMemFreeExt called on a driver without the memory free policies extension");
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  }
  auto* c = as<fake_context>(h, "zeMemFreeExt");
  if (desc->freePolicy & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE) {
    if (!(S().cfg.free_policies & ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE))
      breach("the blocking free policy used where the driver does not offer it");
    run_all();  // blocks until the commands that may use the memory are done
  } else if (const int n = queued_commands_in(c); n > 0) {
    breach("an immediate zeMemFreeExt while " + std::to_string(n) + " queued command(s) may still use the memory");
  }
  free_memory(ptr, "zeMemFreeExt");
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventPoolCreate(ze_context_handle_t, const ze_event_pool_desc_t* desc, uint32_t, ze_device_handle_t*,
                              ze_event_pool_handle_t* phEventPool) {
  call("zeEventPoolCreate");
  auto* p = make<fake_pool>();
  p->flags = desc->flags;
  *phEventPool = reinterpret_cast<ze_event_pool_handle_t>(static_cast<object*>(p));
  ++S().cnt.live_pools;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t h) {
  call("zeEventPoolDestroy");
  auto* p = as<fake_pool>(h, "zeEventPoolDestroy");
  if (p == nullptr) return ZE_RESULT_SUCCESS;
  p->alive = false;
  --S().cnt.live_pools;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventCreate(ze_event_pool_handle_t h, const ze_event_desc_t*, ze_event_handle_t* phEvent) {
  call("zeEventCreate");
  auto* e = make<fake_event>();
  e->pool = as<fake_pool>(h, "zeEventCreate");
  e->id = ++S().next_event_id;
  *phEvent = reinterpret_cast<ze_event_handle_t>(static_cast<object*>(e));
  ++S().cnt.live_events;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventDestroy(ze_event_handle_t h) {
  call("zeEventDestroy");
  auto* e = as<fake_event>(h, "zeEventDestroy");
  if (e == nullptr) return ZE_RESULT_SUCCESS;
  if (queued_use(e)) breach("event " + std::to_string(e->id) + " destroyed while a queued command uses it");
  e->alive = false;
  --S().cnt.live_events;
  ++S().cnt.events_destroyed;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostReset(ze_event_handle_t h) {
  call("zeEventHostReset");
  auto* e = as<fake_event>(h, "zeEventHostReset");
  if (e == nullptr) return ZE_RESULT_SUCCESS;
  if (queued_use(e)) breach("event " + std::to_string(e->id) + " reset on the host while a queued command uses it");
  e->signaled = false;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeEventHostSynchronize(ze_event_handle_t h, uint64_t timeout) {
  call("zeEventHostSynchronize");
  auto* e = as<fake_event>(h, "zeEventHostSynchronize");
  if (e == nullptr) return ZE_RESULT_SUCCESS;
  drive(e);
  if (e->signaled) return ZE_RESULT_SUCCESS;
  if (timeout == UINT64_MAX) breach("a host wait on event " + std::to_string(e->id) + " would never end");
  return ZE_RESULT_NOT_READY;
}

ze_result_t zeEventQueryStatus(ze_event_handle_t h) {
  call("zeEventQueryStatus");
  auto* e = as<fake_event>(h, "zeEventQueryStatus");
  if (e == nullptr) return ZE_RESULT_SUCCESS;
  return e->signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t h, ze_kernel_timestamp_result_t* r) {
  call("zeEventQueryKernelTimestamp");
  auto* e = as<fake_event>(h, "zeEventQueryKernelTimestamp");
  if (e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (e->pool == nullptr || !(e->pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP))
    breach("zeEventQueryKernelTimestamp on an event of a pool without ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP");
  if (!e->signaled) return ZE_RESULT_NOT_READY;
  r->global.kernelStart = r->context.kernelStart = e->start;
  r->global.kernelEnd = r->context.kernelEnd = e->end;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t,
                                         const ze_command_queue_desc_t*, ze_command_list_handle_t* phCommandList) {
  call("zeCommandListCreateImmediate");
  auto* l = make<fake_list>();
  l->context = as<fake_context>(hContext, "zeCommandListCreateImmediate");
  S().lists.push_back(l);
  *phCommandList = reinterpret_cast<ze_command_list_handle_t>(static_cast<object*>(l));
  ++S().cnt.live_lists;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListDestroy(ze_command_list_handle_t h) {
  call("zeCommandListDestroy");
  auto* l = as<fake_list>(h, "zeCommandListDestroy");
  if (l == nullptr) return ZE_RESULT_SUCCESS;
  if (!l->pending.empty()) breach("a command list destroyed with queued commands");
  l->alive = false;
  --S().cnt.live_lists;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t h, ze_event_handle_t hSignalEvent,
                                       uint32_t numWaitEvents, ze_event_handle_t*) {
  call(std::string("zeCommandListAppendBarrier") + (hSignalEvent != nullptr ? "(signal)" : ""));
  auto* l = as<fake_list>(h, "zeCommandListAppendBarrier");
  if (l == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (numWaitEvents != 0) breach("a barrier with a wait list (the stream's ordering needs one over everything before)");
  command c;
  c.k = kind::barrier;
  if (hSignalEvent != nullptr) c.signal = as<fake_event>(hSignalEvent, "zeCommandListAppendBarrier(signal)");
  push(*l, c);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendEventReset(ze_command_list_handle_t h, ze_event_handle_t hEvent) {
  call("zeCommandListAppendEventReset");
  auto* l = as<fake_list>(h, "zeCommandListAppendEventReset");
  auto* e = as<fake_event>(hEvent, "zeCommandListAppendEventReset");
  if (l == nullptr || e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  command c;
  c.k = kind::reset;
  c.target = e;
  push(*l, c);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendWaitOnEvents(ze_command_list_handle_t h, uint32_t numEvents,
                                            ze_event_handle_t* phEvents) {
  call("zeCommandListAppendWaitOnEvents");
  auto* l = as<fake_list>(h, "zeCommandListAppendWaitOnEvents");
  if (l == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  for (uint32_t i = 0; i < numEvents; ++i) {
    command c;
    c.k = kind::wait;
    c.target = as<fake_event>(phEvents[i], "zeCommandListAppendWaitOnEvents");
    if (c.target != nullptr) push(*l, c);
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t h, void* dstptr, const void* srcptr, size_t size,
                                          ze_event_handle_t hSignalEvent, uint32_t, ze_event_handle_t*) {
  call("zeCommandListAppendMemoryCopy");
  auto* l = as<fake_list>(h, "zeCommandListAppendMemoryCopy");
  if (l == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (hSignalEvent != nullptr) breach("a copy with a signal event (the plugin signals through barriers)");
  command c;
  c.k = kind::copy;
  c.dst = dstptr;
  c.src = srcptr;
  c.n = size;
  push(*l, c);
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleCreate(ze_context_handle_t, ze_device_handle_t, const ze_module_desc_t* desc,
                           ze_module_handle_t* phModule, ze_module_build_log_handle_t* phBuildLog) {
  call(std::string("zeModuleCreate(") + (desc->pBuildFlags != nullptr ? desc->pBuildFlags : "") + ")");
  *phModule = reinterpret_cast<ze_module_handle_t>(static_cast<object*>(make<fake_module>()));
  if (phBuildLog != nullptr) *phBuildLog = reinterpret_cast<ze_module_build_log_handle_t>(&S().log_tag);
  ++S().cnt.live_modules;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleDestroy(ze_module_handle_t h) {
  call("zeModuleDestroy");
  auto* m = as<fake_module>(h, "zeModuleDestroy");
  if (m == nullptr) return ZE_RESULT_SUCCESS;
  m->alive = false;
  --S().cnt.live_modules;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t) { return ZE_RESULT_SUCCESS; }

ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t, size_t* pSize, char* pBuildLog) {
  static const char text[] = "fake build log";
  if (pBuildLog != nullptr) std::memcpy(pBuildLog, text, std::min(*pSize, sizeof text));
  *pSize = sizeof text;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelCreate(ze_module_handle_t h, const ze_kernel_desc_t* desc, ze_kernel_handle_t* phKernel) {
  call(std::string("zeKernelCreate(") + desc->pKernelName + ")");
  if (as<fake_module>(h, "zeKernelCreate") == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (S().cfg.kernel_create_result != ZE_RESULT_SUCCESS) {
    // What a driver leaves in the output on failure is unspecified: something no caller may use.
    *phKernel = reinterpret_cast<ze_kernel_handle_t>(static_cast<uintptr_t>(0xdead0));
    return S().cfg.kernel_create_result;
  }
  *phKernel = reinterpret_cast<ze_kernel_handle_t>(static_cast<object*>(make<fake_kernel>()));
  ++S().cnt.live_kernels;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelGetProperties(ze_kernel_handle_t h, ze_kernel_properties_t* p) {
  call("zeKernelGetProperties");
  if (as<fake_kernel>(h, "zeKernelGetProperties") == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (S().cfg.kernel_properties_result != ZE_RESULT_SUCCESS) return S().cfg.kernel_properties_result;
  p->numKernelArgs = 3;
  p->maxSubgroupSize = 32;
  p->maxNumSubgroups = 32;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelDestroy(ze_kernel_handle_t h) {
  call("zeKernelDestroy");
  auto* k = as<fake_kernel>(h, "zeKernelDestroy");
  if (k == nullptr) return ZE_RESULT_SUCCESS;
  k->alive = false;
  --S().cnt.live_kernels;
  return ZE_RESULT_SUCCESS;
}

}  // extern "C"
