// An application built against an installed xdispatch (find_package, pkg-config or
// add_subdirectory): prints the load report and, when the CPU backend is there, 1 + 2.
#include <xd/xd.hpp>

#include <cstdio>
#include <exception>

int main() {
  try {
    for (const xd::LoadReportRow& row : xd::load_report())
      std::printf("row %s %s %s\n", xd::load_status_name(row.status), row.name.c_str(), row.path.c_str());
    bool have_cpu = false;
    for (const xd::BackendInfo& b : xd::backends()) have_cpu |= b.name == "cpu";
    if (have_cpu) {
      const xd::Tensor s = xd::add(xd::full({2}, 1.0, xd::Dtype::f32, xd::cpu()), xd::full({2}, 2.0, xd::Dtype::f32, xd::cpu()));
      std::printf("sum %g\n", static_cast<double>(s.to_vector<float>()[1]));
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
