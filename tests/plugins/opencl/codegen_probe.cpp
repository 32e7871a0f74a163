// A second process for the codegen tests (codegen_test.cpp): builds the prelude and
// cg::kAffineKernel through the opencl plugin's xd_codegen_api, launches it over 1000 f32 values
// and checks y = 2x + 1. Prints "ok" and exits 0, or prints the error and exits 1. Run with
// XD_LOG=debug, its output says whether the program was built or loaded from XD_CACHE_DIR.
#include "codegen_util.hpp"

#include <cstdio>
#include <exception>

namespace {

int run() {
  const xd::Device dev = xd::Device::parse("opencl");
  const xdo::cg::Target t = xdo::cg::opencl_target(dev);
  if (t.api == nullptr) {
    std::printf("error: the opencl plugin has no codegen table\n");
    return 1;
  }
  xd_codegen_target target{};
  target.struct_size = sizeof target;
  xd_program program = nullptr;
  xd_codegen_kernel kernel = nullptr;
  if (t.api->target(t.ctx, t.device, XD_CODEGEN_OPENCL_C, &target) != XD_OK ||
      t.api->program_build(t.ctx, t.device, XD_CODEGEN_OPENCL_C,
                           (std::string(target.prelude) + xdo::cg::kAffineKernel).c_str(), &program) != XD_OK ||
      t.api->kernel_get(t.ctx, t.device, program, "affine", &kernel) != XD_OK) {
    std::printf("error: %s\n", xdo::cg::last_error().c_str());
    return 1;
  }
  const int64_t n = 1000;
  const xd::Tensor x = xd::arange(0, static_cast<double>(n), 1, xd::Dtype::f32, dev);
  const xd::Tensor y = xd::empty({n}, xd::Dtype::f32, dev);
  xdo::cg::Args args;
  args.buffer(y);
  args.buffer(x);
  args.value(n);
  const xd_codegen_grid grid = xdo::cg::grid_1d((n + 255) / 256 * 256, 256);
  if (t.api->kernel_launch(t.ctx, t.device, xd::current_stream(dev).handle(), kernel, args.list.data(),
                           static_cast<int32_t>(args.list.size()), &grid) != XD_OK) {
    std::printf("error: %s\n", xdo::cg::last_error().c_str());
    return 1;
  }
  const std::vector<float> got = y.to(xd::cpu()).to_vector<float>();
  for (int64_t i = 0; i < n; ++i)
    if (got[static_cast<size_t>(i)] != 2.0f * static_cast<float>(i) + 1.0f) {
      std::printf("wrong value %g at %lld\n", static_cast<double>(got[static_cast<size_t>(i)]),
                  static_cast<long long>(i));
      return 1;
    }
  std::printf("ok\n");
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
