#include "program/spirv_compiler.hpp"

#include <xd/regular_file.hpp>
#include "options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef XD_L0_CLANG_BASE_FLAGS
#error "XD_L0_CLANG_BASE_FLAGS (the build's front-end flags, space-separated) must be defined"
#endif

namespace xd::l0 {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'X', 'D', 'S', 'P', 'V', '0', '0', '1'};

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
uint64_t fnv1a(const std::string& s) { return fnv1a(s.data(), s.size()); }

std::string hex64(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// `name` as given when it holds a '/', else the first executable of that name on PATH.
std::string resolve(const std::string& name) {
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? fs::absolute(name).string() : "";
  const auto path = plugin::environment("PATH");
  std::stringstream dirs(path ? *path : std::string("/usr/local/bin:/usr/bin:/bin"));
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return fs::absolute(candidate).string();
  }
  return {};
}

// Runs argv[0] (an absolute path) with stdout and stderr into `output`; the exit status, or -1
// when it could not be started or did not exit normally.
int run_tool(const std::vector<std::string>& argv, std::string& output) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    output = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    output = "cannot start " + argv[0] + ": " + std::strerror(err);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string tool_version(const std::string& path) {
  std::string out;
  const int rc = run_tool({path, "--version"}, out);
  // clang prints its version on the first line; llvm-spirv on the line after "LLVM (...)".
  std::string v;
  std::stringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.find("version") != std::string::npos) {
      v = line;
      break;
    }
  if (v.empty()) v = first_line(out);
  return path + ": " + (rc == 0 ? v : "(--version failed)");
}

// SPIR-V modules here are kilobytes to a few megabytes: a cache entry or tool output larger than
// this is not one, and reading it whole could exhaust memory.
constexpr uint64_t kMaxModuleBytes = uint64_t{256} << 20;

// Only a regular file, bounded (xd/regular_file.hpp): a FIFO, device or directory in a cache
// entry's place is a miss, and the module is compiled again.
std::string read_file(const fs::path& p, bool& ok) {
  std::string why;
  std::optional<std::string> data = files::read_regular_file(p.string(), kMaxModuleBytes, why);
  ok = data.has_value();
  return ok ? std::move(*data) : std::string();
}

// Written under a temporary name and renamed: readers never see a partial file.
bool write_file(const fs::path& p, const std::string& data) {
  const fs::path tmp = p.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f.good()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}
bool get_u64(const std::string& in, size_t& pos, uint64_t& v) {
  if (in.size() - pos < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

// A cache file: magic | key size | key | module size | module | FNV-1a of key and module. Used only
// when it has exactly this shape, its key is the one wanted and the checksum holds.
bool read_entry(const fs::path& path, const std::string& key, std::vector<uint32_t>& words) {
  bool ok = false;
  const std::string data = read_file(path, ok);
  size_t pos = sizeof kMagic;
  uint64_t key_size = 0, size = 0, sum = 0;
  if (!ok || data.size() < pos || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return false;
  if (!get_u64(data, pos, key_size) || key_size != key.size() || data.compare(pos, key.size(), key) != 0) return false;
  pos += key.size();
  if (!get_u64(data, pos, size) || size == 0 || size % 4 != 0 || data.size() - pos < size + 8) return false;
  const size_t body = pos;
  pos += size;
  if (!get_u64(data, pos, sum) || pos != data.size() || sum != fnv1a(data.data() + body, size, fnv1a(key)))
    return false;
  words.resize(size / 4);
  std::memcpy(words.data(), data.data() + body, size);
  return true;
}

bool write_entry(const fs::path& path, const std::string& key, const std::string& module) {
  std::string out(kMagic, sizeof kMagic);
  put_u64(out, key.size());
  out += key;
  put_u64(out, module.size());
  out += module;
  put_u64(out, fnv1a(module.data(), module.size(), fnv1a(key)));
  return write_file(path, out);
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// A fresh folder under `dir` (created if needed), or under the temporary folder.
fs::path work_folder(const std::string& dir) {
  std::error_code ec;
  fs::path base = dir;
  if (!base.empty()) fs::create_directories(base, ec);
  if (base.empty() || ec) {
    ec.clear();
    base = fs::temp_directory_path(ec);
    if (ec) throw plugin::error(XD_ERR_INTERNAL, "levelzero: no temporary folder: " + ec.message());
  }
  std::string pattern = (base / "levelzero-work-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw plugin::error(XD_ERR_INTERNAL,
                        "levelzero: cannot create a work folder under " + base.string() + ": " + std::strerror(errno));
  return pattern;
}

}  // namespace

std::string spirv_tools::missing() const {
  if (found()) return {};
  std::string which = clang.empty() ? clang_name : "";
  if (llvm_spirv.empty()) which += (which.empty() ? "" : " and ") + llvm_spirv_name;
  return "codegen unavailable: " + which + " not found (XD_CLANG and XD_LLVM_SPIRV name others)";
}

spirv_tools find_spirv_tools() {
  const std::string clang = plugin::option_text(option_desc(option::clang));
  const std::string spirv = plugin::option_text(option_desc(option::llvm_spirv));
  spirv_tools t;
  if (!clang.empty()) t.clang_name = clang;
  if (!spirv.empty()) t.llvm_spirv_name = spirv;
  t.clang = resolve(t.clang_name);
  t.llvm_spirv = resolve(t.llvm_spirv_name);
  if (t.found()) t.version = tool_version(t.clang) + "\n" + tool_version(t.llvm_spirv);
  return t;
}

const spirv_tools& spirv_tools_here() {
  static const spirv_tools t = find_spirv_tools();
  return t;
}

std::vector<std::string> spirv_clang_flags() {
  std::vector<std::string> flags;
  std::stringstream in(XD_L0_CLANG_BASE_FLAGS);
  for (std::string f; in >> f;) flags.push_back(f);
  return flags;
}

std::string keep_generated_source(const std::string& source, const std::string& cache_dir) {
  std::error_code ec;
  fs::path dir = cache_dir;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (dir.empty() || ec) {
    ec.clear();
    dir = fs::temp_directory_path(ec) / ("xdispatch-" + std::to_string(getuid()));
    if (!ec) fs::create_directories(dir, ec);
    if (ec) return {};
  }
  const fs::path path = dir / ("levelzero-generated-" + hex64(fnv1a(source)) + ".cl");
  return write_file(path, source) ? path.string() : std::string();
}

std::string spirv_cache_dir() {
  const std::string dir = plugin::option_text(option_desc(option::cache_dir));
  if (dir == "off") return {};
  if (!dir.empty()) return dir;
  const auto home = plugin::environment("HOME");
  return home ? *home + "/.cache/xdispatch" : std::string();
}

spirv_result compile_spirv(const std::string& source, const spirv_tools& tools, const std::string& cache_dir) {
  if (!tools.found()) throw plugin::error(XD_ERR_UNAVAILABLE, "levelzero: " + tools.missing());
  const std::vector<std::string> flags = spirv_clang_flags();
  const std::string key = "xdispatch levelzero spirv v1\ntools:\n" + tools.version + "\nflags: " + joined(flags) +
                          " | --spirv-max-version=1.0\nsource: " + hex64(fnv1a(source)) + " " +
                          std::to_string(source.size()) + "\n";
  spirv_result r;
  const fs::path entry =
      cache_dir.empty() ? fs::path() : fs::path(cache_dir) / ("levelzero-" + hex64(fnv1a(key)) + ".spv");
  if (!entry.empty() && read_entry(entry, key, r.words)) {
    r.ok = r.from_cache = true;
    return r;
  }

  const fs::path work = work_folder(cache_dir);
  const fs::path cl = work / "kernel.cl", bc = work / "kernel.bc", spv = work / "kernel.spv";
  std::error_code ec;
  if (!write_file(cl, source)) {
    fs::remove_all(work, ec);
    throw plugin::error(XD_ERR_INTERNAL, "levelzero: cannot write " + cl.string());
  }
  std::vector<std::string> front = {tools.clang, "-cc1"};
  front.insert(front.end(), flags.begin(), flags.end());
  front.insert(front.end(), {"-emit-llvm-bc", "-o", bc.string(), cl.string()});
  const std::vector<std::string> back = {tools.llvm_spirv, "--spirv-max-version=1.0", bc.string(), "-o", spv.string()};
  for (const std::vector<std::string>& argv : {front, back}) {
    std::string out;
    if (run_tool(argv, out) != 0) {
      r.log = "$ " + joined(argv) + "\n" + out;
      break;
    }
  }
  std::string module;
  if (r.log.empty()) {
    bool ok = false;
    module = read_file(spv, ok);
    if (!ok || module.empty() || module.size() % 4 != 0)
      r.log = "llvm-spirv wrote no SPIR-V word stream to " + spv.string();
  }
  if (!r.log.empty()) {
    r.source_path = keep_generated_source(source, cache_dir);
    if (r.source_path.empty())
      r.source_path = cl.string();  // the work folder's copy then stays
    else
      fs::remove_all(work, ec);
    return r;
  }
  fs::remove_all(work, ec);
  r.words.resize(module.size() / 4);
  std::memcpy(r.words.data(), module.data(), module.size());
  r.ok = true;
  if (!entry.empty()) (void)write_entry(entry, key, module);
  return r;
}

}  // namespace xd::l0
