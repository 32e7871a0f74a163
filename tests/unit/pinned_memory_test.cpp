// Pinned host memory through the public API, against the "pinstub" stand-in backend
// (support/pinned_stubs.hpp): its events complete when the test says so, which makes "a copy is
// still in flight" deterministic. The same behaviour on a real backend (OpenCL on PoCL) is in
// tests/plugins/opencl/pinned_test.cpp.
#include <xd/xd.hpp>

#include "support/pinned_stubs.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using xd::Dtype;
using xd::Tensor;
using xd::test::devstub;
using xd::test::pinstub;
using xd::test::set_pinstub_pending;

constexpr uint64_t MiB = 1ull << 20;
constexpr int64_t k12MiBOfF32 = 3 * (1 << 20);  // large enough for a segment of its own

Tensor values(int64_t n, Dtype d = Dtype::f32) { return xd::arange(0, static_cast<double>(n), 1, d, xd::cpu()); }

TEST(PinnedMemory, IsAvailableExactlyWhereTheBackendProvidesHostAlloc) {
  EXPECT_TRUE(xd::pinned_memory_available(pinstub()));
  EXPECT_FALSE(xd::pinned_memory_available(devstub()));
  EXPECT_FALSE(xd::pinned_memory_available(xd::cpu()));
  const auto none = xd::pinned_memory_stats(xd::cpu());
  EXPECT_EQ(none.reserved, 0u);
  EXPECT_EQ(none.num_allocs, 0u);
  EXPECT_NO_THROW(xd::empty_pinned_cache(xd::cpu()));
}

TEST(PinnedMemory, PinMemoryGivesAContiguousPinnedCpuTensorWithTheSameValues) {
  const Tensor x = values(24).reshape({2, 3, 4}).transpose(0, 2);  // not contiguous
  EXPECT_FALSE(x.is_pinned());
  const Tensor p = x.pin_memory(pinstub());
  EXPECT_TRUE(p.is_pinned());
  EXPECT_EQ(p.device(), xd::cpu());
  EXPECT_TRUE(p.is_contiguous());
  EXPECT_EQ(p.dtype(), Dtype::f32);
  EXPECT_EQ(std::vector<int64_t>(p.sizes().begin(), p.sizes().end()), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(p.to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).allocated, 512u);  // 96 bytes, rounded
  EXPECT_TRUE(p.slice(0, 1, 3).is_pinned());                      // views share the pinned storage
  EXPECT_FALSE(p.clone().is_pinned());                            // copies are ordinary memory
  EXPECT_EQ(p.pin_memory(pinstub()).impl_ptr(), p.impl_ptr());    // already pinned for it: itself
}

TEST(PinnedMemory, CpuOpsTreatAPinnedTensorLikeAnyCpuTensor) {
  xd::Generator gen(1);
  const Tensor a = xd::randn({16, 8}, Dtype::f32, xd::cpu(), &gen);
  const Tensor b = xd::randn({8, 16}, Dtype::f32, xd::cpu(), &gen);
  const Tensor pa = a.pin_memory(pinstub());
  const Tensor pb = b.pin_memory(pinstub());
  auto same = [](const Tensor& x, const Tensor& y) { return x.to_bytes() == y.to_bytes(); };
  EXPECT_TRUE(same(xd::add(pa, pa, 0.5), xd::add(a, a, 0.5)));
  EXPECT_TRUE(same(xd::exp(pa), xd::exp(a)));
  EXPECT_TRUE(same(xd::mm(pa, pb), xd::mm(a, b)));
  EXPECT_TRUE(same(xd::sum(pa, {1}), xd::sum(a, {1})));
  EXPECT_TRUE(same(xd::softmax(pa, -1), xd::softmax(a, -1)));
  EXPECT_TRUE(same(pa.to(Dtype::f16), a.to(Dtype::f16)));
  EXPECT_TRUE(same(pa.t().contiguous(), a.t().contiguous()));
  Tensor dst = xd::zeros({16, 8}, Dtype::f32, xd::cpu()).pin_memory(pinstub());
  dst.copy_(b.t());  // a pinned destination of an ordinary copy
  EXPECT_TRUE(same(dst, b.t().contiguous()));
  EXPECT_TRUE(dst.is_pinned());
}

TEST(PinnedMemory, RoundTripsThroughTheDeviceAreExactForEveryDtype) {
  for (Dtype d : {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16, Dtype::i8, Dtype::u8, Dtype::i32, Dtype::i64,
                  Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2}) {
    const Tensor p = values(1000, Dtype::f32).to(d).pin_memory(pinstub());
    const Tensor on_device = p.to(pinstub(), true);
    const Tensor back = on_device.to(xd::cpu(), true);
    xd::current_stream(pinstub()).synchronize();
    EXPECT_TRUE(back.is_pinned()) << xd::dtype_name(d);
    EXPECT_EQ(back.to_bytes(), p.to_bytes()) << xd::dtype_name(d);
  }
}

TEST(PinnedMemory, ANonBlockingCopyKeepsItsPinnedBlockFromReuseUntilTheStreamPassesIt) {
  const xd::MemoryStats before = xd::pinned_memory_stats(pinstub());
  Tensor p = values(k12MiBOfF32).pin_memory(pinstub());
  const Tensor want = p.clone();
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).reserved - before.reserved, 12 * MiB);

  set_pinstub_pending(true);  // from here the device has not completed anything
  const Tensor on_device = p.to(pinstub(), true);
  p = Tensor();  // freed while the copy may still read it
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).pending_blocks, 1u);

  // A new pinned tensor of the same size must not get that memory: a new segment is needed.
  const Tensor q = xd::full({k12MiBOfF32}, 7, Dtype::f32, xd::cpu()).pin_memory(pinstub());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).reserved - before.reserved, 24 * MiB);
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).pending_blocks, 1u);

  set_pinstub_pending(false);  // the stream has passed the copy: its block is reusable
  const Tensor r = values(k12MiBOfF32).pin_memory(pinstub());
  const xd::MemoryStats after = xd::pinned_memory_stats(pinstub());
  EXPECT_EQ(after.reserved - before.reserved, 24 * MiB);
  EXPECT_EQ(after.pending_blocks, 0u);
  EXPECT_EQ(on_device.to(xd::cpu()).to_bytes(), want.to_bytes());
}

TEST(PinnedMemory, TheCopysStreamIsTheCurrentOneAndMayBeDestroyedBeforeTheBlockIsFreed) {
  Tensor p = values(4096).pin_memory(pinstub());
  Tensor on_device;
  {
    const xd::Stream s = xd::Stream::create(pinstub());
    const xd::StreamGuard guard(s);
    on_device = p.to(pinstub(), true);
    s.synchronize();
  }  // the stream's last handle is gone; the pinned block still refers to it
  set_pinstub_pending(true);
  p = Tensor();  // records an event on that stream: it must still exist
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).pending_blocks, 1u);
  set_pinstub_pending(false);
  xd::empty_pinned_cache(pinstub());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).pending_blocks, 0u);
  EXPECT_EQ(on_device.to(xd::cpu()).to_vector<float>(), values(4096).to_vector<float>());
}

TEST(PinnedMemory, BlockingCopiesAndCopiesFromPageableMemoryLeaveNothingPending) {
  Tensor p = values(4096).pin_memory(pinstub());
  const Tensor blocking = p.to(pinstub());  // non_blocking not asked: nothing stays in flight
  p = Tensor();
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).pending_blocks, 0u);
  const uint64_t allocs = xd::pinned_memory_stats(pinstub()).num_allocs;
  const Tensor from_pageable = values(4096).to(pinstub(), true);  // a hint: it just blocks
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).num_allocs, allocs);
  EXPECT_EQ(from_pageable.to(xd::cpu()).to_vector<float>(), values(4096).to_vector<float>());
  EXPECT_EQ(blocking.to(xd::cpu()).to_vector<float>(), values(4096).to_vector<float>());
}

TEST(PinnedMemory, ANonBlockingCopyToTheHostLandsInPinnedMemory) {
  const Tensor on_device = values(1000).to(pinstub());
  const Tensor h = on_device.to(xd::cpu(), true);
  EXPECT_TRUE(h.is_pinned());
  EXPECT_EQ(h.device(), xd::cpu());
  EXPECT_FALSE(on_device.to(xd::cpu()).is_pinned());
  Tensor into = xd::zeros({1000}, Dtype::f32, xd::cpu()).pin_memory(pinstub());
  into.copy_(on_device, true);
  Tensor cast = xd::zeros({1000}, Dtype::f64, xd::cpu()).pin_memory(pinstub());
  cast.copy_(on_device, true);  // needs a cast on the host: through ordinary memory, blocking
  xd::current_stream(pinstub()).synchronize();
  EXPECT_EQ(h.to_vector<float>(), values(1000).to_vector<float>());
  EXPECT_EQ(into.to_vector<float>(), values(1000).to_vector<float>());
  EXPECT_EQ(cast.to_vector<double>(), values(1000, Dtype::f64).to_vector<double>());
  // Without pinned memory on the source's backend, the copy is an ordinary blocking one.
  const Tensor plain = values(10).to(devstub()).to(xd::cpu(), true);
  EXPECT_FALSE(plain.is_pinned());
  EXPECT_EQ(plain.to_vector<float>(), values(10).to_vector<float>());
}

TEST(PinnedMemory, EmptyPinnedCacheReleasesWhatNoCopyMayStillUse) {
  xd::empty_pinned_cache(pinstub());
  const uint64_t base = xd::pinned_memory_stats(pinstub()).reserved;
  Tensor idle = values(k12MiBOfF32).pin_memory(pinstub());
  Tensor busy = values(k12MiBOfF32).pin_memory(pinstub());
  set_pinstub_pending(true);
  const Tensor on_device = busy.to(pinstub(), true);
  idle = Tensor();
  busy = Tensor();
  xd::empty_pinned_cache(pinstub());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).reserved - base, 12 * MiB);  // the busy one stays
  set_pinstub_pending(false);
  xd::empty_pinned_cache(pinstub());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).reserved, base);
  xd::reset_peak_pinned_memory_stats(pinstub());
  EXPECT_EQ(xd::pinned_memory_stats(pinstub()).peak_reserved, base);
}

}  // namespace
