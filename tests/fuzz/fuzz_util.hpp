// What the fuzzers share: a private scratch folder, writing an input to a file there, and the
// rule for exceptions (an exception of the documented kind is the reader's answer to a bad
// input; any other escaping exception is a finding and aborts, so libFuzzer keeps the input).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace xd::fuzz {

// A folder of its own for this process (removed by nobody: it is under $TMPDIR or /tmp).
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::string templ = std::string(t && *t ? t : "/tmp") + "/xd-fuzz-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    return templ;
  }();
  return dir;
}

inline void write_file(const std::string& path, const void* data, size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
}

// The input being run and libFuzzer's -artifact_prefix: a finding saves the input itself, since
// abort() may not reach libFuzzer's crash handler (PoCL's LLVM, loaded with the OpenCL plugin,
// installs signal handlers of its own over libFuzzer's).
struct Current {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string artifact_prefix = "./";
};
inline Current& current() {
  static Current c;
  return c;
}
// Call from LLVMFuzzerInitialize.
inline void init(int* argc, char*** argv) {
  for (int i = 0; argc && argv && i < *argc; ++i) {
    const std::string a = (*argv)[i];
    if (a.rfind("-artifact_prefix=", 0) == 0) current().artifact_prefix = a.substr(17);
  }
}
// Call first in LLVMFuzzerTestOneInput.
inline void set_input(const uint8_t* data, size_t size) {
  current().data = data;
  current().size = size;
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  const Current& c = current();
  if (c.data != nullptr || c.size == 0) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < c.size; ++i) h = (h ^ c.data[i]) * 0x100000001b3ull;
    char name[40];
    std::snprintf(name, sizeof name, "finding-%016llx", static_cast<unsigned long long>(h));
    const std::string path = c.artifact_prefix + name;
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(c.data), static_cast<std::streamsize>(c.size));
    std::fprintf(stderr, "FINDING: input written to %s\n", path.c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace xd::fuzz
