// include/xd/plugin.hpp, the plugin author's toolbox, tested on its own (it is header-only): the
// declared-option parser, decline(), the registration list and the checked call accessors.
#include <xd/plugin.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

namespace plugin = xd::plugin;

// A host that records what the toolbox sends it.
struct recording_host {
  std::vector<std::string> logs;
  std::string error;
  std::vector<std::string> registered;  // "name/op/dtype"
  xd_host_api api{};
  recording_host() {
    api.struct_size = sizeof api;
    api.ctx = this;
    api.log = [](void* ctx, int32_t, const char* m) { static_cast<recording_host*>(ctx)->logs.emplace_back(m); };
    api.set_error = [](void* ctx, xd_status code, const char* m) {
      static_cast<recording_host*>(ctx)->error = m;
      return code;
    };
    api.register_kernel = [](void* ctx, const xd_kernel_desc* d) {
      static_cast<recording_host*>(ctx)->registered.push_back(std::string(d->name) + "/" + std::to_string(d->op) + "/" +
                                                              std::to_string(d->dtype));
      return XD_OK;
    };
    plugin::this_plugin().host.set(&api);
    xd_plugin_info info{};
    info.struct_size = sizeof info;
    plugin::fill_info(&info, "toolbox", "0", "test", XD_DEVICE_KIND_CPU);
  }
  ~recording_host() { plugin::this_plugin().host.set(nullptr); }
};

xd_option_desc integer_option(const char* name, int64_t lo, int64_t hi, const char* def) {
  xd_option_desc o{};
  o.struct_size = sizeof o;
  o.name = name;
  o.kind = XD_OPTION_INTEGER;
  o.count = 1;
  o.min[0] = lo;
  o.max[0] = hi;
  o.default_value = def;
  o.doc = "test";
  return o;
}

TEST(PluginOptions, UnsetOrEmptyGivesTheDeclaredDefault) {
  recording_host h;
  const xd_option_desc o = integer_option("XD_TOOLBOX_TEST_LEVEL", 1, 64, "2");
  ::unsetenv(o.name);
  EXPECT_EQ(plugin::option_integer(o), 2);
  ::setenv(o.name, "", 1);
  EXPECT_EQ(plugin::option_integer(o), 2);
  EXPECT_FALSE(plugin::read_option(o).from_environment);
  EXPECT_TRUE(h.logs.empty());
}

TEST(PluginOptions, AValueInRangeIsTakenAndOneOutsideWarnsAndKeepsTheDefault) {
  recording_host h;
  const xd_option_desc o = integer_option("XD_TOOLBOX_TEST_LEVEL", 1, 64, "2");
  ::setenv(o.name, "64", 1);
  EXPECT_EQ(plugin::option_integer(o), 64);
  for (const char* bad : {"65", "0", "-3", "7x", " 7", "1,2", "99999999999999999999"}) {
    ::setenv(o.name, bad, 1);
    h.logs.clear();
    EXPECT_EQ(plugin::option_integer(o), 2) << bad;
    ASSERT_EQ(h.logs.size(), 1u) << bad;
    EXPECT_EQ(h.logs[0],
              std::string("XD_TOOLBOX_TEST_LEVEL='") + bad + "' is not valid (accepted: 1..64); using the default 2");
  }
  ::unsetenv(o.name);
}

TEST(PluginOptions, FlagsChoicesTextAndIntegerListsParseAsDeclared) {
  recording_host h;
  xd_option_desc flag = integer_option("XD_TOOLBOX_TEST_FLAG", 0, 0, "1");
  flag.kind = XD_OPTION_FLAG;
  ::setenv(flag.name, "0", 1);
  EXPECT_FALSE(plugin::option_flag(flag));
  ::setenv(flag.name, "yes", 1);
  EXPECT_TRUE(plugin::option_flag(flag));  // warned, default 1
  EXPECT_EQ(plugin::accepted_text(flag), "0 or 1");

  xd_option_desc choice = integer_option("XD_TOOLBOX_TEST_MODE", 0, 0, "");
  choice.kind = XD_OPTION_CHOICE;
  choice.choices = "kernel|marker";
  ::setenv(choice.name, "marker", 1);
  EXPECT_EQ(plugin::option_text(choice), "marker");
  ::setenv(choice.name, "kernel|marker", 1);
  EXPECT_EQ(plugin::option_text(choice), "");  // not one choice: the default, unset
  EXPECT_EQ(plugin::accepted_text(choice), "kernel, marker");

  xd_option_desc text = integer_option("XD_TOOLBOX_TEST_TEXT", 0, 0, "");
  text.kind = XD_OPTION_TEXT;
  ::setenv(text.name, "-DX=1 -cl-mad-enable", 1);
  EXPECT_EQ(plugin::option_text(text), "-DX=1 -cl-mad-enable");

  xd_option_desc list = integer_option("XD_TOOLBOX_TEST_SHAPE", 1, 256, "32,8");
  list.kind = XD_OPTION_INTEGERS;
  list.count = 2;
  list.min[1] = 1;
  list.max[1] = 64;
  list.choices = "lanes,cols";
  EXPECT_EQ(plugin::accepted_text(list), "lanes,cols in 1..256,1..64");
  ::setenv(list.name, "16,4", 1);
  auto v = plugin::read_option(list);
  EXPECT_TRUE(v.from_environment);
  EXPECT_EQ(v.integers[0], 16);
  EXPECT_EQ(v.integers[1], 4);
  for (const char* bad : {"16", "16,4,2", "16,65", "16,,4", ",4", "16,4,"}) {
    ::setenv(list.name, bad, 1);
    v = plugin::read_option(list);
    EXPECT_FALSE(v.from_environment) << bad;
    EXPECT_EQ(v.integers[0], 32) << bad;
    EXPECT_EQ(v.integers[1], 8) << bad;
  }
  for (const char* n : {flag.name, choice.name, text.name, list.name}) ::unsetenv(n);
}

TEST(PluginOptions, ADefaultTheDeclarationDoesNotAcceptIsAnInternalError) {
  recording_host h;
  const xd_option_desc o = integer_option("XD_TOOLBOX_TEST_BAD", 1, 4, "9");
  try {
    (void)plugin::read_option(o);
    FAIL() << "no error";
  } catch (const plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_INTERNAL);
    EXPECT_STREQ(e.what(), "toolbox: option XD_TOOLBOX_TEST_BAD declares a default it does not accept");
  }
}

TEST(PluginDecline, WritesTheReasonCutToTheBufferAndReturnsZero) {
  char buf[8];
  EXPECT_EQ(plugin::decline(buf, sizeof buf, "f64 without cl_khr_fp64"), 0);
  EXPECT_STREQ(buf, "f64 wit");
}

xd_status ok_kernel(const xd_kernel_call*) { return XD_OK; }
xd_kernel_fn only_f32(xd_dtype d) { return d == XD_DTYPE_F32 ? ok_kernel : nullptr; }
bool not_f16(xd_dtype d) { return d != XD_DTYPE_F16; }

TEST(PluginRegistration, TheListRegistersInOrderUnderThePluginsNameSkippingUnavailableDtypes) {
  recording_host h;
  plugin::registrar r(&h.api);
  const plugin::kernel_def list[] = {
      {XD_OP_MM, "mm.fast", xd::DtypeSet{XD_DTYPE_F32, XD_DTYPE_F16}, ok_kernel, nullptr, nullptr, nullptr, not_f16},
      {XD_OP_MM, "mm.loop", xd::DtypeSet{XD_DTYPE_F16}, ok_kernel},
  };
  plugin::register_kernels(r, list);
  EXPECT_EQ(h.registered, (std::vector<std::string>{"toolbox.mm.fast/32/1", "toolbox.mm.loop/32/2"}));
  EXPECT_EQ(r.count(), 2);
}

TEST(PluginRegistration, ADtypeWithoutAFunctionIsAnInternalError) {
  recording_host h;
  plugin::registrar r(&h.api);
  const plugin::kernel_def typed{XD_OP_ADD, "add", xd::DtypeSet{XD_DTYPE_F32, XD_DTYPE_I8}, nullptr, only_f32};
  try {
    plugin::register_kernel(r, typed);
    FAIL() << "no error";
  } catch (const plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_INTERNAL);
    EXPECT_STREQ(e.what(), "toolbox.add lists a dtype it has no function for: i8");
  }
}

TEST(PluginAccessors, MissingViewsAndShortAttributeStructsAreInvalidArguments) {
  recording_host h;
  xd_view in{};
  in.struct_size = sizeof in;
  in.ndim = -1;  // absent
  xd_attrs_scalar short_attrs{};
  short_attrs.struct_size = 4;
  xd_kernel_call c{};
  c.struct_size = sizeof c;
  c.op = XD_OP_ADD;
  c.num_inputs = 1;
  c.inputs = &in;
  c.attrs = &short_attrs;
  EXPECT_EQ(plugin::optional_input(&c, 0), nullptr);
  EXPECT_EQ(plugin::optional_input(&c, 3), nullptr);
  try {
    (void)plugin::input(&c, 0);
    FAIL();
  } catch (const plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "toolbox: kernel for op 5 needs input 0");
  }
  try {
    (void)plugin::find_attrs<xd_attrs_scalar>(&c);
    FAIL();
  } catch (const plugin::error& e) {
    EXPECT_STREQ(e.what(), "toolbox: attribute struct of op 5 is too small (4 bytes, expected 24)");
  }
  try {
    (void)plugin::workspace(&c, 16);
    FAIL();
  } catch (const plugin::error& e) {
    EXPECT_STREQ(e.what(), "toolbox: the host gave no workspace callback");
  }
}

}  // namespace
