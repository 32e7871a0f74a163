#include <xd/error.hpp>

#include "registry/device_filter.hpp"

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
