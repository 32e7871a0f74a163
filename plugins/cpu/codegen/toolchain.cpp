// Finding the system C++ compiler, once per process, and running it.
#include <xd/plugin.hpp>

#include "codegen/codegen.hpp"

#include <climits>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#ifndef XD_CPU_PLUGIN_VERSION
#define XD_CPU_PLUGIN_VERSION "0.0.0"
#endif

namespace xd::cpu::codegen {

namespace {

constexpr xd_option_desc text_option(const char* name, const char* doc) {
  return {sizeof(xd_option_desc), name, XD_OPTION_TEXT, 0, {}, {}, nullptr, "", doc};
}

const xd_option_desc kOptions[] = {
    text_option("XD_CXX",
                "The C++ compiler that builds generated CPU kernels (xd::compile): a path or a name on PATH; unset: "
                "c++, then g++, then clang++ on PATH. Read once, at the first compiled kernel."),
    text_option("XD_CACHE_DIR",
                "Folder of the generated-kernel cache (cpu-codegen/ inside it, created if missing), or 'off' (a "
                "temporary folder per build); unset: ~/.cache/xdispatch. Read once, at the first compiled kernel."),
};

std::string fs_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// `name` as execvp would find it: a path as is, else the first executable of that name on PATH.
std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable(name) ? name : std::string();
  const std::string path = plugin::environment("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > start ? path.substr(start, end - start) : std::string(".");
    const std::string candidate = dir + "/" + name;
    if (is_executable(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

// Runs `argv` with stdout and stderr on `out_fd`; the exit status or -1.
int spawn_and_wait(const std::vector<std::string>& argv, int out_fd, std::string& error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 2);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    error = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      error = "waiting for " + argv[0] + " failed: " + std::strerror(errno);
      return -1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  error = argv[0] + " was killed by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

// How the compiler is told apart without running it (as ccache's compiler_check=mtime): the file
// it resolves to, its size and modification time. A cached kernel must cost no compiler run, not
// even `--version`; an upgraded compiler is another file or a newer one.
std::string file_identity(const std::string& path, std::string& real) {
  char buf[PATH_MAX];
  real = ::realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) return {};
  return real + " size " + std::to_string(st.st_size) + " mtime " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + " inode " + std::to_string(st.st_ino);
}

// The float lanes GCC's -march=native gives generated loops here.
uint32_t native_vector_width() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 16;
  if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return 8;
#endif
  return 4;
}

// What -march=native depends on, so that a cache folder shared between machines (a network home)
// never hands one machine another's instructions.
std::string cpu_key() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, key;
  bool model = false, flags = false;
  while ((!model || !flags) && std::getline(f, line)) {
    if (!model && line.rfind("model name", 0) == 0) {
      key += line + "\n";
      model = true;
    } else if (!flags && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0)) {
      key += line + "\n";
      flags = true;
    }
  }
  return key;
}

toolchain probe() {
  toolchain t;
  const char* kMissing = "codegen unavailable: no C++ compiler (set XD_CXX or install g++)";
  const std::string chosen = plugin::option_text(kOptions[0]);
  if (!chosen.empty()) {
    t.path = find_executable(chosen);
    if (t.path.empty()) {
      t.unavailable = std::string(kMissing) + ": XD_CXX=" + chosen + " is not an executable file" +
                      (chosen.find('/') == std::string::npos ? " on PATH" : "");
      return t;
    }
  } else {
    for (const char* name : {"c++", "g++", "clang++"}) {
      t.path = find_executable(name);
      if (!t.path.empty()) break;
    }
    if (t.path.empty()) {
      t.unavailable = std::string(kMissing) + ": none of c++, g++, clang++ is on PATH";
      return t;
    }
  }
  std::string real;
  const std::string file = file_identity(t.path, real);
  if (file.empty()) {
    t.unavailable = std::string(kMissing) + ": cannot read " + t.path;
    return t;
  }
  t.identity = real == t.path ? t.path : fs_name(real) + " (" + t.path + ")";
  // Never -ffast-math: the generated code must keep NaN and Inf (xd_isnan_f, the reference's
  // casts). Without errno and traps, sqrt is one instruction and loops of math vectorise.
  t.flags = {"-std=c++17",      "-O3",
             "-march=native",   "-fPIC",
             "-shared",         "-fvisibility=hidden",
             "-fno-math-errno", "-fno-trapping-math",
             "-fopenmp-simd"};
#if defined(__x86_64__) && defined(__GLIBC__)
  t.libs = {"-lmvec", "-lm"};  // the vector math the prelude declares (glibc's libmvec)
#else
  t.libs = {"-lm"};
#endif
  t.vector_width = native_vector_width();
  t.key = t.path + "\n" + file + "\n" + XD_CPU_PLUGIN_VERSION + "\n" + cpu_key();
  for (const std::string& f : t.flags) t.key += f + " ";
  for (const std::string& l : t.libs) t.key += l + " ";
  t.found = true;
  return t;
}

}  // namespace

std::span<const xd_option_desc> options() { return kOptions; }

const toolchain& find_toolchain() {
  static const toolchain t = probe();  // once per process; a function-local static is thread-safe
  return t;
}

int run_logged(const std::vector<std::string>& argv, const std::string& log_path, std::string& error) {
  const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot write " + log_path + ": " + std::strerror(errno);
    return -1;
  }
  const int status = spawn_and_wait(argv, fd, error);
  ::close(fd);
  return status;
}

}  // namespace xd::cpu::codegen
