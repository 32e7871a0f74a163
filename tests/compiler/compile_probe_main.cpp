// A child process for the compiler's cross-process tests: compiles and calls one function on the
// CPU device (twice: trace, then the graph) and prints the compiled stats, so a test can see
// what a fresh process pays for a graph another process built already.
#include <xd/compile.hpp>
#include <xd/xd.hpp>

#include <cstdio>

int main() {
  try {
    auto f = xd::compile([](const xd::Tensor& x, const xd::Tensor& y) { return xd::add(xd::mul(xd::silu(x), y), x); });
    const xd::Tensor x = xd::full({3, 5}, 0.25, xd::Dtype::f32, xd::cpu());
    const xd::Tensor y = xd::full({3, 5}, 2.0, xd::Dtype::f32, xd::cpu());
    f(x, y);
    const xd::Tensor z = f(x, y);
    const xd::CompileStats s = f.stats();
    std::printf("graph_calls=%d kernels=%d value=%.6f reason=%s\n", s.graph_calls, s.kernels,
                static_cast<double>(z.to_vector<float>().at(0)), s.eager_reason.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
