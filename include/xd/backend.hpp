// Plugins and backends: the load report, enumeration, loading a plugin by path, and the kernel
// coverage. See docs/architecture.md for the search order and docs/env-vars.md for XD_BACKEND,
// XD_DEVICES, XD_PLUGIN_PATH, XD_FALLBACK and XD_LOG.
//
// Thread safety: all functions may be called from any thread. load_plugin() serialises with
// other loads; dispatch running concurrently keeps working (it reads an immutable table).
#pragma once

#include <xd/device.hpp>
#include <xd/dtype.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace xd {

enum class LoadStatus {
  loaded,              // usable
  not_found,           // a path in XD_PLUGIN_PATH that does not exist
  not_a_library,       // exists but is not a loadable shared object
  dependency_missing,  // a library it needs is missing (reason names it)
  symbol_missing,      // an entry point is missing (reason names it)
  abi_mismatch,        // another ABI major version (reason gives both)
  init_failed,         // init returned an error (reason is the plugin's message)
  unavailable,         // the plugin says its runtime/driver is absent (reason is why)
  no_devices,          // loaded fine but exposes no device
  filtered,            // every device removed by XD_DEVICES
  duplicate,           // another plugin already has this name (reason names its path)
  skipped,             // a shared library in a plugin folder not named libxd_plugin_<name>.so
};
const char* load_status_name(LoadStatus s) noexcept;  // "loaded", "not found", ...

// A setting a plugin reads from the environment, as the plugin declared it (xd_option_desc in
// plugin_abi.h; parsed inside the plugin by include/xd/plugin.hpp). xd-info lists them.
struct PluginOption {
  std::string name;           // the environment variable, e.g. XD_OPENCL_INT4_MMA
  std::string kind;           // "text", "integer", "flag", "choice" or "integers"
  std::string accepted;       // the accepted values in words: "1..64", "0 or 1", "kernel", "any text", ...
  std::string default_value;  // as a user would write it; empty when the default is "unset"
  std::string doc;            // what it does, when it is read, what an invalid value does
};

struct LoadReportRow {
  std::string path;
  std::string name;  // empty when the query never answered
  LoadStatus status = LoadStatus::not_found;
  std::string reason;
  std::string abi;      // "1.0" as the plugin declared it, empty when unknown
  std::string version;  // the plugin's own version
  // From the query (ABI 1.2), also for a plugin that then failed to initialise: the family it
  // belongs to (XD_BACKEND=<family> picks the best device of the family; empty: none) and the
  // settings it reads.
  std::string family;
  std::vector<PluginOption> options;
};

// One row for every candidate seen so far, in the order they were tried.
std::vector<LoadReportRow> load_report();
// The report as an aligned text table (what xd-info prints and BackendError embeds).
std::string format_load_report();

struct BackendInfo {
  std::string name;
  int16_t type = -1;
  int device_count = 0;  // visible devices
  std::string path;
  std::string version;
  std::string abi;
  std::string family;          // the family the plugin declared; empty for none
  bool host_reference = false;  // the plugin declared XD_PLUGIN_FLAG_HOST_REFERENCE
};
std::vector<BackendInfo> backends();  // loaded backends only

// Loads one plugin file now (in addition to those found at start-up) and returns its report row.
// Never throws for a bad plugin: the row says what went wrong.
//  - Idempotent per file: when `path` is a file already loaded (the same file, however the path
//    is spelled: same device and inode), nothing runs again and the existing `loaded` row is
//    returned as it was first reported (its `path` is the spelling first loaded); the report
//    gains no row. The plugin's init is never called twice for a loaded backend.
//  - A different file whose plugin has the name of a loaded backend is `duplicate` (the reason
//    names the loaded file), and the report gains that row.
//  - A file whose earlier attempt failed (any status but `loaded`) is tried again from the start
//    and gets a new row, so a missing file or driver that has since appeared can still load.
LoadReportRow load_plugin(const std::string& path);

struct KernelInfo {
  std::string op;
  std::string backend;
  Dtype dtype;
  std::string name;
  int priority = 0;
  // Times this kernel ran since start (conformance coverage). Exact from one thread; calls racing
  // on the same kernel from several threads may be undercounted, but a kernel that ran is never 0.
  uint64_t calls = 0;
};
std::vector<KernelInfo> kernels();  // every registered kernel, by op, backend, dtype, order tried

// Enables or disables every kernel with this name (diagnostics and tests: e.g. compare
// "cpu.mm.dnnl" against the plain loop it shadows). ValueError for an unknown name.
bool set_kernel_enabled(const std::string& name, bool enabled);

// Diagnostics for conformance testing: when on, every freshly allocated kernel output is filled
// with 0xFF bytes before its kernel runs (NaN in every floating format, -1 / 255 in integers, an
// invalid bool), so an element a kernel does not write shows up. Off by default; global.
void set_poison_outputs(bool on);

// Names of every op the core declares (the order of xd_op).
std::vector<std::string> op_names();

// How often ops ran on the CPU through XD_FALLBACK=cpu since start.
uint64_t fallback_count();

}  // namespace xd
