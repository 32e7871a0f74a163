// xd-conform reaching the matmul family's DPAS kernel (kernels/matmul_dpas.cl): on PoCL, which has
// no cl_intel_subgroup_matrix_multiply_accumulate, only with the builtins emulated
// (XD_OPENCL_MATMUL_DPAS=emulate8 / emulate16), once per sub-group size's operand layout. xd-conform
// runs every case once per kernel of its slot, so each mm, addmm, bmm and baddbmm case in f16 and
// bf16 runs on "opencl.<op>.dpas" alone and on the general "opencl.<op>" alone; the DPAS kernel may
// decline only the decode shapes it leaves to the skinny kernels. This is the emulation on a CPU
// device, not Intel hardware.
#include "support/run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

void conform_on_emulated_dpas(const std::string& mode) {
  const fs::path json =
      fs::temp_directory_path() / ("xd-conform-dpas-" + std::to_string(getpid()) + "-" + mode + ".json");
  const auto r = xd::test::run_command(
      "env -u XD_BACKEND -u XD_DEVICES -u XD_PLUGIN_PATH -u XD_FALLBACK XD_LOG=error XD_CACHE_DIR=" XD_TEST_CACHE_DIR
      " XD_OPENCL_MATMUL_DPAS=" +
      mode +
      " " XD_CONFORM_BIN
      " --quick --backend opencl --op mm --op addmm --op bmm --op baddbmm --dtype f16 --dtype bf16 --json " +
      json.string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream f(json);
  const nlohmann::json j = nlohmann::json::parse(f);
  fs::remove(json);
  EXPECT_EQ(j["summary"]["failed"], 0) << r.output;
  std::map<std::string, int> passed;  // "<kernel> <dtype>"
  for (const auto& c : j["cases"]) {
    const std::string kernel = c["kernel"], status = c["status"], message = c["message"];
    if (kernel.size() < 5 || kernel.substr(kernel.size() - 5) != ".dpas") continue;
    if (status == "pass")
      ++passed[kernel + " " + std::string(c["dtype"])];
    else
      EXPECT_TRUE(status == "unsupported" && message.find("a decode shape") != std::string::npos)
          << c["id"] << ": " << status << ": " << message;
  }
  for (const std::string op : {"mm", "addmm", "bmm", "baddbmm"})
    for (const std::string dtype : {"f16", "bf16"})
      EXPECT_GE(passed["opencl." + op + ".dpas " + dtype], 10) << op << " " << dtype << ": cases the DPAS kernel ran";
}

TEST(ConformDpas, MatmulFamilyPassesOnTheEmulatedDpasKernelWithSubGroupSize8) { conform_on_emulated_dpas("emulate8"); }

TEST(ConformDpas, MatmulFamilyPassesOnTheEmulatedDpasKernelWithSubGroupSize16) {
  conform_on_emulated_dpas("emulate16");
}

}  // namespace
