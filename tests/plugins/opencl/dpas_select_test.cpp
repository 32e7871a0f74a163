// Which OpenCL devices get the matmul family's DPAS kernel (plugins/xpu/opencl/runtime/dpas.cpp),
// decided for made-up devices: the extension and the two it depends on, the smallest sub-group
// size (8 or 16: the extension's layouts), the work-group, and XD_OPENCL_MATMUL_DPAS. No OpenCL
// call: the plugin feeds the same function CL_DEVICE_EXTENSIONS and CL_DEVICE_SUB_GROUP_SIZES_INTEL.
#include "runtime/dpas.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using xd::ocl::choose_dpas;

const std::string kIntel =
    "cl_khr_fp16 cl_intel_subgroups cl_intel_required_subgroup_size cl_intel_subgroup_matrix_multiply_accumulate "
    "cl_khr_subgroups";
const std::vector<int64_t> kXeHpg = {8, 16, 32};  // Arc A-series, Meteor Lake
const std::vector<int64_t> kXeHpc = {16, 32};     // Ponte Vecchio, Lunar Lake, Battlemage

TEST(OpenclDpasSelection, AnIntelDeviceWithTheExtensionGetsItsSmallestSubGroupSize) {
  auto c = choose_dpas("auto", kIntel, kXeHpg, 1024);
  EXPECT_EQ(c.sub_group, 8);
  EXPECT_FALSE(c.emulated);
  c = choose_dpas("auto", kIntel, kXeHpc, 1024);
  EXPECT_EQ(c.sub_group, 16);
  EXPECT_EQ(c.why, "cl_intel_subgroup_matrix_multiply_accumulate, sub-group size 16");
  EXPECT_EQ(choose_dpas("auto", kIntel, std::vector<int64_t>{32, 16}, 1024).sub_group, 16) << "sizes in any order";
}

TEST(OpenclDpasSelection, AMissingExtensionOrALayoutlessSubGroupSizeDeclinesSayingWhich) {
  auto c = choose_dpas("auto", "cl_khr_fp16 cl_intel_subgroups cl_intel_required_subgroup_size", kXeHpc, 1024);
  EXPECT_EQ(c.sub_group, 0);
  EXPECT_EQ(c.why, "the device does not report cl_intel_subgroup_matrix_multiply_accumulate");
  // A name that merely contains the extension's is not it.
  c = choose_dpas(
      "auto", "cl_intel_subgroups cl_intel_required_subgroup_size cl_intel_subgroup_matrix_multiply_accumulate_tf32",
      kXeHpc, 1024);
  EXPECT_EQ(c.sub_group, 0);
  c = choose_dpas("auto", "cl_intel_subgroups cl_intel_subgroup_matrix_multiply_accumulate", kXeHpc, 1024);
  EXPECT_EQ(c.why, "the device does not report cl_intel_required_subgroup_size");
  c = choose_dpas("auto", "cl_intel_required_subgroup_size cl_intel_subgroup_matrix_multiply_accumulate", kXeHpc, 1024);
  EXPECT_EQ(c.why, "the device does not report cl_intel_subgroups");
  c = choose_dpas("auto", kIntel, std::vector<int64_t>{}, 1024);
  EXPECT_EQ(c.sub_group, 0);
  EXPECT_EQ(c.why, "the device reports no CL_DEVICE_SUB_GROUP_SIZES_INTEL");
  c = choose_dpas("auto", kIntel, std::vector<int64_t>{32}, 1024);
  EXPECT_EQ(c.sub_group, 0);
  EXPECT_EQ(c.why, "its smallest sub-group size is neither 8 nor 16");
  c = choose_dpas("auto", kIntel, kXeHpc, 32);
  EXPECT_EQ(c.sub_group, 0);
  EXPECT_EQ(c.why, "a work-group of 64 work-items exceeds the device's 32");
}

TEST(OpenclDpasSelection, ZeroTurnsItOffAndEmulateForcesItOnAnyDevice) {
  auto c = choose_dpas("0", kIntel, kXeHpc, 1024);
  EXPECT_EQ(c.sub_group, 0);
  EXPECT_EQ(c.why, "XD_OPENCL_MATMUL_DPAS=0");
  const std::string pocl = "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_fp16";
  c = choose_dpas("emulate8", pocl, {}, 4096);
  EXPECT_EQ(c.sub_group, 8);
  EXPECT_TRUE(c.emulated);
  c = choose_dpas("emulate16", pocl, {}, 4096);
  EXPECT_EQ(c.sub_group, 16);
  EXPECT_TRUE(c.emulated);
  EXPECT_EQ(choose_dpas("emulate", pocl, {}, 4096).sub_group, 16);
  // Emulated on a device that has the builtins too: the option wins (a test mode).
  c = choose_dpas("emulate8", kIntel, kXeHpc, 1024);
  EXPECT_EQ(c.sub_group, 8);
  EXPECT_TRUE(c.emulated);
  EXPECT_EQ(choose_dpas("emulate16", pocl, {}, 32).sub_group, 0) << "the work-group must still fit";
  EXPECT_EQ(choose_dpas("auto", pocl, {}, 4096).sub_group, 0) << "PoCL reports no extension";
}

}  // namespace
