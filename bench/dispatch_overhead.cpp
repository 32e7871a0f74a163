// What one small op costs: ns per xd::add on 1-element CPU f32 tensors, split into
//   BM_BareKernel        the CPU plugin's add kernel called directly (a prebuilt xd_kernel_call)
//   BM_LaunchOnly        core dispatch (table lookup, views, current stream, kernel) into a
//                        preallocated output: the dispatch overhead over the bare kernel
//   BM_XdAdd             the whole public call: checks, broadcast, output allocation, dispatch,
//                        result tensor destruction
// docs/performance.md records the medians; bench/libtorch_add.cpp measures at::add beside it.
#include <xd/xd.hpp>

#include "dispatch/dispatch_table.hpp"
#include "dispatch/launch.hpp"
#include "registry/registry.hpp"
#include "runtime/current.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace xd::detail;

struct Fixture {
  xd::Tensor a = xd::full({1}, 1.0, xd::Dtype::f32, xd::cpu());
  xd::Tensor b = xd::full({1}, 2.0, xd::Dtype::f32, xd::cpu());
  xd::Tensor out = xd::empty({1}, xd::Dtype::f32, xd::cpu());
};

void BM_BareKernel(benchmark::State& state) {
  Fixture f;
  DeviceRecord& dev = Registry::get().device(xd::cpu());
  // The slot's last kernel: the reference loop, which takes every call (the fast kernel in front
  // of it declines 1-element tensors, and a kernel called past its check() is not a measurement).
  const KernelEntry* k = Registry::get().table().slot(XD_OP_ADD, dev.device.type(), xd::Dtype::f32).back();
  const Arg ia = arg(f.a.impl()), ib = arg(f.b.impl()), io = arg(f.out.impl());
  auto view = [](const Arg& x) {
    xd_view v{};
    v.struct_size = sizeof v;
    v.dtype = static_cast<int32_t>(x.t->dtype);
    v.ndim = x.ndim;
    v.sizes = x.sizes;
    v.strides = x.strides;
    v.handle = x.t->storage->handle;
    v.offset = x.t->byte_offset();
    return v;
  };
  const xd_view in[2] = {view(ia), view(ib)};
  const xd_view out[1] = {view(io)};
  xd_attrs_scalar alpha{sizeof(xd_attrs_scalar), 1.0, 1};
  xd_kernel_call call{};
  call.struct_size = sizeof call;
  call.op = XD_OP_ADD;
  call.stream = current_stream_state(dev).handle;
  call.num_inputs = 2;
  call.num_outputs = 1;
  call.inputs = in;
  call.outputs = out;
  call.attrs = &alpha;
  call.plugin_ctx = dev.backend->api.ctx;
  call.host = &dev.backend->host;
  call.user_data = k->user_data;
  for (auto _ : state) {
    benchmark::DoNotOptimize(k->fn(&call));
    benchmark::ClobberMemory();
  }
  state.SetLabel(k->name);
}
BENCHMARK(BM_BareKernel);

void BM_LaunchOnly(benchmark::State& state) {
  Fixture f;
  DeviceRecord& dev = Registry::get().device(xd::cpu());
  xd_attrs_scalar alpha{sizeof(xd_attrs_scalar), 1.0, 1};
  for (auto _ : state) {
    launch(XD_OP_ADD, xd::Dtype::f32, dev, {arg(f.a.impl()), arg(f.b.impl())}, {arg(f.out.impl())}, &alpha);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_LaunchOnly);

void BM_XdAdd(benchmark::State& state) {
  Fixture f;
  for (auto _ : state) {
    xd::Tensor c = xd::add(f.a, f.b);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_XdAdd);

void BM_XdEmpty(benchmark::State& state) {
  for (auto _ : state) {
    xd::Tensor c = xd::empty({1}, xd::Dtype::f32, xd::cpu());
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_XdEmpty);

}  // namespace

BENCHMARK_MAIN();
