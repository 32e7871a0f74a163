// The XPU launchers (plugins/xpu/common), written once for OpenCL and Level Zero, against a
// recording launcher interface: which program and entry point each call launches, with which
// arguments and grid, how a device's parameters steer them, and what the registration list
// registers. No driver and no device: xpu::api is the only thing the launchers see of either API.
#include "common/launcher.hpp"

#include "common/kernel_list.hpp"
#include "common/launchers.hpp"
#include "common/layout.hpp"
#include "common/matmul.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace xpu = xd::xpu;
namespace plugin = xd::plugin;

struct recorded_launch {
  std::string source;
  int32_t dtype = -1, wtype = -1;
  std::string entry;
  std::vector<size_t> arg_sizes;
  std::vector<std::vector<unsigned char>> arg_bytes;  // empty for a __local buffer
  xpu::grid grid;
};

class recording_api final : public xpu::api {
 public:
  xpu::device_info info;
  std::vector<recorded_launch> launches;

  recording_api() {
    info.name = "recording device";
    info.fp64_feature = "doubles";
  }

  int32_t device_count() const override { return 1; }
  const xpu::device_info& device(int32_t index) const override {
    if (index != 0) plugin::invalid("no device " + std::to_string(index));
    return info;
  }
  void enqueue(const xd_kernel_call*, const xpu::program& p, const char* entry, std::span<const xpu::kernel_arg> args,
               const xpu::grid& g) override {
    recorded_launch r{p.source, p.dtype, p.wtype, entry, {}, {}, g};
    for (const auto& a : args) {
      r.arg_sizes.push_back(a.size);
      const auto* b = static_cast<const unsigned char*>(a.value);
      r.arg_bytes.emplace_back(b, b == nullptr ? b : b + a.size);
    }
    launches.push_back(std::move(r));
  }
};

// Views over fake buffers: the launchers pass handles on, never dereference them.
struct fake_view {
  std::vector<int64_t> sizes, strides;
  xd_view v{};
  fake_view(int32_t dtype, std::vector<int64_t> shape, void* handle) : sizes(std::move(shape)) {
    strides.resize(sizes.size());
    int64_t s = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      strides[d] = s;
      s *= sizes[d];
    }
    v.struct_size = sizeof v;
    v.dtype = dtype;
    v.ndim = static_cast<int32_t>(sizes.size());
    v.sizes = sizes.data();
    v.strides = strides.data();
    v.handle = handle;
  }
};

struct host_and_call {
  recording_api api;
  std::string error;
  xd_host_api host{};
  std::vector<xd_view> in, out;
  xd_kernel_call call{};
  int workspace_calls = 0;
  char buffers[8];

  host_and_call() {
    host.struct_size = sizeof host;
    host.ctx = this;
    host.set_error = [](void* ctx, xd_status code, const char* m) {
      static_cast<host_and_call*>(ctx)->error = m;
      return code;
    };
    call.struct_size = sizeof call;
    call.host = &host;
    call.plugin_ctx = &api;
    call.workspace_ctx = this;
    call.workspace = [](void* ctx, uint64_t, void** handle, uint64_t* offset) {
      auto* self = static_cast<host_and_call*>(ctx);
      ++self->workspace_calls;
      *handle = &self->buffers[7];
      *offset = 4096;
      return XD_OK;
    };
  }
  xd_status run(xd_kernel_fn fn, xd_op op, std::vector<xd_view> inputs, std::vector<xd_view> outputs,
                const void* attrs = nullptr, void* user_data = nullptr) {
    in = std::move(inputs);
    out = std::move(outputs);
    call.op = op;
    call.num_inputs = static_cast<int32_t>(in.size());
    call.num_outputs = static_cast<int32_t>(out.size());
    call.inputs = in.data();
    call.outputs = out.data();
    call.attrs = attrs;
    call.user_data = user_data;
    return fn(&call);
  }
  void* buf(int i) { return &buffers[i]; }
};

TEST(XpuLaunchers, AddBindsOutputInputsLayoutAndScalarsAndRunsOneItemPerVector) {
  host_and_call h;
  fake_view a(XD_DTYPE_F32, {3, 10}, h.buf(0)), b(XD_DTYPE_F32, {3, 10}, h.buf(1)), o(XD_DTYPE_F32, {3, 10}, h.buf(2));
  const char* entry = "xd_add";
  ASSERT_EQ(h.run(xpu::run_pointwise, XD_OP_ADD, {a.v, b.v}, {o.v}, nullptr, const_cast<char*>(entry)), XD_OK)
      << h.error;
  ASSERT_EQ(h.api.launches.size(), 1u);
  const recorded_launch& l = h.api.launches[0];
  EXPECT_EQ(l.source, "pointwise");
  EXPECT_EQ(l.dtype, XD_DTYPE_F32);
  EXPECT_EQ(l.entry, "xd_add");
  EXPECT_EQ(l.arg_sizes, (std::vector<size_t>{sizeof(void*), sizeof(void*), sizeof(void*), sizeof(xpu::layout),
                                              sizeof(xpu::scalars)}));
  void* first = nullptr;
  std::memcpy(&first, l.arg_bytes[0].data(), sizeof first);
  EXPECT_EQ(first, h.buf(2));  // the output's handle comes first
  xpu::layout L;
  std::memcpy(&L, l.arg_bytes[3].data(), sizeof L);
  EXPECT_EQ(L.numel, 30);  // contiguous operands merge into one dim of 30
  EXPECT_EQ(L.ndim, 1);
  xpu::scalars s;
  std::memcpy(&s, l.arg_bytes[4].data(), sizeof s);
  EXPECT_EQ(s.f[0], 1.0f);  // no attributes: alpha = 1
  EXPECT_FALSE(l.grid.by_groups);
  EXPECT_EQ(l.grid.items, 8u);  // ceil(30 / XD_VEC)
}

TEST(XpuLaunchers, AMissingInputIsAnInvalidArgumentAndLaunchesNothing) {
  host_and_call h;
  fake_view a(XD_DTYPE_F32, {4}, h.buf(0)), o(XD_DTYPE_F32, {4}, h.buf(2));
  xd_view absent{};
  absent.ndim = -1;
  const char* entry = "xd_add";
  EXPECT_EQ(h.run(xpu::run_pointwise, XD_OP_ADD, {a.v, absent}, {o.v}, nullptr, const_cast<char*>(entry)),
            XD_ERR_INVALID_ARGUMENT);
  EXPECT_NE(h.error.find("needs input 1"), std::string::npos) << h.error;
  EXPECT_TRUE(h.api.launches.empty());
}

TEST(XpuLaunchers, AnEmptyOutputLaunchesNothing) {
  host_and_call h;
  fake_view a(XD_DTYPE_F16, {0, 7}, h.buf(0)), o(XD_DTYPE_F16, {0, 7}, h.buf(2));
  const char* entry = "xd_exp";
  EXPECT_EQ(h.run(xpu::run_pointwise, XD_OP_EXP, {a.v}, {o.v}, nullptr, const_cast<char*>(entry)), XD_OK);
  EXPECT_TRUE(h.api.launches.empty());
}

TEST(XpuLaunchers, EveryKernelDeclinesF64OnADeviceWithoutItSayingWhatItLacks) {
  host_and_call h;
  fake_view a(XD_DTYPE_F64, {4}, h.buf(0)), o(XD_DTYPE_F64, {4}, h.buf(2));
  h.in = {a.v};
  h.out = {o.v};
  h.call.inputs = h.in.data();
  h.call.outputs = h.out.data();
  h.call.num_inputs = h.call.num_outputs = 1;
  char reason[128] = {};
  h.api.info.fp64 = false;
  EXPECT_EQ(xpu::check_device(&h.call, reason, sizeof reason), 0);
  EXPECT_STREQ(reason, "f64 on recording device, which lacks doubles");
  h.api.info.fp64 = true;
  EXPECT_EQ(xpu::check_device(&h.call, reason, sizeof reason), 1);
}

TEST(XpuLaunchers, RmsNormTakesTheShortKernelForRowsThatFitHalfTheRegisterCache) {
  for (const int64_t n : {int64_t{4096}, int64_t{4097}}) {
    host_and_call h;
    h.api.info.work_group = 256;
    h.api.info.row_items = 8;  // the short kernel holds 256 * 4 * 4 = 4096 elements
    fake_view x(XD_DTYPE_BF16, {5, n}, h.buf(0)), w(XD_DTYPE_F32, {n}, h.buf(1)), y(XD_DTYPE_BF16, {5, n}, h.buf(2)),
        r(XD_DTYPE_F32, {5, 1}, h.buf(3));
    xd_attrs_rms_norm attrs{sizeof attrs, 1, 1e-6};
    ASSERT_EQ(h.run(xpu::run_rms_norm, XD_OP_RMS_NORM, {x.v, w.v}, {y.v, r.v}, &attrs), XD_OK) << h.error;
    ASSERT_EQ(h.api.launches.size(), 1u);
    const recorded_launch& l = h.api.launches[0];
    EXPECT_EQ(l.entry, n == 4096 ? "xd_rms_norm_short" : "xd_rms_norm");
    EXPECT_EQ(l.source, "rms_norm");
    EXPECT_EQ(l.dtype, XD_DTYPE_BF16);
    EXPECT_EQ(l.wtype, XD_DTYPE_F32);  // the weight's dtype keys the program too
    EXPECT_TRUE(l.grid.by_groups);
    EXPECT_EQ(l.grid.count[0], 5u);  // a work-group per row
    EXPECT_EQ(l.grid.local[0], 256u);
  }
}

TEST(XpuLaunchers, ALongSumWithFewOutputsIsSplitThroughTheWorkspaceAndFinished) {
  host_and_call h;
  h.api.info.compute_units = 64;
  fake_view a(XD_DTYPE_F32, {1 << 20}, h.buf(0)), o(XD_DTYPE_F32, {1}, h.buf(2));
  xd_attrs_reduce attrs{sizeof attrs, 1};
  ASSERT_EQ(h.run(xpu::run_reduction, XD_OP_SUM, {a.v}, {o.v}, &attrs), XD_OK) << h.error;
  ASSERT_EQ(h.api.launches.size(), 2u);
  EXPECT_EQ(h.api.launches[0].entry, "xd_sum_group");
  EXPECT_EQ(h.api.launches[1].entry, "xd_sum_finish");
  EXPECT_EQ(h.workspace_calls, 1);
  EXPECT_GT(h.api.launches[0].grid.count[0], 1u);  // several groups for one output
  EXPECT_EQ(h.api.launches[1].grid.count[0], 1u);  // one group finishes it
}

TEST(XpuLaunchers, MatmulGridsAreCutWhereTheDeviceLimitsLaunchSize) {
  host_and_call h;
  h.api.info.max_groups[1] = h.api.info.max_groups[2] = 2;
  fake_view a(XD_DTYPE_F32, {5, 64, 8}, h.buf(0)), b(XD_DTYPE_F32, {5, 8, 16}, h.buf(1)),
      o(XD_DTYPE_F32, {5, 64, 16}, h.buf(2));
  ASSERT_EQ(h.run(xpu::run_matmul, XD_OP_BMM, {a.v, b.v}, {o.v}), XD_OK) << h.error;
  // 64 rows in tiles of 16 = 4 row groups, 5 batches: cut into launches of at most 2 x 2.
  EXPECT_EQ(h.api.launches.size(), 6u);
  for (const auto& l : h.api.launches) {
    EXPECT_EQ(l.entry, "xd_gemm_tiled");
    EXPECT_LE(l.grid.count[1], 2u);
    EXPECT_LE(l.grid.count[2], 2u);
  }
}

TEST(XpuLaunchers, Int4TakesTheTensorCoreKernelOnlyWhereTheDeviceHasIt) {
  for (const bool mma : {false, true}) {
    host_and_call h;
    h.api.info.int4_mma = mma;
    fake_view x(XD_DTYPE_BF16, {16, 256}, h.buf(0)), w(XD_DTYPE_U8, {64, 128}, h.buf(1)),
        s(XD_DTYPE_BF16, {2, 64}, h.buf(3)), z(XD_DTYPE_I8, {2, 64}, h.buf(4)), o(XD_DTYPE_BF16, {16, 64}, h.buf(2));
    xd_attrs_int4 attrs{sizeof attrs, 128};
    ASSERT_EQ(h.run(xpu::run_int4_mm, XD_OP_WEIGHT_INT4_MM, {x.v, w.v, s.v, z.v}, {o.v}, &attrs), XD_OK) << h.error;
    ASSERT_EQ(h.api.launches.size(), 1u);
    EXPECT_EQ(h.api.launches[0].entry, mma ? "xd_int4_mma_m16_dense" : "xd_int4_gemv_m16");
    const bool has_local = h.api.launches[0].arg_bytes.back().empty();
    EXPECT_EQ(has_local, mma);  // the mma kernels take a __local buffer
  }
}

// A host whose register_kernel is `record`, called with `ctx`: the kernel-list tests' recorder.
xd_host_api recording_host(void* ctx, decltype(xd_host_api::register_kernel) record) {
  xd_host_api host{};
  host.struct_size = sizeof host;
  host.ctx = ctx;
  host.register_kernel = record;
  return host;
}

TEST(XpuKernelList, EveryOpDtypeIsRegisteredOnceWithTheDeviceCheckUnderThePluginsName) {
  struct recorded {
    std::map<std::pair<int32_t, int32_t>, int> count;
    std::set<std::string> names;
    bool all_checked = true;
  } rec;
  xd_host_api host = recording_host(&rec, [](void* ctx, const xd_kernel_desc* d) {
    auto& r = *static_cast<recorded*>(ctx);
    ++r.count[{d->op, d->dtype}];
    r.names.insert(d->name);
    // check_device, or an op's own check that runs it first (attention also declines head dims
    // its fused kernel cannot hold).
    if (d->check != xpu::check_device && d->check != xpu::check_attention) r.all_checked = false;
    return XD_OK;
  });
  xd_plugin_info info{};
  info.struct_size = sizeof info;
  plugin::fill_info(&info, "xputest", "0", "test", XD_DEVICE_KIND_GPU);
  plugin::registrar r(&host);
  xpu::register_kernels(r);
  EXPECT_TRUE(rec.all_checked);
  size_t expected = 0;
  for (int32_t d = 0; d < XD_DTYPE_COUNT_V1; ++d) expected += xpu::registered_ops(d).size();
  EXPECT_EQ(rec.count.size(), expected);
  for (const auto& [key, n] : rec.count) EXPECT_EQ(n, 1) << "op " << key.first << " dtype " << key.second;
  EXPECT_TRUE(rec.names.count("xputest.rms_norm"));
  EXPECT_TRUE(rec.names.count("xputest.add"));
  EXPECT_FALSE(rec.names.count("xputest.mm.dpas")) << "no device of the plugin builds the DPAS kernel";
}

TEST(XpuKernelList, WhereADeviceBuildsTheDpasKernelItPrecedesTheGeneralMatmulForF16AndBf16) {
  struct recorded {
    std::map<std::pair<int32_t, int32_t>, std::vector<std::string>> names;  // (op, dtype) -> names in order
    std::map<std::string, xd_kernel_check_fn> checks;
  } rec;
  xd_host_api host = recording_host(&rec, [](void* ctx, const xd_kernel_desc* d) {
    auto& r = *static_cast<recorded*>(ctx);
    r.names[{d->op, d->dtype}].push_back(d->name);
    r.checks[d->name] = d->check;
    return XD_OK;
  });
  xd_plugin_info info{};
  info.struct_size = sizeof info;
  plugin::fill_info(&info, "xputest", "0", "test", XD_DEVICE_KIND_GPU);
  plugin::registrar r(&host);
  xpu::registration what;
  what.matmul_dpas = true;
  xpu::register_kernels(r, what);
  const std::pair<xd_op, const char*> ops[] = {
      {XD_OP_MM, "mm"}, {XD_OP_ADDMM, "addmm"}, {XD_OP_BMM, "bmm"}, {XD_OP_BADDBMM, "baddbmm"}};
  for (const auto& [op, name] : ops) {
    const std::string general = std::string("xputest.") + name, dpas = general + ".dpas";
    const std::vector<std::string> both = {dpas, general}, one = {general};
    for (const int32_t d : {XD_DTYPE_F16, XD_DTYPE_BF16}) EXPECT_EQ(rec.names[std::make_pair(op, d)], both) << name;
    EXPECT_EQ(rec.names[std::make_pair(op, XD_DTYPE_F32)], one) << name;
    EXPECT_EQ(rec.checks[dpas], xpu::check_matmul_dpas) << name;
  }
  // The program the DPAS entries load: one per sub-group size, the entry point in each.
  std::set<std::string> programs;
  for (const auto& k : xpu::kernels_for(XD_DTYPE_BF16, false))
    if (k.entry == "xd_gemm_dpas") programs.insert(k.source);
  EXPECT_EQ(programs, (std::set<std::string>{"matmul_dpas8", "matmul_dpas16"}));
  EXPECT_EQ(xpu::program_sources("matmul_dpas16"), (std::vector<std::string>{"common", "matmul", "matmul_dpas"}));
}

TEST(XpuLaunchers, TheDpasKernelRunsOnItsSubGroupSizesProgramAndDeclinesElsewhereSayingWhy) {
  host_and_call h;
  fake_view a(XD_DTYPE_BF16, {2, 70, 40}, h.buf(0)), b(XD_DTYPE_BF16, {2, 40, 130}, h.buf(1)),
      o(XD_DTYPE_BF16, {2, 70, 130}, h.buf(2));
  h.in = {a.v, b.v};
  h.out = {o.v};
  h.call.op = XD_OP_BMM;
  h.call.inputs = h.in.data();
  h.call.outputs = h.out.data();
  h.call.num_inputs = 2;
  h.call.num_outputs = 1;
  char reason[256] = {};
  h.api.info.matmul_dpas_why = "no cl_intel_subgroup_matrix_multiply_accumulate";
  EXPECT_EQ(xpu::check_matmul_dpas(&h.call, reason, sizeof reason), 0);
  EXPECT_STREQ(reason, "recording device has no DPAS kernel (no cl_intel_subgroup_matrix_multiply_accumulate)");
  h.api.info.matmul_dpas_sg = 8;
  EXPECT_EQ(xpu::check_matmul_dpas(&h.call, reason, sizeof reason), 1);
  ASSERT_EQ(h.run(xpu::run_matmul_dpas, XD_OP_BMM, {a.v, b.v}, {o.v}), XD_OK) << h.error;
  ASSERT_EQ(h.api.launches.size(), 1u);
  const recorded_launch& l = h.api.launches[0];
  EXPECT_EQ(l.source, "matmul_dpas8");
  EXPECT_EQ(l.entry, "xd_gemm_dpas");
  EXPECT_EQ(l.dtype, XD_DTYPE_BF16);
  EXPECT_EQ(l.arg_sizes.size(), 7u);  // out, a, b, input, the gemm arguments, row0, batch0: matmul.cl's
  EXPECT_EQ(l.arg_sizes[4], sizeof(xpu::gemm_args));
  EXPECT_EQ(l.grid.local[0], 32u);  // four sub-groups of 8
  EXPECT_EQ(l.grid.count[0], 5u);   // ceil(130 / 32)
  EXPECT_EQ(l.grid.count[1], 3u);   // ceil(70 / 32)
  EXPECT_EQ(l.grid.count[2], 2u);
  // An operand the kernel does not take: declined with the planner's reason.
  fake_view strided(XD_DTYPE_BF16, {2, 70, 40}, h.buf(0));
  strided.strides = {5600, 80, 2};  // every other column
  strided.v.strides = strided.strides.data();
  h.in = {strided.v, b.v};
  h.call.inputs = h.in.data();
  EXPECT_EQ(xpu::check_matmul_dpas(&h.call, reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("a has no unit stride"), std::string::npos) << reason;
}

}  // namespace
