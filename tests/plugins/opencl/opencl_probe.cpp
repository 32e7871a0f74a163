// A small program the OpenCL tests start as a separate process, so that a test can observe what
// a fresh process does (load the program cache, see no platform, fail a build):
//   opencl_probe run     adds f32 and i32 tensors on opencl:0, checks the sums, prints "ok"
//   opencl_probe report  prints each load-report row ("<name> <status>: <reason>") and whether
//                        the CPU backend still computes ("cpu ok")
// Exit status 0 on success, 1 with the error's message on stdout otherwise.
#include <xd/xd.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace {

int run() {
  const xd::Device d = xd::Device::parse("opencl");
  for (xd::Dtype dt : {xd::Dtype::f32, xd::Dtype::i32}) {
    const xd::Tensor a = xd::arange(0, 100, 1, dt, d);
    const xd::Tensor s = xd::sum(xd::add(a, a).to(xd::Dtype::f64));
    if (s.item<double>() != 9900.0) {
      std::printf("wrong sum %g for %s\n", s.item<double>(), xd::dtype_name(dt));
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}

int report() {
  for (const auto& row : xd::load_report())
    std::printf("%s %s: %s\n", row.name.c_str(), xd::load_status_name(row.status), row.reason.c_str());
  const xd::Tensor a = xd::ones({8}, xd::Dtype::f32, xd::cpu());
  std::printf(xd::sum(a).item<float>() == 8.0f ? "cpu ok\n" : "cpu wrong\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "run") return run();
    if (mode == "report") return report();
    std::printf("usage: opencl_probe run|report\n");
    return 2;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
