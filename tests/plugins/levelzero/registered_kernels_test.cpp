// What the Level Zero plugin registers, without a driver: the XPU list's register_kernels() is
// called with a host that records every kernel description (the plugin calls it the same way from
// xd_plugin_init, after zeInit). The recorded (op, dtype) set must equal the CPU reference's for
// every op the list has a launcher for, and must cover every op the OpenCL plugin registers (when
// an OpenCL device is there to load it). Nothing here launches a kernel: that needs an Intel GPU
// and `xd-conform --backend levelzero` (docs/backends/levelzero.md).
#include "common/kernel_list.hpp"

#include <xd/xd.hpp>

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

namespace {

using op_dtype = std::pair<std::string, int32_t>;

struct recorded {
  std::set<op_dtype> pairs;
  std::map<op_dtype, int> count;
  bool all_have_check = true;
};

xd_status record_kernel(void* ctx, const xd_kernel_desc* d) {
  auto& r = *static_cast<recorded*>(ctx);
  const std::string op = xd::op_names().at(static_cast<size_t>(d->op));
  r.pairs.insert({op, d->dtype});
  ++r.count[{op, d->dtype}];
  if (d->check == nullptr || d->fn == nullptr) r.all_have_check = false;
  return XD_OK;
}

// `dpas`: as the plugin registers when one of its devices reports DPAS (matmul_dpas_sg != 0).
recorded levelzero_registrations(bool dpas = false) {
  recorded r;
  xd_host_api host{};
  host.struct_size = sizeof host;
  host.ctx = &r;
  host.register_kernel = record_kernel;
  xd::plugin::registrar reg(&host);
  xd::xpu::registration what;
  what.matmul_dpas = dpas;
  xd::xpu::register_kernels(reg, what);
  return r;
}

std::set<op_dtype> backend_pairs(const std::string& backend) {
  std::set<op_dtype> out;
  for (const auto& k : xd::kernels())
    if (k.backend == backend) out.insert({k.op, static_cast<int32_t>(k.dtype)});
  return out;
}

std::set<std::string> ops_of(const std::set<op_dtype>& pairs) {
  std::set<std::string> out;
  for (const auto& p : pairs) out.insert(p.first);
  return out;
}

std::set<int32_t> dtypes_of(const std::set<op_dtype>& pairs, const std::string& op) {
  std::set<int32_t> out;
  for (const auto& p : pairs)
    if (p.first == op) out.insert(p.second);
  return out;
}

std::string names(const std::set<int32_t>& dtypes) {
  std::string s;
  for (int32_t d : dtypes) s += std::string(s.empty() ? "" : " ") + xd::dtype_tag(d);
  return s.empty() ? "(none)" : s;
}

TEST(LevelZeroRegistration, EveryTableEntryHasALauncherRegisteredOnce) {
  const recorded r = levelzero_registrations();
  EXPECT_TRUE(r.all_have_check) << "a kernel was registered without fn or check()";
  size_t expected = 0;
  for (int32_t d = 0; d < XD_DTYPE_COUNT_V1; ++d) expected += xd::xpu::registered_ops(d).size();
  EXPECT_EQ(r.pairs.size(), expected);
  for (const auto& [key, n] : r.count) EXPECT_EQ(n, 1) << key.first << " " << xd::dtype_tag(key.second);
}

TEST(LevelZeroRegistration, TheDpasKernelsAddASecondKernelToTheMatmulFamilysF16AndBf16SlotsOnly) {
  const recorded plain = levelzero_registrations(), dpas = levelzero_registrations(true);
  EXPECT_EQ(dpas.pairs, plain.pairs) << "no (op, dtype) gained or lost";
  for (const auto& [key, n] : dpas.count) {
    const bool family = key.first == "mm" || key.first == "addmm" || key.first == "bmm" || key.first == "baddbmm";
    const bool half = key.second == XD_DTYPE_F16 || key.second == XD_DTYPE_BF16;
    EXPECT_EQ(n, family && half ? 2 : 1) << key.first << " " << xd::dtype_tag(key.second);
  }
  EXPECT_TRUE(dpas.all_have_check);
}

TEST(LevelZeroRegistration, DtypesEqualTheCpuReferencesForEveryOp) {
  const std::set<op_dtype> cpu = backend_pairs("cpu");
  ASSERT_FALSE(cpu.empty()) << "the CPU reference is not loaded:\n" << xd::format_load_report();
  const std::set<op_dtype> l0 = levelzero_registrations().pairs;
  for (const std::string& op : ops_of(l0)) {
    EXPECT_EQ(names(dtypes_of(l0, op)), names(dtypes_of(cpu, op))) << "op " << op;
  }
}

TEST(LevelZeroRegistration, CoversEveryOpOfTheOpenclPlugin) {
  const std::set<op_dtype> l0 = levelzero_registrations().pairs;
  // The ops the OpenCL plugin launches from the same .cl sources; checked against the loaded
  // OpenCL backend below where one is available, so this list cannot silently fall behind it.
  std::set<std::string> expected = {"sum",  "mean",     "amax",      "amin", "argmax", "softmax", "log_softmax",
                                    "rms_norm", "rms_norm_backward", "layer_norm", "layer_norm_backward",
                                    "mm", "addmm", "bmm", "baddbmm",
                                    "int_mm", "scaled_mm", "weight_int4_mm", "quantize_int4", "csr_addmm",
                                    "csr_to_dense", "index_select", "gather", "scaled_dot_product_attention",
                                    "conv2d", "max_pool2d", "avg_pool2d",
                                    "cumsum", "topk"};
  const std::set<op_dtype> ocl = backend_pairs("opencl");
  for (const std::string& op : ops_of(ocl)) expected.insert(op);
  const std::set<std::string> have = ops_of(l0);
  for (const std::string& op : expected) {
    EXPECT_TRUE(have.count(op)) << "the Level Zero plugin registers no kernel for " << op;
    if (!ocl.empty()) {
      EXPECT_EQ(names(dtypes_of(l0, op)), names(dtypes_of(ocl, op))) << "op " << op;
    }
  }
}

}  // namespace
