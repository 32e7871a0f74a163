#include "runtime/tensor_maps.hpp"

#include <cstdint>
#include <dlfcn.h>
#include <string>

namespace xd::ocl {

namespace {

// cuda.h's values passed here, by number (CUtensorMapDataType, ...Swizzle, ...L2promotion).
constexpr int kDataF16 = 6;
constexpr int kDataBf16 = 9;
constexpr int kSwizzle64 = 2;
constexpr int kSwizzle128 = 3;
constexpr int kL2Promote128 = 2;
// Any 16-byte-aligned address: the map's address is replaced on the device before use.
constexpr uintptr_t kPlaceholder = uintptr_t{1} << 32;

using encode_fn = int (*)(void* map, int data_type, uint32_t rank, void* address, const uint64_t* dims,
                          const uint64_t* strides, const uint32_t* box, const uint32_t* element_strides, int interleave,
                          int swizzle, int l2_promotion, int oob_fill);
using ctx_set_fn = int (*)(void*);

struct cuda_driver {
  encode_fn encode = nullptr;
  ctx_set_fn set_current = nullptr;
  void* context = nullptr;
  std::string why;
};

const cuda_driver& driver() {
  static const cuda_driver d = [] {
    cuda_driver r;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      r.why = "libcuda.so.1 is not loadable";
      return r;
    }
    const auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"));
    const auto device_get = reinterpret_cast<int (*)(int*, int)>(dlsym(lib, "cuDeviceGet"));
    const auto retain = reinterpret_cast<int (*)(void**, int)>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
    r.set_current = reinterpret_cast<ctx_set_fn>(dlsym(lib, "cuCtxSetCurrent"));
    r.encode = reinterpret_cast<encode_fn>(dlsym(lib, "cuTensorMapEncodeTiled"));
    if (init == nullptr || device_get == nullptr || retain == nullptr || r.set_current == nullptr ||
        r.encode == nullptr) {
      r.encode = nullptr;
      r.why = "libcuda.so.1 lacks cuTensorMapEncodeTiled or the context calls";
      return r;
    }
    int dev = 0;
    int rc = init(0);
    if (rc == 0) rc = device_get(&dev, 0);
    if (rc == 0) rc = retain(&r.context, dev);
    if (rc != 0) {
      r.encode = nullptr;
      r.why = "the CUDA driver's set-up failed (CUresult " + std::to_string(rc) + ")";
    }
    // The library stays open for the process's life: the encoder is called until exit.
    return r;
  }();
  return d;
}

}  // namespace

bool tensor_maps_available(std::string* why) {
  const cuda_driver& d = driver();
  if (why != nullptr) *why = d.why;
  return d.encode != nullptr;
}

bool encode_tensor_map(const xpu::tensor_map_spec& spec, xpu::tensor_map& out) {
  const cuda_driver& d = driver();
  if (d.encode == nullptr) return false;
  if (spec.swizzle_bytes != 64 && spec.swizzle_bytes != 128) return false;
  // The encoder reads the calling thread's current context.
  if (d.set_current(d.context) != 0) return false;
  alignas(64) uint64_t bits[16] = {};
  const uint32_t element_strides[3] = {1, 1, 1};
  const int rc = d.encode(bits, spec.bf16 ? kDataBf16 : kDataF16, 3, reinterpret_cast<void*>(kPlaceholder), spec.dims,
                          spec.strides, spec.box, element_strides, 0,
                          spec.swizzle_bytes == 64 ? kSwizzle64 : kSwizzle128, kL2Promote128, 0);
  if (rc != 0) return false;
  for (int i = 0; i < 16; ++i) out.bits[i] = bits[i];
  return true;
}

}  // namespace xd::ocl
