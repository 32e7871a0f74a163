// The stand-in XPU backends of the pinned-memory tests (tests/abi/stubs/stub_plugin.c, built into
// XD_PINNED_STUB_DIR): "pinstub", whose plugin provides host_alloc/host_free and whose events stay
// pending while the test says so, and "devstub", a device-memory backend without host_alloc.
// Loading one that does not load fails the calling test.
#pragma once

#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>

namespace xd::test {

inline std::string pinned_stub_path(const char* target) {
  return std::string(XD_PINNED_STUB_DIR) + "/libxd_plugin_" + target + ".so";
}

inline xd::Device load_pinned_stub(const char* target, const char* backend) {
  const auto row = xd::load_plugin(pinned_stub_path(target));
  EXPECT_EQ(row.status, xd::LoadStatus::loaded) << row.reason;
  return xd::Device::parse(backend);
}

inline xd::Device pinstub() { return load_pinned_stub("stub_pinned", "pinstub"); }
inline xd::Device devstub() { return load_pinned_stub("stub_devmem", "devstub"); }

// While true, every event of pinstub reads as not complete: its copies are "in flight".
inline void set_pinstub_pending(bool pending) {
  (void)pinstub();
  void* lib = dlopen(pinned_stub_path("stub_pinned").c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto* set = reinterpret_cast<void (*)(int)>(dlsym(lib, "xd_stub_set_pending"));
  ASSERT_NE(set, nullptr) << dlerror();
  set(pending ? 1 : 0);
  dlclose(lib);  // drops only the reference taken here
}

}  // namespace xd::test
