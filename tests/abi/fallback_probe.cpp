// fallback_probe STUB_PLUGIN: loads the stub plugin (no kernels but fill) and runs mul, then sub,
// three times each on its device under the caller's XD_FALLBACK and XD_LOG, printing each result
// and the fallback counter after every call. fallback_test runs it in a fresh process, where the
// one-time warning and the counter start from nothing. Exit status: 0, or 1 on an error.
#include <xd/xd.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string text(const std::vector<float>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(static_cast<int>(v[i]));
  return s + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fallback_probe STUB_PLUGIN\n");
    return 1;
  }
  try {
    const xd::LoadReportRow row = xd::load_plugin(argv[1]);
    if (row.status != xd::LoadStatus::loaded) {
      std::fprintf(stderr, "fallback_probe: %s did not load: %s\n", argv[1], row.reason.c_str());
      return 1;
    }
    const xd::Device d = xd::Device::parse("stubdev");
    const xd::Tensor a = xd::tensor<float>({1, 2, 3}, {3}, d);
    const xd::Tensor b = xd::tensor<float>({4, 5, 6}, {3}, d);
    for (const char* op : {"mul", "sub"}) {
      for (int i = 0; i < 3; ++i) {
        const xd::Tensor c = std::string(op) == "mul" ? xd::mul(a, b) : xd::sub(b, a);
        // stdout flushed per line: its order against the warning on stderr is what the test reads.
        std::printf("%s %d on %s: %s, fallbacks %llu\n", op, i, c.device().str().c_str(),
                    text(c.to_vector<float>()).c_str(), static_cast<unsigned long long>(xd::fallback_count()));
        std::fflush(stdout);
      }
    }
    return 0;
  } catch (const xd::Error& e) {
    std::fprintf(stderr, "fallback_probe: %s\n", e.what());
    return 1;
  }
}
