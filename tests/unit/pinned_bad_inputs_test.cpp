// Bad inputs to pinned host memory (Tensor::pin_memory, the pinned_memory_* functions): each
// throws exactly the documented xd::Error subclass with a message that says what to do. The
// stand-in backends are support/pinned_stubs.hpp's.
#include <xd/xd.hpp>

#include "support/pinned_stubs.hpp"
#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

namespace {

using xd::Dtype;
using xd::Tensor;
using xd::test::devstub;
using xd::test::pinstub;

Tensor f32(xd::IntList sizes) { return xd::zeros(sizes, Dtype::f32, xd::cpu()); }

TEST(BadPinned, PinMemoryOfAnUndefinedTensor) {
  EXPECT_THROWS_EXACTLY(xd::ValueError, Tensor().pin_memory(pinstub()), "pin_memory", "'self'", "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, Tensor().pin_memory(), "pin_memory", "undefined");
  EXPECT_THROWS_EXACTLY(xd::ValueError, Tensor().is_pinned(), "undefined");
}

TEST(BadPinned, PinMemoryOfATensorInDeviceMemory) {
  const Tensor on_device = f32({2, 3}).to(devstub());
  EXPECT_THROWS_EXACTLY(xd::DeviceError, on_device.pin_memory(pinstub()), "pin_memory", "devstub:0",
                        "only tensors in host memory", ".to(xd::cpu(), true)");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, on_device.pin_memory(), "pin_memory", "devstub:0");
}

TEST(BadPinned, PinMemoryForTheCpuItself) {
  (void)pinstub();  // listed as a device that has pinned memory
  EXPECT_THROWS_EXACTLY(xd::NotImplementedError, f32({2}).pin_memory(xd::cpu()), "pin_memory", "cpu:0",
                        "host memory itself", "devices with pinned memory:", "pinstub:0");
}

TEST(BadPinned, PinMemoryForABackendWithoutHostAlloc) {
  EXPECT_THROWS_EXACTLY(xd::NotImplementedError, f32({2}).pin_memory(devstub()), "pin_memory", "backend 'devstub'",
                        "devstub:0", "no pinned host memory", "host_alloc");
}

TEST(BadPinned, PinMemoryForNoDeviceOrAMissingOne) {
  EXPECT_THROWS_EXACTLY(xd::DeviceError, f32({2}).pin_memory(xd::Device()), "no device given");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, f32({2}).pin_memory(xd::Device(pinstub().type(), 7)), "pinstub:7",
                        "does not exist");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::pinned_memory_stats(xd::Device()), "no device given");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::empty_pinned_cache(xd::Device()), "no device given");
  EXPECT_THROWS_EXACTLY(xd::DeviceError, xd::pinned_memory_available(xd::Device()), "no device given");
}

// Needs a process where no device with pinned memory is visible: ctest runs each test in its
// own, and XD_DEVICES hides the real XPU backends before the registry starts.
TEST(BadPinned, PinMemoryWithoutADeviceArgumentWhereNoDeviceHasPinnedMemory) {
  setenv("XD_DEVICES", "!opencl;!levelzero", 1);
  for (const xd::Device& d : xd::devices())
    if (xd::pinned_memory_available(d)) GTEST_SKIP() << d.str() << " has pinned memory (the registry had started)";
  EXPECT_THROWS_EXACTLY(xd::NotImplementedError, f32({2}).pin_memory(), "pin_memory",
                        "no visible device has pinned host memory", "loaded backends: cpu", "host_alloc");
}

TEST(BadPinned, PinningMoreThanTheBackendCanGiveStatesTheSizes) {
  // 2 GiB through a broadcast view of one element; the stand-in refuses more than 1 GiB.
  const Tensor huge = f32({1}).expand({int64_t{1} << 29});
  EXPECT_THROWS_EXACTLY(xd::OutOfMemoryError, huge.pin_memory(pinstub()), "out of memory on pinstub:0",
                        "pinned host memory", "tried to allocate 2.00 GiB", "at most 1 GiB",
                        "xd::empty_pinned_cache(pinstub:0)");
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).num_ooms, 1u);
}

}  // namespace
