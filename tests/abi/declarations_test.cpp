// What a plugin declares beyond its kernels (ABI 1.2), as the host reads it: the reasons kernels
// give for declining a call, the options a plugin reads, and the host-reference role.
#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include "support/throws_exactly.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string stub(const std::string& name) { return std::string(XD_STUB_DIR) + "/libxd_plugin_" + name + ".so"; }

std::string add_error_on(const xd::Device& d) {
  const auto a = xd::full({4}, 1.0f, xd::Dtype::f32, d);
  try {
    (void)xd::add(a, a);
  } catch (const xd::NotImplementedError& e) {
    return e.what();
  }
  ADD_FAILURE() << "add on " << d.str() << " did not raise NotImplementedError";
  return {};
}

TEST(KernelDeclines, EveryKernelsReasonIsInTheErrorInTheOrderTheyWereTried) {
  ASSERT_EQ(xd::load_plugin(stub("stub_declines")).status, xd::LoadStatus::loaded);
  const std::string m = add_error_on(xd::Device::parse("declines"));
  EXPECT_NE(m.find("add on backend 'declines' with dtype f32: every registered kernel declined this call ("),
            std::string::npos)
      << m;
  const auto reason = m.find("declines.add.reason: this stub takes no call (f32 add of 2 inputs); ");
  const auto unterminated = m.find("declines.add.unterminated: ");
  const auto old =
      m.find("declines.add.old: its supports() declined (it gives no reason: a plugin built before ABI 1.2)");
  ASSERT_NE(reason, std::string::npos) << m;
  ASSERT_NE(unterminated, std::string::npos) << m;
  ASSERT_NE(old, std::string::npos) << m;
  EXPECT_LT(reason, unterminated);
  EXPECT_LT(unterminated, old);
}

TEST(KernelDeclines, AReasonThatFillsTheBufferWithoutATerminatorIsCutNotOverrun) {
  ASSERT_EQ(xd::load_plugin(stub("stub_declines")).status, xd::LoadStatus::loaded);
  const std::string m = add_error_on(xd::Device::parse("declines"));
  const std::string head = "declines.add.unterminated: ";
  const auto at = m.find(head);
  ASSERT_NE(at, std::string::npos) << m;
  const auto end = m.find(';', at);
  ASSERT_NE(end, std::string::npos) << m;
  const std::string reason = m.substr(at + head.size(), end - at - head.size());
  EXPECT_EQ(reason.find_first_not_of('x'), std::string::npos) << reason;
  EXPECT_GE(reason.size(), 63u);   // the ABI promises at least 64 bytes, the terminator included
  EXPECT_LT(reason.size(), 512u);  // and the host cut it at its buffer
}

TEST(KernelDeclines, ADisabledKernelSaysSo) {
  ASSERT_EQ(xd::load_plugin(stub("stub_declines")).status, xd::LoadStatus::loaded);
  xd::set_kernel_enabled("declines.add.reason", false);
  const std::string m = add_error_on(xd::Device::parse("declines"));
  EXPECT_NE(m.find("declines.add.reason: disabled by xd::set_kernel_enabled"), std::string::npos) << m;
}

TEST(PluginOptions, DeclaredOptionsAreInTheLoadReportWithTheirAcceptedValuesAndDefaults) {
  const auto row = xd::load_plugin(stub("stub_options"));
  ASSERT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
  ASSERT_EQ(row.options.size(), 5u);
  const auto expect = [&](size_t i, const char* name, const char* kind, const char* accepted, const char* def) {
    EXPECT_EQ(row.options[i].name, name);
    EXPECT_EQ(row.options[i].kind, kind) << name;
    EXPECT_EQ(row.options[i].accepted, accepted) << name;
    EXPECT_EQ(row.options[i].default_value, def) << name;
    EXPECT_FALSE(row.options[i].doc.empty()) << name;
  };
  expect(0, "XD_STUB_LEVEL", "integer", "1..64", "2");
  expect(1, "XD_STUB_FAST", "flag", "0 or 1", "1");
  expect(2, "XD_STUB_MODE", "choice", "quiet, loud", "quiet");
  expect(3, "XD_STUB_SHAPE", "integers", "rows,cols in 1..8,1..16", "2,4");
  expect(4, "XD_STUB_FLAGS", "text", "any text", "");
  bool reported = false;
  for (const auto& r : xd::load_report()) reported |= r.name == "options" && r.options.size() == 5;
  EXPECT_TRUE(reported);
}

TEST(PluginOptions, AMalformedDeclarationFailsTheLoadNamingTheOption) {
  const auto row = xd::load_plugin(stub("stub_bad_option"));
  EXPECT_EQ(row.status, xd::LoadStatus::init_failed);
  EXPECT_NE(row.reason.find("option 0 (XD_STUB_BROKEN) has an invalid declaration"), std::string::npos) << row.reason;
}

TEST(HostReference, TheCpuPluginDeclaresItAndIsXdCpu) {
  EXPECT_EQ(xd::cpu().str(), "cpu:0");
  EXPECT_TRUE(xd::cpu().properties().host_pointers);
  for (const auto& b : xd::backends()) EXPECT_EQ(b.host_reference, b.name == "cpu") << b.name;
  ASSERT_EQ(xd::load_plugin(stub("stub_good")).status, xd::LoadStatus::loaded);
  // A host-memory CPU-less stub loaded later takes no part in it.
  EXPECT_EQ(xd::cpu().str(), "cpu:0");
}

}  // namespace
