// Loads the toy plugin itself (xd::load_plugin; no XD_PLUGIN_PATH needed), runs relu(a + 2*b) on
// its device and checks the result against the CPU reference. Usage: toy_app [PLUGIN_FILE]
// (default: the plugin this project built). Exit status 0 when the values agree.
#include <xd/xd.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc > 2) {
    std::fprintf(stderr, "usage: toy_app [PLUGIN_FILE]\n");
    return 2;
  }
  try {
    const std::string file = argc == 2 ? argv[1] : TOY_PLUGIN_FILE;
    const xd::LoadReportRow row = xd::load_plugin(file);
    if (row.status != xd::LoadStatus::loaded) {
      std::fprintf(stderr, "toy_app: %s: %s: %s\n", file.c_str(), xd::load_status_name(row.status), row.reason.c_str());
      return 1;
    }
    const xd::Device toy = xd::Device::parse("toy:0");
    const std::vector<float> av = {-3, -1, 0, 1, 2, 5}, bv = {1, 0.25f, -2};
    const xd::Tensor a = xd::tensor(av, {2, 3}, xd::cpu());
    const xd::Tensor b = xd::tensor(bv, {3}, xd::cpu());  // broadcast over the rows
    const xd::Tensor on_toy = xd::relu(xd::add(a.to(toy), b.to(toy), 2.0));
    const xd::Tensor on_cpu = xd::relu(xd::add(a, b, 2.0));
    std::printf("%s\n", on_toy.str().c_str());
    if (on_toy.to(xd::cpu()).to_vector<float>() != on_cpu.to_vector<float>()) {
      std::fprintf(stderr, "toy_app: toy and cpu disagree:\n%s\n", on_cpu.str().c_str());
      return 1;
    }
    std::printf("toy agrees with cpu\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toy_app: %s\n", e.what());
    return 1;
  }
}
