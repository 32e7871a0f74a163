// The Level Zero backend on a machine without a Level Zero driver (every machine of this
// project): the plugin is found and queried, init reports "unavailable: no Level Zero driver"
// with the loader's result code, XD_BACKEND=levelzero fails saying so, XD_BACKEND=xpu falls
// through to an OpenCL GPU or says no XPU device exists, and the CPU backend keeps working.
// Each test is its own process (gtest_discover_tests), so XD_BACKEND is read fresh. Where a
// driver is present the tests skip themselves: what they check does not apply there.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include <xd/plugin_abi.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// The report row of the levelzero plugin; nullptr-like (empty name) when it was not found.
xd::LoadReportRow levelzero_row() {
  for (const auto& row : xd::load_report())
    if (row.name == "levelzero") return row;
  return {};
}

bool levelzero_loaded() {
  for (const auto& b : xd::backends())
    if (b.name == "levelzero") return true;
  return false;
}

#define SKIP_WITH_A_DRIVER()                                                         \
  do {                                                                               \
    if (levelzero_loaded()) GTEST_SKIP() << "a Level Zero driver is present here"; \
  } while (0)

TEST(LevelZeroAbsentDriver, LoadReportRowSaysNoLevelZeroDriver) {
  SKIP_WITH_A_DRIVER();
  const xd::LoadReportRow row = levelzero_row();
  ASSERT_EQ(row.name, "levelzero") << "the plugin was not found or its query failed:\n" << xd::format_load_report();
  EXPECT_EQ(row.status, xd::LoadStatus::unavailable) << xd::load_status_name(row.status) << ": " << row.reason;
  EXPECT_NE(row.reason.find("no Level Zero driver"), std::string::npos) << row.reason;
  EXPECT_NE(row.reason.find("ZE_RESULT_"), std::string::npos) << "the loader's result code is missing: " << row.reason;
  // The query answered without a driver (with the ABI version the plugin was built against).
  EXPECT_EQ(row.abi, std::to_string(XD_ABI_MAJOR) + "." + std::to_string(XD_ABI_MINOR));
  const std::string table = xd::format_load_report();
  EXPECT_NE(table.find("no Level Zero driver"), std::string::npos) << table;
}

TEST(LevelZeroAbsentDriver, XdBackendLevelzeroFailsSayingWhy) {
  SKIP_WITH_A_DRIVER();
  setenv("XD_BACKEND", "levelzero", 1);
  try {
    (void)xd::default_device();
    FAIL() << "XD_BACKEND=levelzero picked a device without a Level Zero driver";
  } catch (const xd::BackendError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("levelzero: unavailable: no Level Zero driver"), std::string::npos) << msg;
  }
}

TEST(LevelZeroAbsentDriver, XdBackendXpuFallsThroughToAnOpenclGpuOrSaysNone) {
  SKIP_WITH_A_DRIVER();
  bool opencl_gpu = false;
  for (const xd::Device& d : xd::devices())
    if (d.backend() == "opencl" && d.properties().kind != xd::DeviceKind::cpu) opencl_gpu = true;
  setenv("XD_BACKEND", "xpu", 1);
  if (opencl_gpu) {
    EXPECT_EQ(xd::default_device().backend(), "opencl");
    return;
  }
  try {
    const xd::Device d = xd::default_device();
    FAIL() << "XD_BACKEND=xpu picked " << d.str() << " although no XPU device exists";
  } catch (const xd::BackendError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("xpu: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("no Level Zero driver"), std::string::npos) << "the load report should say why:\n" << msg;
  }
}

TEST(LevelZeroAbsentDriver, CpuStillWorks) {
  setenv("XD_BACKEND", "cpu", 1);
  const xd::Tensor a = xd::arange(4, xd::Dtype::f32);
  const xd::Tensor b = xd::add(a, a, 2.0);
  EXPECT_EQ(b.device().backend(), "cpu");
  const std::vector<float> v = b.to_vector<float>();
  ASSERT_EQ(v.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], 3.0f * static_cast<float>(i));
}

}  // namespace
