// A second process for the codegen tests: what the CPU plugin's codegen does under the environment
// the test gives it (XD_CXX, XD_CACHE_DIR), which the plugin reads once per process.
//   codegen_probe target          target(): status, message, compiler
//   codegen_probe build <file>    builds the prelude + <file>, runs its kernel `k` (y = f(x) over
//                                 8 floats x = 0..7) and prints status, message and y
#include <xd/xd.hpp>

#include "plugin/host_api.hpp"
#include "registry/registry.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

int report(xd_status s) {
  std::printf("status=%d\nmessage=%s\n", static_cast<int>(s), xd::detail::take_plugin_error().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  auto& rec = xd::detail::Registry::get().device(xd::cpu());
  const xd_codegen_api* api = rec.backend->api.codegen;
  if (api == nullptr) {
    std::printf("no codegen table\n");
    return 1;
  }
  xd_codegen_target t{};
  t.struct_size = sizeof t;
  const xd_status ts = api->target(rec.backend->api.ctx, rec.plugin_device, XD_CODEGEN_CPP, &t);
  if (mode == "target" || ts != XD_OK) {
    if (ts == XD_OK) std::printf("compiler=%s\n", t.compiler);
    return report(ts);
  }
  if (mode != "build" || argc < 3) return 2;
  std::ifstream f(argv[2]);
  std::stringstream body;
  body << f.rdbuf();
  const std::string source = std::string(t.prelude) + "\n" + body.str();
  xd_program program = nullptr;
  if (const xd_status s =
          api->program_build(rec.backend->api.ctx, rec.plugin_device, XD_CODEGEN_CPP, source.c_str(), &program);
      s != XD_OK)
    return report(s);
  xd_codegen_kernel k = nullptr;
  if (const xd_status s = api->kernel_get(rec.backend->api.ctx, rec.plugin_device, program, "k", &k); s != XD_OK)
    return report(s);
  float x[8], y[8] = {};
  for (int i = 0; i < 8; ++i) x[i] = static_cast<float>(i);
  const xd_codegen_arg args[2] = {{XD_CODEGEN_ARG_BUFFER, 0, x}, {XD_CODEGEN_ARG_BUFFER, 0, y}};
  const xd_codegen_grid grid{1, {8, 1, 1}, {1, 1, 1}};
  const xd_status s = api->kernel_launch(rec.backend->api.ctx, rec.plugin_device, nullptr, k, args, 2, &grid);
  std::printf("y=");
  for (float v : y) std::printf("%g ", static_cast<double>(v));
  std::printf("\n");
  return report(s);
}
