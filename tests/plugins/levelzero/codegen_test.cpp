// The Level Zero plugin's codegen overrides without a driver (no machine of this project has one,
// so nothing here runs a kernel on hardware):
//  - the run-time SPIR-V step (program/spirv_compiler.hpp) on a kernel written as generated ones
//    are (prelude names only), checked with spirv-val and for its entry point, its disk cache,
//    its errors;
//  - the xd_codegen_api table against the fake driver of fake_ze.hpp, whose zeModuleCreate and
//    zeKernelCreate it uses; the three launch calls the fake lacks are defined below, recording
//    the arguments, group size and group count each launch appended.
#include "codegen.hpp"

#include <xd/plugin.hpp>

#include "fake_ze.hpp"
#include "program/cl_sources.hpp"
#include "program/spirv_compiler.hpp"
#include "runtime/driver.hpp"
#include "runtime/runtime.hpp"
#include "spirv_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- the launch calls, recorded
struct launch_record {
  ze_kernel_handle_t kernel = nullptr;
  std::map<uint32_t, std::vector<unsigned char>> args;
  uint32_t group[3] = {0, 0, 0};
  ze_group_count_t count{};
};
struct launch_state {
  std::map<ze_kernel_handle_t, std::map<uint32_t, std::vector<unsigned char>>> args;
  std::map<ze_kernel_handle_t, std::array<uint32_t, 3>> group;
  std::vector<launch_record> launches;
};
launch_state& launches() {
  static launch_state s;
  return s;
}

}  // namespace

extern "C" {

ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t k, uint32_t index, size_t size, const void* value) {
  const auto* p = static_cast<const unsigned char*>(value);
  launches().args[k][index] = p != nullptr ? std::vector<unsigned char>(p, p + size) : std::vector<unsigned char>();
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t k, uint32_t x, uint32_t y, uint32_t z) {
  launches().group[k] = {x, y, z};
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t, ze_kernel_handle_t k,
                                            const ze_group_count_t* count, ze_event_handle_t, uint32_t,
                                            ze_event_handle_t*) {
  launch_record r;
  r.kernel = k;
  r.args = launches().args[k];
  const auto g = launches().group[k];
  std::copy(g.begin(), g.end(), r.group);
  r.count = *count;
  launches().launches.push_back(r);
  return ZE_RESULT_SUCCESS;
}

}  // extern "C"

namespace {

// A kernel as the emitter writes them: y = exp(tanh(x)) * 2 over f16, with a double path.
const char* kKernel =
    "XD_KERNEL void gen_k0(__global xd_T_f16* y, long y_off, __global const xd_T_f16* x, long x_off, long n) {\n"
    "  const long i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  const float v = xd_dec_f16(x[x_off + i]);\n"
    "  const float r = xd_isnan_f(v) ? v : xd_exp_f(xd_tanh_f(v)) * xd_bits_f(0x40000000u);\n"
    "#ifdef XD_HAS_FP64\n"
    "  y[y_off + i] = xd_from_d_f16(xd_pow_d((double)r, xd_bits_d(0x3ff0000000000000UL)));\n"
    "#else\n"
    "  y[y_off + i] = xd_from_f_f16(xd_pow_f(r, 1.0f));\n"
    "#endif\n"
    "}\n";

std::string prelude(bool fp64) {
  std::string p = fp64 ? "#define XD_HAS_FP64 1\n" : "";
  p.append(xd::l0::kernel_source("common"));
  p.append(xd::l0::kernel_source("codegen"));
  return p;
}

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(XD_L0_TEST_DIR) / (name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir.string();
}

// spirv-val's verdict on `words` (OpenCL 2.0 rules, as the build validates its modules): empty
// when valid, else what it printed.
std::string spirv_val(const std::vector<uint32_t>& words, const std::string& dir) {
  fs::create_directories(dir);
  const std::string path = dir + "/module.spv", out = dir + "/val.txt";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 4));
  const std::string cmd = std::string(XD_SPIRV_VAL) + " --target-env opencl2.0 " + path + " > " + out + " 2>&1";
  const int st = std::system(cmd.c_str());
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return {};
  std::ifstream f(out);
  return "spirv-val failed:\n" + std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(LevelZeroCodegenSpirv, APreludeKernelCompilesToValidSpirvInBothFlavours) {
  const xd::l0::spirv_tools tools = xd::l0::find_spirv_tools();
  ASSERT_TRUE(tools.found()) << tools.missing();
  for (const bool fp64 : {false, true}) {
    SCOPED_TRACE(fp64 ? "fp64" : "base");
    const std::string dir = fresh_dir(fp64 ? "valid-fp64" : "valid");
    const xd::l0::spirv_result r = xd::l0::compile_spirv(prelude(fp64) + kKernel, tools, dir);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.from_cache);
    EXPECT_EQ(spirv_val(r.words, dir + "/val"), "");
    EXPECT_EQ(xd::test::spirv_entry_points(r.words.data(), r.words.size()), std::set<std::string>{"gen_k0"});
    // Only the SPIR-V builtins: a helper of the prelude left unresolved is one no driver provides.
    for (const std::string& name : xd::test::spirv_imports(r.words.data(), r.words.size()))
      EXPECT_EQ(name.rfind("__spirv_", 0), 0u) << "the module imports " << name;
    fs::remove_all(dir);
  }
}

TEST(LevelZeroCodegenSpirv, TheDiskCacheServesASecondCompileAndRebuildsACorruptEntry) {
  const xd::l0::spirv_tools tools = xd::l0::find_spirv_tools();
  ASSERT_TRUE(tools.found()) << tools.missing();
  const std::string dir = fresh_dir("cache");
  const std::string source = prelude(false) + kKernel;
  const xd::l0::spirv_result first = xd::l0::compile_spirv(source, tools, dir);
  ASSERT_TRUE(first.ok) << first.log;
  const xd::l0::spirv_result second = xd::l0::compile_spirv(source, tools, dir);
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.words, first.words);
  // Other tool versions are another key: compiled again, not served the first tools' module.
  xd::l0::spirv_tools other = tools;
  other.version += " (patched)";
  EXPECT_FALSE(xd::l0::compile_spirv(source, other, dir).from_cache);
  // One flipped byte in every entry: the checksum rejects it and the module is rebuilt.
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".spv") continue;
    ++entries;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(e.path()) / 2));
    f.put('\x5a');
  }
  EXPECT_EQ(entries, 2);
  const xd::l0::spirv_result third = xd::l0::compile_spirv(source, tools, dir);
  ASSERT_TRUE(third.ok) << third.log;
  EXPECT_FALSE(third.from_cache);
  EXPECT_EQ(third.words, first.words);
  fs::remove_all(dir);
}

// A FIFO (which would block the open), a symlink to /dev/zero or a 20 GB sparse file (which would
// exhaust memory) in an entry's place is a miss: compiled again, the entry replaced, served next.
TEST(LevelZeroCodegenSpirv, SpecialFilesInPlaceOfACacheEntryAreRebuiltNeverRead) {
  const xd::l0::spirv_tools tools = xd::l0::find_spirv_tools();
  ASSERT_TRUE(tools.found()) << tools.missing();
  const std::string dir = fresh_dir("special");
  const std::string source = prelude(false) + kKernel;
  const xd::l0::spirv_result first = xd::l0::compile_spirv(source, tools, dir);
  ASSERT_TRUE(first.ok) << first.log;
  fs::path entry;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".spv") entry = e.path();
  ASSERT_FALSE(entry.empty());
  const std::pair<const char*, std::function<void(const fs::path&)>> kinds[] = {
      {"fifo", [](const fs::path& p) { ASSERT_EQ(mkfifo(p.c_str(), 0600), 0); }},
      {"/dev/zero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }},
      {"sparse", [](const fs::path& p) {
         std::ofstream(p, std::ios::binary) << "XDSPV001";
         fs::resize_file(p, uint64_t{20} << 30);
       }}};
  for (const auto& [name, make] : kinds) {
    SCOPED_TRACE(name);
    fs::remove(entry);
    make(entry);
    const xd::l0::spirv_result rebuilt = xd::l0::compile_spirv(source, tools, dir);
    ASSERT_TRUE(rebuilt.ok) << rebuilt.log;
    EXPECT_FALSE(rebuilt.from_cache);
    EXPECT_EQ(rebuilt.words, first.words);
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry)));
    EXPECT_TRUE(xd::l0::compile_spirv(source, tools, dir).from_cache);
  }
  fs::remove_all(dir);
}

TEST(LevelZeroCodegenSpirv, ASourceThatDoesNotCompileGivesTheLogAndKeepsTheSource) {
  const xd::l0::spirv_tools tools = xd::l0::find_spirv_tools();
  ASSERT_TRUE(tools.found()) << tools.missing();
  const std::string dir = fresh_dir("broken");
  const std::string source =
      prelude(false) + "XD_KERNEL void gen_bad(__global xd_T_f32* y) { y[0] = xd_nope(1.0f); }\n";
  const xd::l0::spirv_result r = xd::l0::compile_spirv(source, tools, dir);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.log.find("xd_nope"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find(tools.clang + " -cc1"), std::string::npos) << r.log;
  ASSERT_TRUE(fs::exists(r.source_path)) << r.source_path;
  EXPECT_EQ(fs::path(r.source_path).parent_path(), fs::path(dir));
  std::ifstream f(r.source_path);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>()), source);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().string().find("levelzero-work-"), std::string::npos) << "work folder left: " << e.path();
  fs::remove_all(dir);
}

TEST(LevelZeroCodegenSpirv, MissingToolsAreNamedAndNothingRuns) {
  setenv("XD_CLANG", "/nonexistent/clang-15", 1);
  setenv("XD_LLVM_SPIRV", "no-such-llvm-spirv", 1);
  const xd::l0::spirv_tools t = xd::l0::find_spirv_tools();
  unsetenv("XD_CLANG");
  unsetenv("XD_LLVM_SPIRV");
  EXPECT_FALSE(t.found());
  EXPECT_EQ(t.missing(),
            "codegen unavailable: /nonexistent/clang-15 and no-such-llvm-spirv not found (XD_CLANG and XD_LLVM_SPIRV "
            "name others)");
  try {
    (void)xd::l0::compile_spirv("XD_KERNEL void k(void) {}\n", t, "");
    FAIL() << "compiled without tools";
  } catch (const xd::plugin::error& e) {
    EXPECT_EQ(e.code(), XD_ERR_UNAVAILABLE);
  }
}

// ---------------------------------------------------------------- the table, on the fake driver

xd_status record_error(void* ctx, xd_status code, const char* message) {
  *static_cast<std::string*>(ctx) = message;
  return code;
}
void ignore_log(void*, int32_t, const char*) {}

class LevelZeroCodegenFake : public ::testing::Test {
 protected:
  void SetUp() override {
    host_.struct_size = sizeof host_;
    host_.ctx = &error_;
    host_.set_error = record_error;
    host_.log = ignore_log;
    xd::plugin::this_plugin().host.set(&host_);
    setenv("XD_CACHE_DIR", fresh_dir("fake").c_str(), 1);
    fake_ze::reset();
    xd::l0::init_platform();
    api_.struct_size = sizeof api_;
    xd::l0::fill_stream_api(api_);
    xd::l0::fill_codegen_api(api_);
    ASSERT_NE(api_.codegen, nullptr);
    cg_ = api_.codegen;
  }
  void TearDown() override {
    EXPECT_TRUE(fake_ze::violations().empty()) << fake_ze::violations().front();
    fs::remove_all(std::getenv("XD_CACHE_DIR"));
  }
  size_t calls(const std::string& prefix) const {
    size_t n = 0;
    for (const auto& c : fake_ze::calls()) n += c.rfind(prefix, 0) == 0;
    return n;
  }

  xd_host_api host_{};
  std::string error_;
  xd_plugin_api api_{};
  const xd_codegen_api* cg_ = nullptr;
};

TEST_F(LevelZeroCodegenFake, TheTableDeclaresOpenclCAndTheTargetItsDevice) {
  EXPECT_EQ(api_.codegen_languages, static_cast<uint32_t>(XD_CODEGEN_OPENCL_C));
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  ASSERT_EQ(cg_->target(nullptr, 0, XD_CODEGEN_OPENCL_C, &t), XD_OK) << error_;
  const std::string p = t.prelude;
  EXPECT_EQ(p.rfind("// xdispatch OpenCL C prelude", 0), 0u);
  EXPECT_NE(p.find("#define XD_HAS_FP64 1"), std::string::npos);  // the fake device has fp64
  EXPECT_NE(p.find("xd_isnan_f"), std::string::npos);
  EXPECT_EQ(t.flags, static_cast<uint32_t>(XD_CODEGEN_FLAG_F64));
  EXPECT_EQ(t.work_group, 256u);
  EXPECT_EQ(t.vector_width, 4u);
  EXPECT_EQ(t.max_groups, 65535u);  // the fake's maxGroupCountX
  EXPECT_NE(std::string(t.compiler).find("fake GPU 0"), std::string::npos) << t.compiler;
  EXPECT_EQ(cg_->target(nullptr, 0, XD_CODEGEN_CPP, &t), XD_ERR_UNAVAILABLE);
  EXPECT_EQ(cg_->target(nullptr, 3, XD_CODEGEN_OPENCL_C, &t), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("device index 3 out of range"), std::string::npos) << error_;
}

TEST_F(LevelZeroCodegenFake, ASourceBuildsOnceAndLaunchesWithItsArgumentsAndGrid) {
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  ASSERT_EQ(cg_->target(nullptr, 0, XD_CODEGEN_OPENCL_C, &t), XD_OK) << error_;
  // Three parameters: the fake's zeKernelGetProperties reports three for every kernel.
  const std::string source = std::string(t.prelude) +
                             "XD_KERNEL void gen_fill(__global xd_T_f32* y, long y_off, long n) {\n"
                             "  const long i = get_global_id(0);\n"
                             "  if (i < n) y[y_off + i] = xd_bits_f(0x3f800000u);\n"
                             "}\n";
  xd_program p1 = nullptr, p2 = nullptr;
  ASSERT_EQ(cg_->program_build(nullptr, 0, XD_CODEGEN_OPENCL_C, source.c_str(), &p1), XD_OK) << error_;
  ASSERT_EQ(cg_->program_build(nullptr, 0, XD_CODEGEN_OPENCL_C, source.c_str(), &p2), XD_OK) << error_;
  EXPECT_EQ(p1, p2);
  EXPECT_EQ(calls("zeModuleCreate(-cl-fp32-correctly-rounded-divide-sqrt)"), 1u);
  xd_codegen_kernel k1 = nullptr, k2 = nullptr;
  ASSERT_EQ(cg_->kernel_get(nullptr, 0, p1, "gen_fill", &k1), XD_OK) << error_;
  ASSERT_EQ(cg_->kernel_get(nullptr, 0, p1, "gen_fill", &k2), XD_OK) << error_;
  EXPECT_EQ(k1, k2);
  EXPECT_EQ(calls("zeKernelCreate(gen_fill)"), 1u);

  xd_stream s = nullptr;
  ASSERT_EQ(api_.stream_create(nullptr, 0, &s), XD_OK) << error_;
  int buffer = 0;  // any address: the fake runs no kernel
  const int64_t offset = 5, n = 1000;
  const xd_codegen_arg args[3] = {{XD_CODEGEN_ARG_BUFFER, 0, &buffer},
                                  {XD_CODEGEN_ARG_VALUE, sizeof offset, &offset},
                                  {XD_CODEGEN_ARG_VALUE, sizeof n, &n}};
  xd_codegen_grid g{};
  g.dims = 1;
  g.global[0] = 1024;
  g.local[0] = 256;
  ASSERT_EQ(cg_->kernel_launch(nullptr, 0, s, k1, args, 3, &g), XD_OK) << error_;
  ASSERT_EQ(launches().launches.size(), 1u);
  const launch_record& r = launches().launches[0];
  const void* ptr = &buffer;
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_EQ(r.args.at(0), std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(&ptr),
                                                     reinterpret_cast<const unsigned char*>(&ptr) + sizeof ptr));
  EXPECT_EQ(r.args.at(1).size(), 8u);
  EXPECT_EQ(std::memcmp(r.args.at(1).data(), &offset, 8), 0);
  EXPECT_EQ(std::memcmp(r.args.at(2).data(), &n, 8), 0);
  EXPECT_EQ(r.group[0], 256u);
  EXPECT_EQ(r.group[1], 1u);
  EXPECT_EQ(r.count.groupCountX, 4u);
  EXPECT_EQ(r.count.groupCountY, 1u);

  // Bad grids and argument lists are refused before anything is appended.
  g.global[0] = 1000;
  EXPECT_EQ(cg_->kernel_launch(nullptr, 0, s, k1, args, 3, &g), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("global[0] = 1000 is not a multiple of local[0] = 256"), std::string::npos) << error_;
  g.global[0] = 2048;
  g.local[0] = 2048;
  EXPECT_EQ(cg_->kernel_launch(nullptr, 0, s, k1, args, 3, &g), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("exceeds the device's 1024"), std::string::npos) << error_;
  g.local[0] = 256;
  EXPECT_EQ(cg_->kernel_launch(nullptr, 0, s, k1, args, 2, &g), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("2 arguments given, the kernel takes 3"), std::string::npos) << error_;
  EXPECT_EQ(launches().launches.size(), 1u);
  ASSERT_EQ(api_.stream_destroy(nullptr, 0, s), XD_OK) << error_;
}

TEST_F(LevelZeroCodegenFake, ASourceThatDoesNotCompileIsInvalidAndNeverReachesTheDriver) {
  xd_program p = nullptr;
  const char* source = "XD_KERNEL void gen_bad(void) { undeclared_name(); }\n";
  ASSERT_EQ(cg_->program_build(nullptr, 0, XD_CODEGEN_OPENCL_C, source, &p), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("does not compile to SPIR-V"), std::string::npos) << error_;
  EXPECT_NE(error_.find("XD_KERNEL"), std::string::npos) << "the log names the unknown macro: " << error_;
  const size_t at = error_.find("\nsource: ");
  ASSERT_NE(at, std::string::npos) << error_;
  EXPECT_TRUE(fs::exists(error_.substr(at + 9))) << error_;
  EXPECT_EQ(calls("zeModuleCreate"), 0u);
}

TEST_F(LevelZeroCodegenFake, KernelGetOfAMissingNameIsInvalidAndNamesIt) {
  xd_program p = nullptr;
  ASSERT_EQ(cg_->program_build(nullptr, 0, XD_CODEGEN_OPENCL_C, "__kernel void gen_one(void) {}\n", &p), XD_OK)
      << error_;
  fake_ze::settings().kernel_create_result = ZE_RESULT_ERROR_INVALID_KERNEL_NAME;  // what a driver answers
  xd_codegen_kernel k = nullptr;
  EXPECT_EQ(cg_->kernel_get(nullptr, 0, p, "gen_two", &k), XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(error_.find("the program has no kernel 'gen_two'"), std::string::npos) << error_;
  EXPECT_EQ(k, nullptr);
  EXPECT_EQ(fake_ze::count().live_kernels, 0);
}

TEST_F(LevelZeroCodegenFake, WithoutTheToolsTheTargetIsUnavailable) {
  // Read once per process, at the first use: this test's process sees the bad names.
  setenv("XD_CLANG", "/nonexistent/clang-15", 1);
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  EXPECT_EQ(cg_->target(nullptr, 0, XD_CODEGEN_OPENCL_C, &t), XD_ERR_UNAVAILABLE);
  EXPECT_NE(error_.find("codegen unavailable: /nonexistent/clang-15 not found"), std::string::npos) << error_;
  xd_program p = nullptr;
  EXPECT_EQ(cg_->program_build(nullptr, 0, XD_CODEGEN_OPENCL_C, "XD_KERNEL void k(void) {}", &p), XD_ERR_UNAVAILABLE);
  unsetenv("XD_CLANG");
}

}  // namespace
