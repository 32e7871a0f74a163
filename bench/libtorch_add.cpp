// at::add on 1-element CPU float tensors, the libtorch side of dispatch_overhead.cpp.
// Built only with -DXD_BENCH_LIBTORCH=ON and Debian's libtorch-dev installed (not part of CI).
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <benchmark/benchmark.h>

namespace {

void BM_AtAdd(benchmark::State& state) {
  at::set_num_threads(1);
  const at::Tensor a = at::ones({1}), b = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_AtAdd);

void BM_AtEmpty(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor c = at::empty({1});
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_AtEmpty);

}  // namespace

BENCHMARK_MAIN();
