// Building generated C++ into shared objects, cached on disk across processes:
// XD_CACHE_DIR/cpu-codegen/<hash>.so, where the hash covers the source, the compiler, its flags,
// the plugin's version and the CPU (-march=native). A cached object costs one dlopen and no
// compiler. Files appear by rename, so two processes building one source both succeed and neither
// sees half a file.
#include <xd/plugin.hpp>

#include "codegen/codegen.hpp"

#include <atomic>
#include <cstdio>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <unistd.h>

namespace xd::cpu::codegen {

struct program {
  void* handle = nullptr;
  std::string path;  // the shared object, for messages
  std::mutex mutex;
  std::map<std::string, void*> kernels;
};

namespace {

namespace fs = std::filesystem;

// Two independent 64-bit hashes (FNV-1a, and a multiply-rotate one), 128 bits in all: a collision
// would run the wrong kernel, so it must be out of reach, not merely unlikely.
std::string hash_name(const std::string& key) {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x9e3779b97f4a7c15ull;
  for (const char c : key) {
    const auto byte = static_cast<unsigned char>(c);
    a = (a ^ byte) * 0x100000001b3ull;
    b = (b ^ byte) * 0xff51afd7ed558ccdull;
    b = (b << 31) | (b >> 33);
  }
  b ^= b >> 29;
  b *= 0xc4ceb9fe1a85ec53ull;
  b ^= b >> 32;
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return name;
}

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  return "." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

// The cache folder, or empty for "no cache": a temporary folder per build instead.
struct cache_location {
  std::string dir;
  std::string note;  // why there is no cache, for the log
};

cache_location resolve_cache() {
  const std::string chosen = plugin::option_text(options()[1]);
  if (chosen == "off") return {{}, "XD_CACHE_DIR=off"};
  std::string base = chosen;
  if (base.empty()) {
    const auto home = plugin::environment("HOME");
    if (!home) return {{}, "no XD_CACHE_DIR and no HOME"};
    base = *home + "/.cache/xdispatch";
  }
  const std::string dir = base + "/cpu-codegen";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    plugin::log(XD_LOG_WARN, "cannot create the kernel cache " + dir + " (" + ec.message() +
                                 "); compiled kernels are built again in every process");
    return {{}, "cannot create " + dir};
  }
  return {dir, {}};
}

const cache_location& cache() {
  static const cache_location c = resolve_cache();
  return c;
}

std::string read_head(const std::string& path, size_t limit) {
  std::ifstream f(path, std::ios::binary);
  std::string text(limit, '\0');
  f.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(f.gcount()));
  if (text.size() == limit) text += "\n[... log truncated]";
  return text;
}

void write_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + unique_suffix();
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) plugin::fail(XD_ERR_INTERNAL, "cannot write the kernel source " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    plugin::fail(XD_ERR_INTERNAL, "cannot write the kernel source " + path);
  }
}

// Compiles `cpp` into `so` (through a temporary name, renamed into place).
void compile(const toolchain& t, const std::string& cpp, const std::string& so) {
  const std::string tmp = so + unique_suffix() + ".tmp";
  const std::string log_path = tmp + ".log";
  std::vector<std::string> argv{t.path};
  argv.insert(argv.end(), t.flags.begin(), t.flags.end());
  argv.insert(argv.end(), {"-o", tmp, cpp});
  argv.insert(argv.end(), t.libs.begin(), t.libs.end());
  std::string error;
  const int status = run_logged(argv, log_path, error);
  std::error_code ec;
  if (status != 0) {
    const std::string log = read_head(log_path, 4096);
    fs::remove(log_path, ec);
    fs::remove(tmp, ec);
    if (!error.empty()) plugin::fail(XD_ERR_INTERNAL, "the C++ compiler did not run: " + error);
    plugin::fail(XD_ERR_INVALID_ARGUMENT, "generated C++ does not compile (" + t.identity + ", exit status " +
                                              std::to_string(status) + "; source kept at " + cpp + "):\n" + log);
  }
  fs::remove(log_path, ec);
  fs::rename(tmp, so, ec);
  if (ec) {
    fs::remove(tmp, ec);
    plugin::fail(XD_ERR_INTERNAL, "cannot move the compiled kernel to " + so + ": " + ec.message());
  }
}

void* open_object(const std::string& so, std::string& why) {
  void* h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = ::dlerror();
    why = e != nullptr ? e : "dlopen failed";
  }
  return h;
}

// Builds in a folder of its own and removes it once loaded (no cache).
void* build_uncached(const toolchain& t, const std::string& source, const std::string& name, std::string& so) {
  std::string pattern = (fs::temp_directory_path() / "xd-cpu-codegen-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) plugin::fail(XD_ERR_INTERNAL, "cannot create a temporary folder");
  const std::string cpp = pattern + "/" + name + ".cpp";
  so = pattern + "/" + name + ".so";
  write_file(cpp, source);
  compile(t, cpp, so);  // on failure the folder stays: the message names its source
  std::string why;
  void* h = open_object(so, why);
  std::error_code ec;
  fs::remove_all(pattern, ec);  // a loaded object stays mapped after its file is gone
  if (h == nullptr) plugin::fail(XD_ERR_INTERNAL, "cannot load the compiled kernel " + so + ": " + why);
  return h;
}

void* build_cached(const toolchain& t, const std::string& dir, const std::string& source, const std::string& name,
                   std::string& so) {
  so = dir + "/" + name + ".so";
  std::error_code ec;
  std::string why;
  // dlopen of a FIFO blocks forever and of a device reads it: anything but a regular file (through
  // any symlink) under the entry's name is removed and the kernel built again. A non-empty
  // directory cannot be removed, so that kernel is built outside the cache.
  if (const fs::file_status st = fs::status(so, ec);
      fs::exists(fs::symlink_status(so, ec)) && !fs::is_regular_file(st)) {
    plugin::log(XD_LOG_WARN, "cached kernel " + so + " is not a regular file; building it again");
    fs::remove(so, ec);
    if (fs::exists(fs::symlink_status(so, ec))) return build_uncached(t, source, name, so);
  }
  if (fs::exists(so, ec)) {
    if (void* h = open_object(so, why)) {
      plugin::log(XD_LOG_DEBUG, "kernel " + so + " loaded from the disk cache");
      return h;
    }
    plugin::log(XD_LOG_WARN, "cached kernel " + so + " does not load (" + why + "); building it again");
    fs::remove(so, ec);
  }
  const std::string cpp = dir + "/" + name + ".cpp";
  write_file(cpp, source);
  compile(t, cpp, so);
  void* h = open_object(so, why);
  if (h == nullptr) plugin::fail(XD_ERR_INTERNAL, "cannot load the compiled kernel " + so + ": " + why);
  plugin::log(XD_LOG_DEBUG, "kernel " + so + " built from source");
  return h;
}

}  // namespace

program* build_program(const std::string& source) {
  const toolchain& t = find_toolchain();
  if (!t.found) plugin::fail(XD_ERR_UNAVAILABLE, t.unavailable);
  const std::string name = hash_name(source + '\0' + t.key);

  // One program per source for the process: programs are never unloaded, so a source built again
  // (a retrace, another thread) gets the same one instead of another dlopen reference.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<program>> programs;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto it = programs.find(name); it != programs.end()) return it->second.get();
  }
  // Built outside the lock: a compilation takes seconds, other sources need not wait for it.
  auto p = std::make_unique<program>();
  p->handle = cache().dir.empty() ? build_uncached(t, source, name, p->path)
                                  : build_cached(t, cache().dir, source, name, p->path);
  const std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = programs.emplace(name, std::move(p));
  return it->second.get();  // a thread that lost the race leaves its handle loaded: harmless
}

void* find_kernel(program* p, const std::string& name) {
  const std::lock_guard<std::mutex> lock(p->mutex);
  if (auto it = p->kernels.find(name); it != p->kernels.end()) return it->second;
  ::dlerror();
  void* fn = ::dlsym(p->handle, name.c_str());
  if (fn == nullptr) plugin::invalid("no kernel " + name + " in " + p->path);
  p->kernels.emplace(name, fn);
  return fn;
}

}  // namespace xd::cpu::codegen
