// xd::version(), plugin_abi_version() and build_commit(): what the loaded library says it is,
// which the tools print for --version and write into their JSON files.
#include <xd/plugin_abi.h>
#include <xd/version.hpp>

#include <gtest/gtest.h>

#include <regex>
#include <string>

TEST(Version, TheLibraryVersionIsTheProjectVersion) { EXPECT_STREQ(xd::version(), XD_PROJECT_VERSION); }

TEST(Version, ThePluginAbiIsTheOneTheHeadersDeclare) {
  EXPECT_EQ(std::string(xd::plugin_abi_version()), std::to_string(XD_ABI_MAJOR) + "." + std::to_string(XD_ABI_MINOR));
}

TEST(Version, TheCommitIsAShortHashMaybeDirtyOrUnknown) {
  const std::string commit = xd::build_commit();
  EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{7,40}(-dirty)?|unknown"))) << commit;
}
