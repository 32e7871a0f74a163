// The OpenCL plugin's disk-cache entry reader (read_entry, plugins/xpu/opencl/program/disk_cache.cpp),
// compiled as the plugin compiles it. An input is: one byte n, n bytes of key (the key wanted),
// then the entry file's bytes. read_entry must return nullopt with a reason, or a non-empty
// binary, never crash or throw. Every input also round-trips: what write_entry stores under the
// key must read back unchanged.
#include "fuzz_util.hpp"

#include "program/disk_cache.hpp"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xd::fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xd::fuzz::set_input(data, size);
  if (size == 0) return 0;
  const size_t n = std::min<size_t>(data[0], size - 1);
  const std::string key(reinterpret_cast<const char*>(data) + 1, n);
  const uint8_t* file = data + 1 + n;
  const size_t file_size = size - 1 - n;
  const std::string dir = xd::fuzz::scratch_dir();
  const std::string path = dir + "/entry.bin";
  xd::fuzz::write_file(path, file, file_size);
  std::string why;
  try {
    const auto bin = xd::ocl::read_entry(path, key, why);
    if (bin && bin->empty()) xd::fuzz::finding("read_entry accepted an empty binary");
    if (!bin && why.empty()) xd::fuzz::finding("read_entry rejected an entry without a reason");
    if (bin && bin->size() > file_size) xd::fuzz::finding("read_entry returned more bytes than the file has");

    // Round trip: the file's bytes as a binary stored under the key.
    const std::vector<unsigned char> payload(file, file + file_size);
    if (payload.empty()) return 0;
    const std::string path2 = xd::ocl::entry_path(dir, key);
    if (!xd::ocl::write_entry(path2, key, payload, why)) xd::fuzz::finding("write_entry failed: " + why);
    why.clear();
    const auto back = xd::ocl::read_entry(path2, key, why);
    if (!back || *back != payload) xd::fuzz::finding("write_entry/read_entry round trip failed: " + why);
    if (!key.empty()) {
      why.clear();
      std::string other = key;
      other[0] = static_cast<char>(other[0] ^ 1);
      if (xd::ocl::read_entry(path2, other, why)) xd::fuzz::finding("an entry was read back under another key");
    }
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("read_entry/write_entry threw: ") + e.what());
  }
  return 0;
}
