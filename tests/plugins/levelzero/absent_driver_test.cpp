// The Level Zero backend on a machine without a Level Zero driver (every machine of this
// project): the plugin is found and queried, init reports "unavailable: no Level Zero driver"
// with the loader's result code, XD_BACKEND=levelzero fails saying so, XD_BACKEND=xpu falls
// through to an OpenCL GPU or says no XPU device exists, and the CPU backend keeps working.
//
// Whether a driver is present is asked of the Level Zero loader itself (driver_probe.hpp), never
// of xdispatch: where one is, the tests skip (what they check does not apply there); where none
// is, they must run and pass, so a plugin that loads or fails wrongly is a failure, not a skip.
// The core reads XD_BACKEND once per process, so each XD_BACKEND case runs xd_test_default_device
// in a child process; the binary is correct run whole or one test at a time.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include "driver_probe.hpp"
#include "support/run_command.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

// The report row of the levelzero plugin; an empty name when it was not found.
xd::LoadReportRow levelzero_row() {
  for (const auto& row : xd::load_report())
    if (row.name == "levelzero") return row;
  return {};
}

// XD_BACKEND=<value> in a fresh process, the rest of the environment as this test has it.
xd::test::CommandResult default_device_with(const std::string& xd_backend) {
  return xd::test::run_command("env XD_BACKEND='" + xd_backend + "' '" XD_DEFAULT_DEVICE_BIN "'");
}

#define SKIP_WITH_A_DRIVER()                                                                           \
  do {                                                                                                 \
    const xd::test::level_zero_probe probe = xd::test::probe_level_zero_driver();                      \
    if (probe.present) GTEST_SKIP() << "a Level Zero driver is present here (" << probe.detail << ")"; \
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
  const auto r = default_device_with("levelzero");
  EXPECT_EQ(r.status, 1) << "XD_BACKEND=levelzero did not fail with a BackendError:\n" << r.output;
  EXPECT_NE(r.output.find("BackendError: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("levelzero: unavailable: no Level Zero driver"), std::string::npos) << r.output;
}

TEST(LevelZeroAbsentDriver, XdBackendXpuFallsThroughToAnOpenclGpuOrSaysNone) {
  SKIP_WITH_A_DRIVER();
  bool opencl_gpu = false;
  for (const xd::Device& d : xd::devices())
    if (d.backend() == "opencl" && d.properties().kind != xd::DeviceKind::cpu) opencl_gpu = true;
  const auto r = default_device_with("xpu");
  if (opencl_gpu) {
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(" backend=opencl "), std::string::npos) << r.output;
    return;
  }
  EXPECT_EQ(r.status, 1) << "XD_BACKEND=xpu picked a device although no XPU device exists:\n" << r.output;
  EXPECT_NE(r.output.find("xpu: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no Level Zero driver"), std::string::npos) << "the load report should say why:\n"
                                                                      << r.output;
}

TEST(LevelZeroAbsentDriver, CpuStillWorks) {
  const xd::Tensor a = xd::arange(4, xd::Dtype::f32, xd::cpu());
  const xd::Tensor b = xd::add(a, a, 2.0);
  EXPECT_EQ(b.device().backend(), "cpu");
  const std::vector<float> v = b.to_vector<float>();
  ASSERT_EQ(v.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], 3.0f * static_cast<float>(i));
  const auto r = default_device_with("cpu");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("default device: cpu:0 backend=cpu"), std::string::npos) << r.output;
}

}  // namespace
