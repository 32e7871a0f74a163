// XD_FALLBACK=cpu on a backend without a COPY kernel (an out-of-tree plugin with only ADD and MUL
// for contiguous f32 operands): broadcast, transposed and offset operands reach the CPU, and
// results reach strided destinations, through the plugin's raw copies. Dispatching COPY on the
// backend that is falling back instead recursed (run_on_cpu -> to(cpu) -> contiguous() -> COPY ->
// fallback -> run_on_cpu ...) until the stack overflowed. Each case runs in its own process (the
// fallback setting is read once), with the stub with host memory and the one with device memory.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Loads the stub `file` (in XD_ADDMUL_STUB_DIR) and returns its device.
xd::Device load(const std::string& file, const std::string& backend) {
  const auto row = xd::load_plugin(std::string(XD_ADDMUL_STUB_DIR) + "/libxd_plugin_" + file + ".so");
  EXPECT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
  return xd::Device::parse(backend);
}

class GatherFallback : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    ::setenv("XD_FALLBACK", "cpu", 1);  // read at the first missing kernel of this process
    const std::string backend = GetParam();
    dev_ = load(backend == "addmul" ? "stub_addmul" : "stub_addmul_devmem", backend);
  }
  xd::Device dev_;
};

TEST_P(GatherFallback, MulWithABroadcastOperandRunsOnTheCpuOnceAndIsRight) {
  const auto a = xd::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev_);
  const auto b = xd::tensor<float>({10, 20, 30}, {3}, dev_);
  const uint64_t before = xd::fallback_count();
  const auto c = xd::mul(a, b);
  // One fallback, the mul's: no COPY was dispatched on the stub to move the broadcast operand.
  EXPECT_EQ(xd::fallback_count(), before + 1);
  EXPECT_EQ(c.device(), dev_);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{10, 40, 90, 40, 100, 180}));
}

TEST_P(GatherFallback, ContiguousOperandsStillRunOnTheBackendsOwnKernel) {
  const auto a = xd::tensor<float>({1, 2, 3}, {3}, dev_);
  const auto b = xd::tensor<float>({10, 20, 30}, {3}, dev_);
  const uint64_t before = xd::fallback_count();
  const auto c = xd::add(a, b, 2.0);
  EXPECT_EQ(xd::fallback_count(), before);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{21, 42, 63}));
}

TEST_P(GatherFallback, TransposedOperandIsGatheredWithItsStrides) {
  const auto a = xd::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev_);
  const auto b = xd::tensor<float>({1, 10, 100, 1000, 10000, 100000}, {3, 2}, dev_);
  const auto c = xd::mul(a.t(), b);  // a.t() is [[1,4],[2,5],[3,6]]
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 40, 200, 5000, 30000, 600000}));
}

TEST_P(GatherFallback, OperandWithAStorageOffsetAndAStepIsGathered) {
  const auto x = xd::tensor<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, dev_);
  // Row 1, every other column from column 1: [5, 7]; and column 2 of rows 1..2: [6, 10].
  const auto row = x.select(0, 1).slice(0, 1, 4, 2);
  const auto col = x.slice(0, 1, 3).select(1, 2);
  ASSERT_FALSE(row.is_contiguous());
  const auto c = xd::add(row, col, 1.0);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{11, 17}));
}

TEST_P(GatherFallback, ExpandedScalarOperandIsGatheredAsOneElement) {
  const auto a = xd::tensor<float>({1, 2, 3, 4}, {2, 2}, dev_);
  const auto s = xd::tensor<float>({3}, {1}, dev_).expand({2, 2});
  EXPECT_EQ(xd::mul(a, s).to_vector<float>(), (std::vector<float>{3, 6, 9, 12}));
}

TEST_P(GatherFallback, CopyOfANonContiguousViewFallsBackItselfWithoutRecursing) {
  const auto a = xd::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev_);
  const uint64_t before = xd::fallback_count();
  const auto c = a.t().contiguous();  // COPY on the stub: missing, so it runs on the CPU
  EXPECT_EQ(xd::fallback_count(), before + 1);
  EXPECT_EQ(c.device(), dev_);
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(a.t().to(xd::cpu()).to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST_P(GatherFallback, ResultIsScatteredIntoAStridedDestinationLeavingTheRestAlone) {
  auto x = xd::tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3}, dev_);
  // Column 1 of x, written through a COPY that falls back: elements between stay as they were.
  x.select(1, 1).copy_(xd::tensor<float>({-1, -2}, {2}, dev_));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, -1, 2, 3, -2, 5}));
  // The transposed view as a whole, from a broadcast source.
  x.t().copy_(xd::tensor<float>({7, 8}, {2}, dev_));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{7, 7, 7, 8, 8, 8}));
}

TEST_P(GatherFallback, EmptyOperandsNeedNoTransfer) {
  const auto a = xd::tensor<float>({}, {0, 3}, dev_);
  const auto b = xd::tensor<float>({1, 2, 3}, {3}, dev_);
  const auto c = xd::mul(a, b);
  EXPECT_EQ(c.numel(), 0);
  EXPECT_EQ(c.device(), dev_);
}

INSTANTIATE_TEST_SUITE_P(HostAndDeviceMemory, GatherFallback, ::testing::Values("addmul", "addmuldev"),
                         [](const auto& info) { return std::string(info.param); });

TEST(GatherFallbackOff, ABroadcastOperandIsDeclinedWithTheKernelsReason) {
  ::setenv("XD_FALLBACK", "error", 1);
  const xd::Device d = load("stub_addmul", "addmul");
  const auto a = xd::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}, d);
  const auto b = xd::tensor<float>({10, 20, 30}, {3}, d);
  try {
    (void)xd::mul(a, b);
    FAIL() << "expected NotImplementedError";
  } catch (const xd::NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("mul on backend 'addmul' with dtype f32: every registered kernel declined "
                                         "this call (addmul.mul: input 1 is not contiguous in the output's shape)"),
              std::string::npos)
        << e.what();
  }
}

// Reading values needs no kernel of the backend: the bytes move in the tensor's own dtype and the
// CPU reference converts them, so a backend without COPY (or without casts) can still be read as
// double and printed. A strided view still needs COPY on its device, and says so.
class ReadWithoutCopy : public ::testing::TestWithParam<const char*> {};

TEST_P(ReadWithoutCopy, AContiguousTensorIsReadInAnyTypeAndPrintedWithoutAKernel) {
  ::setenv("XD_FALLBACK", "error", 1);
  const std::string backend = GetParam();
  const xd::Device d = load(backend == "addmul" ? "stub_addmul" : "stub_addmul_devmem", backend);
  const auto a = xd::tensor<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3}, d);
  EXPECT_EQ(a.to_vector<double>(), (std::vector<double>{1.5, -2, 3, 4, 5, 6}));
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3, 4, 5, 6}));
  EXPECT_EQ(a.at<double>({0, 1}), -2.0);
  EXPECT_NE(a.str().find("dtype=f32, device=" + backend + ":0"), std::string::npos) << a.str();
  try {
    (void)a.t().to_vector<double>();
    FAIL() << "read a transposed view without a COPY kernel";
  } catch (const xd::NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("copy on backend '" + backend + "' with dtype f32: no kernel is registered"),
              std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(HostAndDeviceMemory, ReadWithoutCopy, ::testing::Values("addmul", "addmuldev"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
