// xd::from_blob / xd::data_ptr (include/xd/external.hpp): wrapping memory the library does not own.
#include <xd/error.hpp>
#include <xd/external.hpp>
#include <xd/ops.hpp>
#include <xd/runtime.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace {

using xd::Dtype;

// Counts deleter calls and remembers the pointer it was given.
struct DeleterProbe {
  std::atomic<int> calls{0};
  void* last = nullptr;
  std::function<void(void*)> fn() {
    return [this](void* p) {
      last = p;
      calls.fetch_add(1);
    };
  }
};

template <class E, class F>
void expect_error(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected an exception containing '" << fragment << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastViewDies) {
  std::vector<float> buf(6, 1.0f);
  DeleterProbe probe;
  xd::Tensor v;
  {
    xd::Tensor t = xd::from_blob(buf.data(), {2, 3}, Dtype::f32, xd::cpu(), probe.fn());
    v = t.transpose(0, 1).slice(0, 1, 3);
    xd::Tensor copy = t;  // another reference to the same impl
    EXPECT_EQ(probe.calls.load(), 0);
  }
  EXPECT_EQ(probe.calls.load(), 0) << "a view is still alive";
  v = xd::Tensor();
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_EQ(probe.last, buf.data());
}

TEST(FromBlob, ViewsAndOpsShareTheCallersMemory) {
  std::vector<float> buf = {1, 2, 3, 4, 5, 6};
  xd::Tensor t = xd::from_blob(buf.data(), {2, 3}, Dtype::f32, xd::cpu(), nullptr);
  EXPECT_EQ(t.to_vector<float>(), buf);
  buf[4] = 50;  // a write by the owner is seen by the tensor
  EXPECT_EQ(t.at<float>({1, 1}), 50.0f);
  t.select(0, 0).copy_(xd::full({3}, 7.0));  // a write through a view lands in the buffer
  EXPECT_EQ(buf, (std::vector<float>{7, 7, 7, 4, 50, 6}));
  EXPECT_EQ(xd::data_ptr(t).ptr, buf.data());
  EXPECT_EQ(xd::data_ptr(t.select(0, 1)).ptr, buf.data() + 3);
}

TEST(FromBlob, StridedWrapWithStorageOffsetReadsTheRightElements) {
  std::vector<int32_t> buf(20);
  std::iota(buf.begin(), buf.end(), 0);
  // Column-major 3x2 starting at element 5, every second element of a row of 10.
  xd::Tensor t = xd::from_blob(buf.data(), {3, 2}, {2, 10}, Dtype::i32, xd::cpu(), nullptr, 5);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage_offset(), 5);
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{5, 15, 7, 17, 9, 19}));
  EXPECT_EQ(xd::sum(t).item<int64_t>(), 5 + 15 + 7 + 17 + 9 + 19);
  const xd::DataPtr p = xd::data_ptr(t);
  EXPECT_TRUE(p.host);
  EXPECT_EQ(p.ptr, buf.data() + 5);
  EXPECT_EQ(p.offset, 0u);
}

TEST(FromBlob, EmptyTensorAcceptsNullData) {
  DeleterProbe probe;
  {
    xd::Tensor t = xd::from_blob(nullptr, {0, 4}, Dtype::f32, xd::cpu(), probe.fn());
    EXPECT_EQ(t.numel(), 0);
    EXPECT_EQ(xd::sum(t).item<float>(), 0.0f);
  }
  EXPECT_EQ(probe.calls.load(), 1);
  EXPECT_EQ(probe.last, nullptr);
  // A zero size makes it empty even when the other sizes' product overflows int64.
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(xd::from_blob(nullptr, {big, 0, big}, Dtype::f32, xd::cpu(), nullptr).numel(), 0);
}

TEST(FromBlob, ThrowingDeleterIsCaughtAndLogged) {
  std::vector<float> buf(1);
  {
    xd::Tensor t =
        xd::from_blob(buf.data(), {1}, Dtype::f32, xd::cpu(), [](void*) { throw std::runtime_error("boom"); });
  }
  SUCCEED();  // reaching here means the exception did not escape the destructor
}

TEST(FromBlob, RejectsNullDataWithElements) {
  DeleterProbe probe;
  expect_error<xd::ValueError>([&] { xd::from_blob(nullptr, {2}, Dtype::f32, xd::cpu(), probe.fn()); },
                               "from_blob: data is null but the tensor has 2 elements");
  EXPECT_EQ(probe.calls.load(), 0) << "a rejected call must not free the caller's memory";
}

TEST(FromBlob, RejectsNegativeSize) {
  float x = 0;
  expect_error<xd::ValueError>(
      [&] {
        xd::from_blob(&x, {2, -1}, {1, 1}, Dtype::f32, xd::cpu(), nullptr);
      },
      "from_blob: sizes must be >= 0, got [2, -1]");
}

TEST(FromBlob, RejectsNegativeStride) {
  float x[4] = {};
  expect_error<xd::ValueError>([&] { xd::from_blob(x, {2}, {-1}, Dtype::f32, xd::cpu(), nullptr, 1); },
                               "from_blob: strides must be >= 0");
}

TEST(FromBlob, RejectsNegativeStorageOffset) {
  float x[4] = {};
  expect_error<xd::ValueError>([&] { xd::from_blob(x, {2}, {1}, Dtype::f32, xd::cpu(), nullptr, -1); },
                               "from_blob: storage_offset must be >= 0, got -1");
}

TEST(FromBlob, RejectsSizesAndStridesOfDifferentLengths) {
  float x[4] = {};
  expect_error<xd::ValueError>(
      [&] {
        xd::from_blob(x, {2, 2}, {1}, Dtype::f32, xd::cpu(), nullptr);
      },
      "have different lengths (2 and 1)");
}

TEST(FromBlob, RejectsElementCountOverflow) {
  float x = 0;
  const int64_t big = int64_t{1} << 40;
  expect_error<xd::ValueError>(
      [&] {
        xd::from_blob(&x, {big, big}, {0, 0}, Dtype::f32, xd::cpu(), nullptr);
      },
      "has more elements than int64 can count");
}

TEST(FromBlob, RejectsByteExtentOverflow) {
  float x = 0;
  const int64_t huge = std::numeric_limits<int64_t>::max() / 2;
  expect_error<xd::ValueError>([&] { xd::from_blob(&x, {3}, {huge}, Dtype::f32, xd::cpu(), nullptr); },
                               "reach past the largest byte offset");
  // Within int64 elements but not bytes once multiplied by the item size.
  expect_error<xd::ValueError>(
      [&] { xd::from_blob(&x, {2}, {std::numeric_limits<int64_t>::max() / 4}, Dtype::f64, xd::cpu(), nullptr); },
      "reach past the largest byte offset");
}

TEST(FromBlob, RejectsBadDtype) {
  float x = 0;
  expect_error<xd::DtypeError>([&] { xd::from_blob(&x, {1}, static_cast<Dtype>(42), xd::cpu(), nullptr); },
                               "from_blob: dtype value 42 is not an xd::Dtype");
}

TEST(FromBlob, RejectsBadDevice) {
  float x = 0;
  expect_error<xd::DeviceError>([&] { xd::from_blob(&x, {1}, Dtype::f32, xd::Device(), nullptr); }, "no device given");
  expect_error<xd::DeviceError>([&] { xd::from_blob(&x, {1}, Dtype::f32, xd::Device(0, 999), nullptr); },
                                ":999 does not exist");
}

TEST(FromBlob, RejectsTooManyDims) {
  float x = 0;
  std::vector<int64_t> ones(xd::kMaxDims + 1, 1);
  expect_error<xd::LayoutError>([&] { xd::from_blob(&x, ones, ones, Dtype::f32, xd::cpu(), nullptr); },
                                "cannot create a 9-d tensor");
}

TEST(FromBlob, RejectsMisalignedHostPointer) {
  alignas(8) unsigned char bytes[16] = {};
  expect_error<xd::ValueError>([&] { xd::from_blob(bytes + 1, {2}, Dtype::f32, xd::cpu(), nullptr); },
                               "is not aligned to 4 bytes, the size of f32");
}

TEST(DataPtr, AllocatedTensorPointsAtElementZeroOfTheView) {
  xd::Tensor t = xd::arange(0.0, 12.0, 1.0, Dtype::f32, xd::cpu()).view({3, 4});
  const auto base = static_cast<const float*>(xd::data_ptr(t).ptr);
  EXPECT_EQ(*base, 0.0f);
  const auto p = xd::data_ptr(t.slice(0, 1, 3).select(1, 2));
  ASSERT_TRUE(p.host);
  EXPECT_EQ(static_cast<const float*>(p.ptr), base + 6);
  EXPECT_EQ(*static_cast<const float*>(p.ptr), 6.0f);
}

TEST(DataPtr, RejectsUndefinedTensor) {
  expect_error<xd::ValueError>([] { xd::data_ptr(xd::Tensor()); }, "data_ptr: argument 't' is an undefined tensor");
}

}  // namespace
