#include <xd/error.hpp>

#include "registry/device_filter.hpp"
#include "registry/device_spec.hpp"

#include <gtest/gtest.h>

namespace {

using xd::DeviceKind;
using xd::detail::DeviceFilter;

TEST(DeviceFilter, EmptyShowsEverything) {
  DeviceFilter f("");
  EXPECT_TRUE(f.rank("cpu", 0, DeviceKind::cpu));
  EXPECT_TRUE(f.rank("opencl", 3, DeviceKind::gpu));
}

TEST(DeviceFilter, PlainKindTermShowsOnlyThatKindOfItsBackend) {
  DeviceFilter f("opencl:gpu");
  EXPECT_TRUE(f.rank("opencl", 0, DeviceKind::gpu));
  EXPECT_FALSE(f.rank("opencl", 1, DeviceKind::cpu));
  EXPECT_TRUE(f.rank("cpu", 0, DeviceKind::cpu));  // other backends untouched
}

TEST(DeviceFilter, ExclusionHidesAndFirstMatchingTermWins) {
  DeviceFilter f("!opencl:cpu;opencl");
  EXPECT_FALSE(f.rank("opencl", 0, DeviceKind::cpu));
  EXPECT_TRUE(f.rank("opencl", 1, DeviceKind::gpu));
}

TEST(DeviceFilter, WildcardExclusionHidesEveryBackend) {
  DeviceFilter f("cpu;!*");
  EXPECT_TRUE(f.rank("cpu", 0, DeviceKind::cpu));
  EXPECT_FALSE(f.rank("opencl", 0, DeviceKind::gpu));
}

TEST(DeviceFilter, IndexTermsOrderTheVisibleDevices) {
  DeviceFilter f("opencl:1,opencl:0");
  EXPECT_LT(*f.rank("opencl", 1, DeviceKind::gpu), *f.rank("opencl", 0, DeviceKind::gpu));
  EXPECT_FALSE(f.rank("opencl", 2, DeviceKind::gpu));
}

TEST(DeviceFilter, MalformedTermsAreValueErrorsNamingTheTerm) {
  for (const char* bad : {"opencl:", "OpenCL", "opencl:fast", "!:0", "cpu:12345", "9cpu"}) {
    try {
      DeviceFilter f(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const xd::ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("XD_DEVICES"), std::string::npos) << e.what();
    }
  }
}

}  // namespace

// The one NAME[:QUALIFIER] parser behind XD_BACKEND, Device::parse and XD_DEVICES.
namespace {

using xd::detail::parse_device_spec;

TEST(DeviceSpec, NameAloneIsIndexZeroAndNameColonIndexParses) {
  ASSERT_TRUE(parse_device_spec("opencl"));
  EXPECT_EQ(parse_device_spec("opencl")->name, "opencl");
  EXPECT_EQ(parse_device_spec("opencl")->index, 0);
  ASSERT_TRUE(parse_device_spec("level_zero2:17"));
  EXPECT_EQ(parse_device_spec("level_zero2:17")->name, "level_zero2");
  EXPECT_EQ(parse_device_spec("level_zero2:17")->index, 17);
}

TEST(DeviceSpec, MalformedIndicesAreRejected) {
  for (const char* bad : {"cpu:", "cpu:x", "cpu:-1", "cpu:12345", "cpu:1:2", "cpu: 1"})
    EXPECT_FALSE(parse_device_spec(bad)) << bad;
}

TEST(DeviceSpec, BackendNamesFollowThePluginRule) {
  for (const char* good : {"cpu", "a", "opencl_2", "x9"}) EXPECT_TRUE(xd::detail::valid_backend_name(good)) << good;
  for (const char* bad : {"", "9x", "Cpu", "a-b", "a b", "_x", "abcdefghijklmnopqrstuvwxyz0123456"})
    EXPECT_FALSE(xd::detail::valid_backend_name(bad)) << bad;
}

TEST(DeviceSpec, KindQualifiersAreTheThreeDeviceKinds) {
  EXPECT_EQ(xd::detail::parse_device_kind("gpu"), DeviceKind::gpu);
  EXPECT_EQ(xd::detail::parse_device_kind("accelerator"), DeviceKind::accelerator);
  EXPECT_EQ(xd::detail::parse_device_kind("cpu"), DeviceKind::cpu);
  EXPECT_FALSE(xd::detail::parse_device_kind("GPU"));
  EXPECT_FALSE(xd::detail::parse_device_kind("0"));
}

}  // namespace
