// Loading plugins that are broken on purpose: each gives its load-report status and a reason,
// and the CPU backend keeps working afterwards.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

std::string stub(const std::string& name) { return std::string(XD_STUB_DIR) + "/libxd_plugin_" + name + ".so"; }

void expect_cpu_still_works() {
  auto a = xd::full({3}, 2.0f, xd::Dtype::f32, xd::cpu());
  auto b = xd::full({3}, 5.0f, xd::Dtype::f32, xd::cpu());
  EXPECT_EQ(xd::add(a, b).to_vector<float>(), (std::vector<float>{7, 7, 7}));
}

TEST(Loader, CpuBackendIsLoadedFromTheBuildTree) {
  bool found = false;
  for (const auto& row : xd::load_report())
    if (row.name == "cpu") {
      EXPECT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
      EXPECT_EQ(row.abi, std::to_string(XD_ABI_MAJOR) + "." + std::to_string(XD_ABI_MINOR));
      found = true;
    }
  EXPECT_TRUE(found) << xd::format_load_report();
}

TEST(Loader, WorkingStubLoadsAndExposesItsDevice) {
  const auto row = xd::load_plugin(stub("stub_good"));
  EXPECT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
  EXPECT_EQ(row.name, "stubdev");
  const xd::Device d = xd::Device::parse("stubdev");
  EXPECT_EQ(d.properties().name, "stub device");
  EXPECT_EQ(d.properties().kind, xd::DeviceKind::accelerator);
  EXPECT_EQ(xd::full({4}, 3.0, xd::Dtype::f32, d).to_vector<float>(), (std::vector<float>{3, 3, 3, 3}));
  expect_cpu_still_works();
}

TEST(Loader, WrongAbiMajorIsAnAbiMismatchNamingBothVersions) {
  const auto row = xd::load_plugin(stub("stub_wrong_abi"));
  EXPECT_EQ(row.status, xd::LoadStatus::abi_mismatch);
  EXPECT_NE(row.reason.find("plugin ABI 99.0"), std::string::npos) << row.reason;
  EXPECT_NE(row.reason.find("host ABI " + std::to_string(XD_ABI_MAJOR) + "."), std::string::npos) << row.reason;
  expect_cpu_still_works();
}

TEST(Loader, MissingInitSymbolIsSymbolMissing) {
  const auto row = xd::load_plugin(stub("stub_no_init"));
  EXPECT_EQ(row.status, xd::LoadStatus::symbol_missing);
  EXPECT_NE(row.reason.find("xd_plugin_init"), std::string::npos) << row.reason;
  expect_cpu_still_works();
}

TEST(Loader, FailingInitIsInitFailedWithThePluginsMessage) {
  const auto row = xd::load_plugin(stub("stub_init_fails"));
  EXPECT_EQ(row.status, xd::LoadStatus::init_failed);
  EXPECT_EQ(row.reason, "stub: init failed on purpose");
  expect_cpu_still_works();
}

TEST(Loader, MissingDriverIsUnavailableWithTheReason) {
  const auto row = xd::load_plugin(stub("stub_unavailable"));
  EXPECT_EQ(row.status, xd::LoadStatus::unavailable);
  EXPECT_EQ(row.reason, "no stub driver is installed");
  expect_cpu_still_works();
}

TEST(Loader, ZeroDevicesIsNoDevices) {
  const auto row = xd::load_plugin(stub("stub_zero_devices"));
  EXPECT_EQ(row.status, xd::LoadStatus::no_devices);
  EXPECT_THROW(xd::Device::parse("nodevices"), xd::BackendError);
  expect_cpu_still_works();
}

TEST(Loader, FileThatIsNotASharedLibraryIsNotALibrary) {
  const auto row = xd::load_plugin(stub("garbage"));
  EXPECT_EQ(row.status, xd::LoadStatus::not_a_library);
  EXPECT_NE(row.reason.find("not an ELF"), std::string::npos) << row.reason;
  expect_cpu_still_works();
}

TEST(Loader, MissingFileIsNotFound) {
  const auto row = xd::load_plugin(stub("does_not_exist"));
  EXPECT_EQ(row.status, xd::LoadStatus::not_found);
  expect_cpu_still_works();
}

TEST(Loader, MissingDependencyNamesTheLibrary) {
  const auto row = xd::load_plugin(stub("stub_needs_dep"));
  EXPECT_EQ(row.status, xd::LoadStatus::dependency_missing) << row.reason;
  EXPECT_NE(row.reason.find("libxd_stub_dep.so"), std::string::npos) << row.reason;
  expect_cpu_still_works();
}

TEST(Loader, SecondPluginWithTheSameNameIsADuplicate) {
  const auto first = xd::load_plugin(stub("stub_twin_a"));
  ASSERT_EQ(first.status, xd::LoadStatus::loaded) << first.reason;
  const auto second = xd::load_plugin(stub("stub_twin_b"));
  EXPECT_EQ(second.status, xd::LoadStatus::duplicate);
  EXPECT_NE(second.reason.find(stub("stub_twin_a")), std::string::npos) << second.reason;
  int twins = 0;
  for (const auto& b : xd::backends()) twins += b.name == "twin";
  EXPECT_EQ(twins, 1);
  expect_cpu_still_works();
}

TEST(Loader, LoadingTheSameFileAgainReturnsItsLoadedRowWithoutANewReportRow) {
  const auto first = xd::load_plugin(stub("stub_good"));
  ASSERT_EQ(first.status, xd::LoadStatus::loaded) << first.reason;
  const size_t rows = xd::load_report().size();
  const size_t backends = xd::backends().size();
  const auto again = xd::load_plugin(stub("stub_good"));
  EXPECT_EQ(again.status, xd::LoadStatus::loaded) << again.reason;
  EXPECT_EQ(again.name, "stubdev");
  EXPECT_EQ(again.path, first.path);
  EXPECT_EQ(again.reason, first.reason);
  EXPECT_EQ(xd::load_report().size(), rows);
  EXPECT_EQ(xd::backends().size(), backends);
}

TEST(Loader, TheSameFileUnderAnotherSpellingIsTheSamePlugin) {
  ASSERT_EQ(xd::load_plugin(stub("stub_good")).status, xd::LoadStatus::loaded);
  const size_t rows = xd::load_report().size();
  // "<dir>/./libxd_plugin_stub_good.so": another path string for the same file.
  const auto again = xd::load_plugin(std::string(XD_STUB_DIR) + "/./libxd_plugin_stub_good.so");
  EXPECT_EQ(again.status, xd::LoadStatus::loaded) << again.reason;
  EXPECT_EQ(again.path, stub("stub_good"));
  EXPECT_EQ(xd::load_report().size(), rows);
  int stubs = 0;
  for (const auto& b : xd::backends()) stubs += b.name == "stubdev";
  EXPECT_EQ(stubs, 1);
}

TEST(Loader, AFailedFileIsTriedAgainAndGetsANewRow) {
  (void)xd::load_plugin(stub("stub_init_fails"));
  const size_t rows = xd::load_report().size();
  const auto again = xd::load_plugin(stub("stub_init_fails"));
  EXPECT_EQ(again.status, xd::LoadStatus::init_failed);
  EXPECT_EQ(xd::load_report().size(), rows + 1);
}

TEST(Loader, PluginWithAnOlderShorterApiTableLoads) {
  const auto row = xd::load_plugin(stub("stub_old_api"));
  EXPECT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
  EXPECT_EQ(xd::full({2}, 1.0, xd::Dtype::f32, xd::Device::parse("oldapi")).to_vector<float>(),
            (std::vector<float>{1, 1}));
}

TEST(Loader, EveryAttemptAppearsInTheReportAndItsText) {
  (void)xd::load_plugin(stub("stub_wrong_abi"));
  (void)xd::load_plugin(stub("garbage"));
  const std::string text = xd::format_load_report();
  EXPECT_NE(text.find("abi mismatch"), std::string::npos) << text;
  EXPECT_NE(text.find("not a library"), std::string::npos) << text;
  EXPECT_NE(text.find("loaded"), std::string::npos) << text;
}

TEST(Loader, MissingKernelWithoutFallbackNamesOpBackendDtypeAndTheFix) {
  ASSERT_EQ(xd::load_plugin(stub("stub_good")).status, xd::LoadStatus::loaded);
  const xd::Device d = xd::Device::parse("stubdev");
  auto a = xd::full({2}, 1.0, xd::Dtype::f32, d);
  try {
    (void)xd::add(a, a);
    FAIL() << "expected NotImplementedError";
  } catch (const xd::NotImplementedError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("add"), std::string::npos) << m;
    EXPECT_NE(m.find("stubdev"), std::string::npos) << m;
    EXPECT_NE(m.find("f32"), std::string::npos) << m;
    EXPECT_NE(m.find("XD_FALLBACK=cpu"), std::string::npos) << m;
  }
}

TEST(Loader, TensorsMoveBetweenBackends) {
  ASSERT_EQ(xd::load_plugin(stub("stub_good")).status, xd::LoadStatus::loaded);
  const xd::Device d = xd::Device::parse("stubdev");
  auto x = xd::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}, xd::cpu());
  auto on_stub = x.t().to(d);  // non-contiguous source
  EXPECT_EQ(on_stub.device(), d);
  EXPECT_EQ(on_stub.to(xd::cpu()).to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

}  // namespace
