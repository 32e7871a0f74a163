#include "program/program_cache.hpp"

#include "common/kernel_list.hpp"
#include "options.hpp"
#include "program/disk_cache.hpp"
#include "program/hash.hpp"
#include "program/sources.hpp"
#include "program/wgmma_ptx.hpp"
#include "runtime/platform.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace xd::ocl {

namespace {

using clock = std::chrono::steady_clock;

// The longest build log a failure message carries; the head holds the first errors.
constexpr size_t kMaxLog = 16384;

// The text of each source a program is built from, in order.
std::vector<std::string_view> program_text(const program_id& id) {
  if (std::string_view(id.source) == kTimestampProgram) return {"__kernel void xd_timestamp(void) {}\n"};
  std::vector<std::string_view> parts;
  for (const std::string& name : xpu::program_sources(id.source)) parts.push_back(kernel_source(name));
  return parts;
}

const char* tag_of(int32_t dtype) {
  const char* tag = dtype_tag(dtype);
  if (tag == nullptr) plugin::invalid("unknown dtype " + std::to_string(dtype));
  return tag;
}

std::string hex64(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

double ms_since(clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); }

std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS || n == 0)
    return "(no build log)";
  std::string log(n, '\0');
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) != CL_SUCCESS) return "(no build log)";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (log.size() > kMaxLog) log = log.substr(0, kMaxLog) + "\n... (build log truncated)";
  return log.empty() ? "(empty build log)" : log;
}

// The binary of a program built for `d` (a program of a multi-device context lists every device).
std::vector<unsigned char> program_binary(cl_program p, cl_device_id d) {
  cl_uint n = 0;
  check(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr), "clGetProgramInfo(NUM_DEVICES)");
  std::vector<cl_device_id> devs(n);
  check(clGetProgramInfo(p, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), devs.data(), nullptr),
        "clGetProgramInfo(DEVICES)");
  std::vector<size_t> sizes(n);
  check(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, n * sizeof(size_t), sizes.data(), nullptr),
        "clGetProgramInfo(BINARY_SIZES)");
  std::vector<std::vector<unsigned char>> bins(n);
  std::vector<unsigned char*> ptrs(n);
  for (cl_uint i = 0; i < n; ++i) {
    bins[i].resize(sizes[i]);
    ptrs[i] = sizes[i] ? bins[i].data() : nullptr;
  }
  check(clGetProgramInfo(p, CL_PROGRAM_BINARIES, n * sizeof(unsigned char*), ptrs.data(), nullptr),
        "clGetProgramInfo(BINARIES)");
  for (cl_uint i = 0; i < n; ++i)
    if (devs[i] == d) return std::move(bins[i]);
  return {};
}

// A program built from source whose PTX holds wgmma lines (kernels/matmul_wgmma.cl), built again
// from that PTX rewritten for sm_90a (program/wgmma_ptx.hpp); `p` itself when its PTX holds none.
// On success `ptx` is the binary to cache and `p` is released if replaced; on failure returns
// nullptr with `error` set (and `p` still owned by the caller).
cl_program with_wgmma(cl_program p, const device& d, const std::string& options, std::vector<unsigned char>& ptx,
                      std::string& error) {
  const std::vector<unsigned char> bin = program_binary(p, d.id);
  std::string_view text(reinterpret_cast<const char*>(bin.data()), bin.size());
  text = text.substr(0, text.find('\0'));
  const ptx_rewrite r = sm90a_ptx(text);
  if (!r.error.empty()) {
    error = "its wgmma lines cannot be enabled: " + r.error;
    return nullptr;
  }
  if (!r.changed) {
    ptx = bin;
    return p;
  }
  ptx.assign(r.text.begin(), r.text.end());
  ptx.push_back('\0');
  const unsigned char* ptr = ptx.data();
  const size_t size = ptx.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program live = clCreateProgramWithBinary(d.context, 1, &d.id, &size, &ptr, &status, &err);
  if (err == CL_SUCCESS && status == CL_SUCCESS)
    err = clBuildProgram(live, 1, &d.id, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    error = "its PTX rewritten for sm_90a (wgmma) did not build: " + cl_error_string(err != CL_SUCCESS ? err : status) +
            (live != nullptr ? "\nbuild log:\n" + build_log(live, d.id) : std::string());
    if (live != nullptr) clReleaseProgram(live);
    return nullptr;
  }
  clReleaseProgram(p);
  return live;
}

// Where the user finds a generated source that did not build: the cache folder, else the
// temporary one. Empty when neither can be written (the message then says so).
std::string keep_source(const std::string& source) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = cache_dir();
  if (dir.empty()) {
    dir = fs::temp_directory_path(ec);
    if (ec) return {};
    dir /= "xdispatch-" + std::to_string(getuid());
  }
  fs::create_directories(dir, ec);
  if (ec) return {};
  const fs::path path = dir / ("opencl-generated-" + hex64(fnv1a(source)) + ".cl");
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << source;
  return f.good() ? path.string() : std::string();
}

}  // namespace

program_stats& stats() {
  static program_stats s;
  return s;
}

program_cache::kernel_handle::~kernel_handle() {
  if (kernel_ == nullptr) return;
  const std::lock_guard lock(entry_->pool_mutex);
  entry_->pool[name_].push_back(kernel_);
}

std::string program_cache::build_options(const program_id& id) const {
  std::string o = "-cl-std=CL1.2 -DXD_DT=";
  o += tag_of(id.dtype);
  if (id.wtype >= 0) o += std::string(" -DXD_WT=") + tag_of(id.wtype);
  o += " -DXD_WG=" + std::to_string(device_.work_group);
  // Rows cached in registers by softmax and rms_norm: XD_WG * 4 * items elements.
  o += " -DXD_ROW_ITEMS=" + std::to_string(device_.row_items);
  if (device_.fp64) o += " -DXD_HAS_FP64";
  // quant_mm.cl's int_mm takes the 4x8-bit dot builtins where the device has them.
  if (device_.int_dot) o += " -DXD_HAS_INT_DOT";
  // int4.cl's tensor-core kernel (inline PTX).
  if (device_.nv_mma) o += " -DXD_NV_MMA";
  // matmul_mma.cl's packed kernels (the bulk copy engine, compute capability 9.0).
  if (device_.nv_bulk) o += " -DXD_NV_BULK";
  // matmul_wgmma.cl's and quant_mm_wgmma.cl's kernels (Hopper's wgmma), whose PTX build() rewrites
  // for sm_90a.
  if (device_.nv_wgmma && (std::string_view(id.source) == "matmul" || std::string_view(id.source) == "quant_mm"))
    o += " -DXD_NV_WGMMA";
  // A program that is a variant of its source (matmul_dpas8/16: the sub-group size, matmul.cl's
  // epilogue only), and the DPAS builtins emulated where the device was told to (a test mode).
  const std::vector<std::string> variant = xpu::program_defines(id.source);
  for (const std::string& d : variant) o += " -D" + d;
  if (device_.dpas_emulated && !variant.empty()) o += " -DXD_DPAS_EMULATE";
  // common.cl's work-group reductions through warp shuffles (inline PTX).
  if (device_.nv_shfl) o += " -DXD_NV_SHFL";
  // Exact float division and sqrt, as the reference computes them (div, sqrt, rsqrt, softmax).
  if (device_.correctly_rounded_sqrt) o += " -cl-fp32-correctly-rounded-divide-sqrt";
  if (const std::string extra = plugin::option_text(option_desc(option::build_options)); !extra.empty())
    o += " " + extra;
  return o;
}

std::string program_cache::describe(const program_id& id) const {
  std::string s = std::string(id.source) + "/" + tag_of(id.dtype);
  if (id.wtype >= 0) s += std::string("+") + tag_of(id.wtype);
  return "program " + s + " on " + device_.name;
}

program_cache::entry& program_cache::find(const program_id& id) {
  const std::lock_guard lock(mutex_);
  auto& slot = entries_[{std::string(id.source), id.dtype, id.wtype}];
  if (!slot) slot = std::make_unique<entry>();
  return *slot;
}

// From the disk cache when a valid entry exists, else from source (then cached). Two kinds of
// binary are cached (see the `cache_objects` field of device):
//  - executables (clBuildProgram, CL_PROGRAM_BINARIES): GPU drivers return their compiled code
//    at no cost, and loading it skips the compiler;
//  - compiled objects (clCompileProgram, then clLinkProgram): CPU runtimes such as PoCL compile
//    every kernel of a program just to export an executable binary (seconds per program), while
//    their object binary is the front end's output and costs nothing to export.
void program_cache::build(entry& e, const std::string& what, const std::vector<std::string_view>& parts,
                          const std::string& options) {
  uint64_t source_hash = kFnvOffset;
  for (std::string_view p : parts) {
    if (p.empty()) throw plugin::error(XD_ERR_INTERNAL, "opencl: a kernel source file is missing from the plugin");
    source_hash = fnv1a(p, source_hash);
  }
  const bool objects = device_.cache_objects;
  const std::string key = "xdispatch opencl program v1\nplatform: " + device_.platform_name + " | " +
                          device_.platform_version + "\ndevice: " + device_.name + " | " + device_.vendor + " | " +
                          device_.device_version + "\ndriver: " + device_.driver_version +
                          "\nsource: " + hex64(source_hash) + "\noptions: " + options +
                          "\nbinary: " + (objects ? "object" : "executable") + "\n";
  const std::string dir = cache_dir();
  const std::string path = dir.empty() ? std::string() : entry_path(dir, key);

  // 1. The disk cache, verified; a rejected entry is rebuilt below and overwritten.
  if (!path.empty()) {
    const auto t0 = clock::now();
    std::string why;
    if (auto bin = read_entry(path, key, why)) {
      const unsigned char* ptr = bin->data();
      const size_t size = bin->size();
      cl_int status = CL_SUCCESS, err = CL_SUCCESS;
      cl_program p = clCreateProgramWithBinary(device_.context, 1, &device_.id, &size, &ptr, &status, &err);
      if (err == CL_SUCCESS && status == CL_SUCCESS) {
        if (objects) {
          cl_program exe = clLinkProgram(device_.context, 1, &device_.id, "", 1, &p, nullptr, nullptr, &err);
          clReleaseProgram(p);
          p = err == CL_SUCCESS ? exe : nullptr;
          if (p == nullptr && exe != nullptr) clReleaseProgram(exe);
        } else {
          err = clBuildProgram(p, 1, &device_.id, options.c_str(), nullptr, nullptr);
        }
        if (err == CL_SUCCESS) {
          e.program = p;
          stats().loaded.fetch_add(1);
          char line[64];
          std::snprintf(line, sizeof line, " in %.1f ms", ms_since(t0));
          log(XD_LOG_DEBUG, what + ": loaded from the disk cache (" + path + ")" + line);
          return;
        }
      }
      if (p != nullptr) clReleaseProgram(p);
      why = "the driver refused the binary (" + cl_error_string(err != CL_SUCCESS ? err : status) + ")";
    }
    if (why != "missing") {
      stats().rejected.fetch_add(1);
      log(XD_LOG_WARN, what + ": cache entry " + path + " rejected: " + why + "; rebuilding it");
    }
  }

  // 2. From source.
  const auto t0 = clock::now();
  std::vector<const char*> strings;
  std::vector<size_t> lengths;
  for (std::string_view p : parts) {
    strings.push_back(p.data());
    lengths.push_back(p.size());
  }
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(device_.context, static_cast<cl_uint>(strings.size()), strings.data(),
                                           lengths.data(), &err);
  check(err, "clCreateProgramWithSource");
  err = objects ? clCompileProgram(p, 1, &device_.id, options.c_str(), 0, nullptr, nullptr, nullptr, nullptr)
                : clBuildProgram(p, 1, &device_.id, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    e.error = "opencl: building " + what + " failed: " + cl_error_string(err) + "\noptions: " + options +
              "\nbuild log:\n" + build_log(p, device_.id);
    clReleaseProgram(p);
    log(XD_LOG_ERROR, e.error);
    return;
  }
  // A clean build's log is empty on most drivers; what a compiler says anyway (warnings, or the
  // register counts NVIDIA's prints for -cl-nv-verbose) is kept at debug level (XD_LOG=debug).
  if (const std::string text = build_log(p, device_.id);
      text.find_first_not_of(" \t\r\n") != std::string::npos && text != "(no build log)" && text != "(empty build log)")
    log(XD_LOG_DEBUG, what + ": build log (options: " + options + "):\n" + text);
  std::string why;
  std::vector<unsigned char> bin;
  if (!objects && options.find(" -DXD_NV_WGMMA") != std::string::npos) {
    std::string error;
    cl_program live = nullptr;
    try {
      live = with_wgmma(p, device_, options, bin, error);
    } catch (const plugin::error& ex) {
      error = ex.what();
    }
    if (live == nullptr) {
      e.error = "opencl: building " + what + " failed: " + error + "\noptions: " + options +
                "\n(XD_OPENCL_MATMUL_WGMMA=0 builds the program without its wgmma kernel)";
      clReleaseProgram(p);
      log(XD_LOG_ERROR, e.error);
      return;
    }
    p = live;
  } else if (!path.empty()) {
    try {
      bin = program_binary(p, device_.id);
    } catch (const plugin::error& ex) {
      why = ex.what();
    }
  }
  if (objects) {
    cl_program exe = clLinkProgram(device_.context, 1, &device_.id, "", 1, &p, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      // Linking an object that has just compiled cleanly failed once in a cold test run on PoCL
      // 3.1 (CL_LINK_PROGRAM_FAILURE, empty log) and succeeded when run again: try once more
      // before reporting, so a transient failure of the runtime does not fail the op.
      if (exe != nullptr) clReleaseProgram(exe);
      log(XD_LOG_WARN, what + ": linking failed (" + cl_error_string(err) + "); trying once more");
      exe = clLinkProgram(device_.context, 1, &device_.id, "", 1, &p, nullptr, nullptr, &err);
    }
    if (err != CL_SUCCESS) {
      e.error = "opencl: linking " + what + " failed: " + cl_error_string(err) + "\noptions: " + options +
                "\nbuild log:\n" + (exe != nullptr ? build_log(exe, device_.id) : build_log(p, device_.id));
      if (exe != nullptr) clReleaseProgram(exe);
      clReleaseProgram(p);
      log(XD_LOG_ERROR, e.error);
      return;
    }
    clReleaseProgram(p);
    p = exe;
  }
  e.program = p;
  stats().built.fetch_add(1);
  char line[64];
  std::snprintf(line, sizeof line, " in %.1f ms", ms_since(t0));
  log(XD_LOG_DEBUG, what + ": built from source" + line + " (options: " + options + ")");
  // A successful build's log holds the compiler's warnings and, asked for through
  // XD_OPENCL_BUILD_OPTIONS (NVIDIA: -cl-nv-verbose), register and spill counts per kernel.
  if (const std::string blog = build_log(p, device_.id);
      blog.find_first_not_of(" \t\r\n") != std::string::npos && blog != "(no build log)")
    log(XD_LOG_DEBUG, what + ": build log:\n" + blog);

  if (!path.empty()) {
    if (bin.empty()) {
      log(XD_LOG_WARN, what + ": no binary to cache" + (why.empty() ? "" : ": " + why));
    } else if (!write_entry(path, key, bin, why)) {
      log(XD_LOG_WARN, what + ": not cached: " + why);
    } else {
      log(XD_LOG_DEBUG, what + ": cached as " + path);
    }
  }
}

program_cache::kernel_handle program_cache::kernel(const program_id& id, const char* name) {
  entry& e = find(id);
  {
    const std::lock_guard lock(e.build_mutex);
    if (!e.done) {
      build(e, describe(id), program_text(id), build_options(id));
      e.done = true;
    }
  }
  if (!e.error.empty()) throw plugin::error(XD_ERR_DEVICE, e.error);
  {
    const std::lock_guard lock(e.pool_mutex);
    auto& free = e.pool[name];
    if (!free.empty()) {
      cl_kernel k = free.back();
      free.pop_back();
      return kernel_handle(&e, name, k);
    }
  }
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(e.program, name, &err);
  check(err, std::string("clCreateKernel(") + name + ") of " + describe(id));
  return kernel_handle(&e, name, k);
}

bool wgmma_route(const device& d, std::string& why) {
  const std::string src = "__kernel void xd_wgmma_probe(__global float* x) {\n  asm volatile(\"" +
                          std::string(kWgmmaMarker) +
                          "wgmma.fence.sync.aligned;\" : : : \"memory\");\n  x[0] = 1.0f;\n}\n";
  const char* text = src.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(d.context, 1, &text, nullptr, &err);
  if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &d.id, "-cl-std=CL1.2", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    if (p != nullptr) clReleaseProgram(p);
    why = "the probe kernel did not build from source (" + cl_error_string(err) + ")";
    return false;
  }
  std::vector<unsigned char> ptx;
  std::string error;
  cl_program live = nullptr;
  try {
    live = with_wgmma(p, d, "", ptx, error);
  } catch (const plugin::error& ex) {
    error = ex.what();
  }
  if (live == nullptr) {
    clReleaseProgram(p);
    why = error;
    return false;
  }
  const bool rewritten = live != p;  // with_wgmma gives p back where its PTX held no wgmma line
  clReleaseProgram(live);
  if (!rewritten) {
    why = "the driver's PTX does not carry the inline asm's text";
    return false;
  }
  why = "PTX rewritten for sm_90a builds";
  return true;
}

cl_program program_cache::generated(const std::string& source) {
  entry* e = nullptr;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = generated_[source];
    if (!slot) slot = std::make_unique<entry>();
    e = slot.get();
  }
  const std::lock_guard lock(e->build_mutex);
  if (!e->done) {
    // The options of the hand-written programs that are not -D: the language version, exact
    // division and sqrt, and the user's own.
    std::string options = "-cl-std=CL1.2";
    if (device_.correctly_rounded_sqrt) options += " -cl-fp32-correctly-rounded-divide-sqrt";
    if (const std::string extra = plugin::option_text(option_desc(option::build_options)); !extra.empty())
      options += " " + extra;
    const std::string what = "generated program " + hex64(fnv1a(source)) + " on " + device_.name;
    build(*e, what, {source}, options);
    if (!e->error.empty()) {
      const std::string path = keep_source(source);
      e->error +=
          path.empty() ? "\nsource: (could not be written to the cache or the temporary folder)" : "\nsource: " + path;
    }
    e->done = true;
  }
  if (!e->error.empty()) throw plugin::error(XD_ERR_INVALID_ARGUMENT, e->error);
  return e->program;
}

}  // namespace xd::ocl
