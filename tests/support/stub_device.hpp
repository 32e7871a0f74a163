// A second device for the bad-input tests of operands on two devices: the stub plugin's
// (tests/abi/stubs: one real host-memory device that tensors move to and back), loaded on first
// use so that such a case never passes vacuously where cpu is the only backend: if the plugin does
// not load, the calling test fails. Needs XD_STUB_DIR (the stubs' build directory).
#pragma once

#include <xd/xd.hpp>

#include <gtest/gtest.h>

namespace xd::test {

inline Device stub_device() {
  const auto row = load_plugin(XD_STUB_DIR "/libxd_plugin_stub_good.so");
  EXPECT_EQ(row.status, LoadStatus::loaded) << row.reason;
  return Device::parse("stubdev");  // throws (failing the test) when it did not load
}

}  // namespace xd::test
