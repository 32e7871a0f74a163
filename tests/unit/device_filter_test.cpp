#include <xd/error.hpp>

#include "registry/device_filter.hpp"
#include "registry/device_spec.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The backends the plugins of a machine with the CPU and both XPU plugins declare.
const std::vector<DeviceFilter::Known> kKnown = {{"cpu", ""}, {"opencl", "xpu"}, {"levelzero", "xpu"}};

TEST(DeviceFilter, UnknownBackendIsAValueErrorNamingItAndTheKnownBackends) {
  try {
    DeviceFilter("!opencll").check_names(kKnown);
    FAIL() << "accepted a term naming no backend";
  } catch (const xd::ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "XD_DEVICES='!opencll': term '!opencll' names the backend 'opencll', which no plugin found declares; "
              "known backends: cpu, levelzero, opencl; families: xpu. A backend is known when a plugin in "
              "XD_PLUGIN_PATH or the plugin folder next to libxdispatch declares it, whether it then loaded or "
              "not; check the spelling, or put its plugin on XD_PLUGIN_PATH");
  }
}

TEST(DeviceFilter, UnknownBackendInAPlainTermAfterKnownOnesIsAValueErrorNamingThatTerm) {
  try {
    DeviceFilter("cpu;opencl:gpu;levelzro:0").check_names(kKnown);
    FAIL() << "accepted a term naming no backend";
  } catch (const xd::ValueError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("XD_DEVICES='cpu;opencl:gpu;levelzro:0': term 'levelzro:0' names the "
                                          "backend 'levelzro', which no plugin found declares; known backends: cpu, "
                                          "levelzero, opencl; families: xpu.",
                                          0),
              0u)
        << e.what();
  }
}

TEST(DeviceFilter, WithNoPluginFoundTheKnownBackendsAreNone) {
  try {
    DeviceFilter("cpu").check_names({});
    FAIL() << "accepted a term naming no backend";
  } catch (const xd::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("which no plugin found declares; known backends: none. A backend"),
              std::string::npos)
        << e.what();
  }
}

TEST(DeviceFilter, KnownBackendsFamiliesAndTheWildcardPassTheNameCheck) {
  EXPECT_NO_THROW(DeviceFilter("").check_names({}));
  EXPECT_NO_THROW(DeviceFilter("!*:cpu").check_names({}));
  EXPECT_NO_THROW(DeviceFilter("opencl:1;!levelzero;cpu:0;!xpu:cpu;xpu").check_names(kKnown));
}

TEST(DeviceFilter, FamilyTermMatchesEveryBackendOfTheFamily) {
  DeviceFilter hide("!xpu:gpu");
  EXPECT_FALSE(hide.rank("opencl", 0, DeviceKind::gpu, "xpu"));
  EXPECT_FALSE(hide.rank("levelzero", 0, DeviceKind::gpu, "xpu"));
  EXPECT_TRUE(hide.rank("opencl", 1, DeviceKind::cpu, "xpu"));
  EXPECT_TRUE(hide.rank("cpu", 0, DeviceKind::cpu));
  DeviceFilter only("xpu:gpu");  // a plain term: only GPUs of the family's backends, others untouched
  EXPECT_TRUE(only.rank("opencl", 0, DeviceKind::gpu, "xpu"));
  EXPECT_FALSE(only.rank("opencl", 1, DeviceKind::cpu, "xpu"));
  EXPECT_TRUE(only.rank("cpu", 0, DeviceKind::cpu));
  EXPECT_TRUE(only.rank("other", 0, DeviceKind::gpu, "otherfamily"));
}

TEST(DeviceFilter, FamilyWithADeviceNumberIsAValueErrorNamingItsBackends) {
  try {
    DeviceFilter("!xpu:1").check_names(kKnown);
    FAIL() << "accepted a device number on a family";
  } catch (const xd::ValueError& e) {
    EXPECT_EQ(std::string(e.what()),
              "XD_DEVICES='!xpu:1': term '!xpu:1' gives a device number to 'xpu', a family of backends (levelzero, "
              "opencl) that each count their own devices; name one of its backends (e.g. '!levelzero:1') or give a "
              "kind ('!xpu:gpu')");
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
