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

// The one builtin of cl_intel_subgroup_matrix_multiply_accumulate a DPAS module calls, under the
// Itanium-mangled name of the extension's prototype (what Intel's compiler defines): SG 8 takes
// (int8 a, int8 b, float8 acc), SG 16 (short8 a, int8 b, float8 acc). Empty for other modules.
std::string dpas_builtin(const std::string& source, const std::string& tag) {
  const std::string fn = tag == "f16"    ? "38intel_sub_group_f16_f16_matrix_mad_k16"
                         : tag == "bf16" ? "40intel_sub_group_bf16_bf16_matrix_mad_k16"
                                         : "";
  if (source == "matmul_dpas8") return "_Z" + fn + "Dv8_iS_Dv8_f";
  if (source == "matmul_dpas16") return "_Z" + fn + "Dv8_sDv8_iDv8_f";
  return {};
}

TEST(LevelZeroSpirv, ModulesImportOnlySpirvBuiltinsAndTheDpasBuiltin) {
  size_t n = 0, dpas_modules = 0;
  const xd::l0::spirv_module* all = xd::l0::spirv_modules(&n);
  for (size_t i = 0; i < n; ++i) {
    const auto& m = all[i];
    SCOPED_TRACE(std::string("module ") + m.source + "." + m.tag + (m.fp64 ? ".fp64" : ".base"));
    std::set<std::string> imports;
    ASSERT_NO_THROW(imports = xd::test::spirv_imports(m.words, m.word_count));
    const std::string dpas = dpas_builtin(m.source, m.tag);
    if (std::string(m.source).rfind("matmul_dpas", 0) == 0) {
      ++dpas_modules;
      ASSERT_FALSE(dpas.empty()) << "a DPAS module of a dtype without a DPAS builtin";
      EXPECT_TRUE(imports.count(dpas)) << "does not call " << dpas << "; imports: " << join(imports);
    }
    for (const auto& name : imports)
      EXPECT_TRUE(name.rfind("__spirv_", 0) == 0 || name == dpas) << "imports " << name << ", which no driver provides";
  }
  EXPECT_EQ(dpas_modules, 8u) << "sub-group sizes 8 and 16, f16 and bf16, base and fp64 flavours";
}

TEST(LevelZeroSpirv, DpasModulesRequireTheSubGroupSizeTheirProgramIsNamedFor) {
  size_t n = 0;
  const xd::l0::spirv_module* all = xd::l0::spirv_modules(&n);
  for (size_t i = 0; i < n; ++i) {
    const auto& m = all[i];
    SCOPED_TRACE(std::string("module ") + m.source + "." + m.tag + (m.fp64 ? ".fp64" : ".base"));
    // The sub-group size the OpenCL plugin builds the same program for (program_defines).
    uint32_t expected = 0;
    for (const std::string& d : xd::xpu::program_defines(m.source))
      if (d.rfind("XD_DPAS_SG=", 0) == 0) expected = static_cast<uint32_t>(std::stoul(d.substr(11)));
    std::map<std::string, uint32_t> sizes;
    ASSERT_NO_THROW(sizes = xd::test::spirv_subgroup_sizes(m.words, m.word_count));
    if (expected == 0) {
      EXPECT_TRUE(sizes.empty()) << "a module outside matmul_dpas requires a sub-group size";
      continue;
    }
    const std::set<std::string> entries = xd::test::spirv_entry_points(m.words, m.word_count);
    EXPECT_EQ(sizes.size(), entries.size()) << "every entry point requires its sub-group size";
    for (const auto& [entry, size] : sizes) EXPECT_EQ(size, expected) << entry;
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
