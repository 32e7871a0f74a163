// The .npy reader of xd-conform (tools/xd-conform/npy.cpp): any bytes as a file. It must either
// return an array whose payload is exactly shape x itemsize bytes, or throw std::runtime_error;
// an array it returns must survive write_npy and read back equal.
#include "fuzz_util.hpp"
#include "npy.hpp"

#include <cstdint>
#include <stdexcept>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xd::fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xd::fuzz::set_input(data, size);
  using namespace xd::conform;
  const std::string path = xd::fuzz::scratch_dir() + "/in.npy";
  xd::fuzz::write_file(path, data, size);
  NpyArray a;
  try {
    a = read_npy(path);
  } catch (const std::runtime_error&) {
    return 0;
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("read_npy threw a non-runtime_error: ") + e.what());
  }
  uint64_t want = a.itemsize();
  for (const int64_t v : a.shape) {
    if (v < 0) xd::fuzz::finding("read_npy returned a negative size");
    want *= static_cast<uint64_t>(v);
  }
  if (a.itemsize() == 0 || a.data.size() != want) xd::fuzz::finding("payload size is not shape x itemsize");
  const std::string out = xd::fuzz::scratch_dir() + "/out.npy";
  try {
    write_npy(out, a.descr, a.shape, a.data);
    const NpyArray b = read_npy(out);
    if (b.descr != a.descr || b.shape != a.shape || b.data != a.data) xd::fuzz::finding("write_npy/read_npy round trip differs");
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("an array read_npy accepted does not round-trip: ") + e.what());
  }
  return 0;
}
