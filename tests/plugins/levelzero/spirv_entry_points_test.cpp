// The embedded SPIR-V modules against the XPU kernel list: for every module, the set of its
// OpEntryPoints equals the entry points the list registers or launches for its dtype (plus the
// few it names as compiled but unused, each with a reason there); and every
// (source, dtype[, weight dtype]) the list uses has its modules. Driver-free: it reads the bytes
// the plugin embeds.
#include "common/kernel_list.hpp"
#include "spirv/spirv_modules.hpp"
#include "spirv_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace {

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : " ") + x;
  return out.empty() ? "(none)" : out;
}

TEST(LevelZeroSpirv, ModulesAreEmbedded) {
  size_t n = 0;
  xd::l0::spirv_modules(&n);
  EXPECT_GT(n, 0u);
}

TEST(LevelZeroSpirv, EntryPointsEqualTheRegisteredKernelsPerDtype) {
  size_t n = 0;
  const xd::l0::spirv_module* all = xd::l0::spirv_modules(&n);
  for (size_t i = 0; i < n; ++i) {
    const auto& m = all[i];
    SCOPED_TRACE(std::string("module ") + m.source + "." + m.tag + (m.fp64 ? ".fp64" : ".base"));
    int32_t dtype = -1, wtype = -1;
    ASSERT_TRUE(xd::xpu::parse_module_tag(m.tag, dtype, wtype)) << "unknown module tag";
    if (wtype != dtype) {  // a second dtype only where the source is keyed on one
      const auto ws = xd::xpu::weight_dtypes(m.source, dtype);
      EXPECT_NE(std::find(ws.begin(), ws.end(), wtype), ws.end()) << "a weight-dtype module the table does not list";
    }
    EXPECT_TRUE(m.fp64 || !xd::xpu::module_needs_fp64(dtype, wtype)) << "a base module with f64 in it";
    std::set<std::string> found;
    ASSERT_NO_THROW(found = xd::test::spirv_entry_points(m.words, m.word_count));
    std::set<std::string> expected;
    for (const auto& k : xd::xpu::kernels_for(dtype, m.fp64))
      if (k.source == std::string(m.source)) expected.insert(k.entry);
    if (std::string(m.source) == "pointwise")  // compiled_but_unused lists pointwise.cl entries only
      for (const auto& e : xd::xpu::compiled_but_unused(dtype, m.fp64)) expected.insert(e);
    std::set<std::string> missing, extra;
    for (const auto& e : expected)
      if (!found.count(e)) missing.insert(e);
    for (const auto& e : found)
      if (!expected.count(e)) extra.insert(e);
    EXPECT_TRUE(missing.empty()) << "the plugin launches entry points the module lacks: " << join(missing);
    EXPECT_TRUE(extra.empty()) << "the module has entry points the plugin never registers: " << join(extra);
  }
}

TEST(LevelZeroSpirv, ModulesImportOnlySpirvBuiltins) {
  size_t n = 0;
  const xd::l0::spirv_module* all = xd::l0::spirv_modules(&n);
  for (size_t i = 0; i < n; ++i) {
    const auto& m = all[i];
    std::set<std::string> imports;
    ASSERT_NO_THROW(imports = xd::test::spirv_imports(m.words, m.word_count));
    for (const auto& name : imports)
      EXPECT_EQ(name.rfind("__spirv_", 0), 0u) << m.source << "." << m.tag << (m.fp64 ? ".fp64" : ".base")
                                               << " imports " << name << ", which no driver provides";
  }
}

TEST(LevelZeroSpirv, EveryTableEntryHasItsModules) {
  for (int32_t dtype = 0; dtype < XD_DTYPE_COUNT_V1; ++dtype) {
    for (bool fp64 : {false, true}) {
      for (const auto& k : xd::xpu::kernels_for(dtype, fp64)) {
        EXPECT_NE(xd::l0::find_spirv_module(k.source, xd::dtype_tag(dtype), fp64), nullptr)
            << "no module " << k.source << "." << xd::dtype_tag(dtype) << (fp64 ? ".fp64" : ".base")
            << " for " << k.entry;
        // rms_norm: a module per weight dtype the CPU reference accepts beside this x dtype.
        for (int32_t wtype : xd::xpu::weight_dtypes(k.source, dtype)) {
          if (xd::xpu::module_needs_fp64(dtype, wtype) && !fp64) continue;
          const std::string tag = xd::xpu::module_tag(dtype, wtype);
          EXPECT_NE(xd::l0::find_spirv_module(k.source, tag, fp64), nullptr)
              << "no module " << k.source << "." << tag << (fp64 ? ".fp64" : ".base") << " for " << k.entry;
        }
      }
    }
  }
}

TEST(LevelZeroSpirv, RegisteredOpsMatchTheCpuReferenceSets) {
  // Spot checks of the table against the CPU reference's dtype sets (plugins/cpu/kernels).
  auto has = [](int32_t dtype, xd_op op) {
    for (xd_op o : xd::xpu::registered_ops(dtype))
      if (o == op) return true;
    return false;
  };
  EXPECT_TRUE(has(XD_DTYPE_F8E4M3FN, XD_OP_COPY));
  EXPECT_TRUE(has(XD_DTYPE_F8E4M3FN, XD_OP_FILL));
  EXPECT_FALSE(has(XD_DTYPE_F8E4M3FN, XD_OP_WHERE));
  EXPECT_TRUE(has(XD_DTYPE_BOOL, XD_OP_WHERE));
  EXPECT_FALSE(has(XD_DTYPE_BOOL, XD_OP_ADD));
  EXPECT_FALSE(has(XD_DTYPE_I32, XD_OP_DIV));
  EXPECT_TRUE(has(XD_DTYPE_BF16, XD_OP_RANDN));
  EXPECT_TRUE(has(XD_DTYPE_I8, XD_OP_SUM));
  EXPECT_TRUE(has(XD_DTYPE_U8, XD_OP_ARGMAX));
  EXPECT_FALSE(has(XD_DTYPE_I32, XD_OP_MEAN));
  EXPECT_FALSE(has(XD_DTYPE_I64, XD_OP_SOFTMAX));
  EXPECT_TRUE(has(XD_DTYPE_F16, XD_OP_BADDBMM));
}

TEST(LevelZeroSpirv, ModuleTagsRoundTrip) {
  int32_t d = -1, w = -1;
  EXPECT_EQ(xd::xpu::module_tag(XD_DTYPE_F32), "f32");
  EXPECT_EQ(xd::xpu::module_tag(XD_DTYPE_F32, XD_DTYPE_F32), "f32");
  EXPECT_EQ(xd::xpu::module_tag(XD_DTYPE_F32, XD_DTYPE_BF16), "f32_bf16");
  ASSERT_TRUE(xd::xpu::parse_module_tag("f16_f64", d, w));
  EXPECT_EQ(d, XD_DTYPE_F16);
  EXPECT_EQ(w, XD_DTYPE_F64);
  EXPECT_TRUE(xd::xpu::module_needs_fp64(d, w));
  EXPECT_FALSE(xd::xpu::parse_module_tag("f32_f32", d, w));  // an equal pair is spelled "f32"
  EXPECT_FALSE(xd::xpu::parse_module_tag("f33", d, w));
}

TEST(LevelZeroSpirv, ReaderRejectsGarbage) {
  const uint32_t bad[5] = {1, 2, 3, 4, 5};
  EXPECT_THROW(xd::test::spirv_entry_points(bad, 5), std::runtime_error);
}

}  // namespace
