// xd-info: what xdispatch sees on this machine — the plugin load report, the backends and their
// devices, and which kernels exist for which op, backend and dtype.
//
//   xd-info            human-readable report
//   xd-info --json     the same as one JSON object: plugins (with their declared options),
//                      backends, devices, kernels, default_device
//   xd-info --kernels  every registered kernel, in the order each dispatch slot tries them
//   xd-info --version  the xdispatch version, plugin ABI and commit it was built from
// Exit status: 0 on success, 1 when XD_* settings are invalid (e.g. XD_BACKEND names an
// unavailable backend), 2 on a usage error (an unknown option, a stray positional argument).
#include "common/build_info.hpp"
#include "common/build_info_json.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "common/startup.hpp"

#include <xd/plugin_abi.h>
#include <xd/xd.hpp>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <set>

namespace po = boost::program_options;

namespace {

nlohmann::json device_json(const xd::Device& d) {
  const auto& p = d.properties();
  return {{"device", d.str()},       {"backend", d.backend()},        {"index", d.index()},
          {"name", p.name},          {"vendor", p.vendor},            {"driver_version", p.driver_version},
          {"kind", xd::device_kind_name(p.kind)}, {"total_memory", p.total_memory}, {"compute_units", p.compute_units},
          {"max_work_group_size", p.max_work_group_size}, {"f16", p.supports_f16}, {"f64", p.supports_f64},
          {"bf16", p.supports_bf16}, {"timing", p.timing}};
}

int print_json(const xd::Device& def) {
  nlohmann::json j;
  j["xdispatch"] = xd::cli::build_info_json();
  j["plugins"] = nlohmann::json::array();
  for (const auto& r : xd::load_report()) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& o : r.options)
      options.push_back({{"name", o.name}, {"kind", o.kind}, {"accepted", o.accepted}, {"default", o.default_value},
                         {"doc", o.doc}});
    j["plugins"].push_back({{"path", r.path}, {"name", r.name}, {"status", xd::load_status_name(r.status)},
                            {"reason", r.reason}, {"abi", r.abi}, {"version", r.version}, {"family", r.family},
                            {"options", options}});
  }
  j["backends"] = nlohmann::json::array();
  for (const auto& b : xd::backends())
    j["backends"].push_back({{"name", b.name}, {"devices", b.device_count}, {"path", b.path}, {"version", b.version},
                             {"abi", b.abi}, {"family", b.family}, {"host_reference", b.host_reference}});
  j["devices"] = nlohmann::json::array();
  for (const auto& d : xd::devices()) j["devices"].push_back(device_json(d));
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : xd::kernels())
    j["kernels"].push_back({{"op", k.op}, {"backend", k.backend}, {"dtype", xd::dtype_name(k.dtype)}, {"name", k.name},
                            {"priority", k.priority}});
  j["default_device"] = def.str();
  std::cout << j.dump(2) << "\n";
  return 0;
}

// Every registered kernel in the order its slot tries it: the names xd::set_kernel_enabled takes.
void print_kernels() {
  std::printf("%-20s %-10s %-9s %s\n", "OP", "BACKEND", "DTYPE", "KERNEL (in the order tried)");
  for (const auto& k : xd::kernels())
    std::printf("%-20s %-10s %-9s %s\n", k.op.c_str(), k.backend.c_str(), xd::dtype_name(k.dtype), k.name.c_str());
}

void print_text(const xd::Device& def) {
  std::printf("xdispatch plugin ABI %d.%d\n\nLoad report:\n%s\n", XD_ABI_MAJOR, XD_ABI_MINOR,
              xd::format_load_report().c_str());
  std::printf("Devices:\n");
  for (const auto& d : xd::devices()) {
    const auto& p = d.properties();
    std::printf("  %-10s %s%s\n", d.str().c_str(), p.name.c_str(), d == def ? "   (default)" : "");
    std::printf("             vendor %s, driver %s, %s, %u compute units, %.1f GiB, f16 %s, f64 %s, bf16 %s\n",
                p.vendor.c_str(), p.driver_version.c_str(), xd::device_kind_name(p.kind), p.compute_units,
                static_cast<double>(p.total_memory) / (1ull << 30), p.supports_f16 ? "yes" : "no",
                p.supports_f64 ? "yes" : "no", p.supports_bf16 ? "yes" : "no");
  }
  // The settings each plugin declared it reads from the environment (also for plugins that did not
  // load: a user may be setting one to make it load).
  std::printf("\nPlugin options (docs/env-vars.md):\n");
  bool any = false;
  for (const auto& r : xd::load_report()) {
    for (const auto& o : r.options) {
      any = true;
      std::printf("  %-10s %-32s %s: %s; default %s\n             %s\n", r.name.c_str(), o.name.c_str(), o.kind.c_str(),
                  o.accepted.c_str(), o.default_value.empty() ? "unset" : o.default_value.c_str(), o.doc.c_str());
    }
  }
  if (!any) std::printf("  (none declared)\n");
  // Coverage: one row per op, one column per backend, the dtypes that have a kernel.
  std::map<std::string, std::map<std::string, std::set<int>>> cov;
  for (const auto& k : xd::kernels()) cov[k.op][k.backend].insert(static_cast<int>(k.dtype));
  std::printf("\nKernel coverage (op: backend dtypes):\n");
  const auto backends = xd::backends();
  for (const auto& op : xd::op_names()) {
    std::printf("  %-18s", op.c_str());
    for (const auto& b : backends) {
      std::string dts;
      for (int d : cov[op][b.name]) dts += std::string(dts.empty() ? "" : ",") + xd::dtype_name(static_cast<xd::Dtype>(d));
      std::printf(" %s[%s]", b.name.c_str(), dts.empty() ? "-" : dts.c_str());
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description opts("xd-info: plugins, devices and kernels xdispatch can see\nOptions");
  opts.add_options()("help,h", "show this help")("json", "print one JSON object instead of text")(
      "kernels", "list every registered kernel by op, backend and dtype, in the order each slot tries them")(
      "version", "print the xdispatch version, plugin ABI and commit this tool was built from, and exit");
  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
    po::store(parsed, vm);
    po::notify(vm);
    xd::cli::reject_positional(parsed);
  } catch (const po::error& e) {
    std::fprintf(stderr, "xd-info: %s\n%s", e.what(), "try 'xd-info --help'\n");
    return 2;
  } catch (const xd::cli::UsageError& e) {
    std::fprintf(stderr, "xd-info: %s\n", e.what());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts << "\nEnvironment: XD_BACKEND, XD_DEVICES, XD_PLUGIN_PATH, XD_FALLBACK, XD_LOG (docs/env-vars.md)\n";
    return 0;
  }
  if (vm.count("version")) {
    std::cout << xd::cli::version_text("xd-info");
    return 0;
  }
  try {
    const xd::Device def = xd::cli::startup_or_exit("xd-info", 1).device;  // a bad XD_BACKEND fails here
    if (vm.count("json")) return print_json(def);
    if (vm.count("kernels")) {
      print_kernels();
      return 0;
    }
    print_text(def);
    return 0;
  } catch (const xd::Error& e) {
    std::fprintf(stderr, "xd-info: error: %s\n", e.what());
    return 1;
  }
}
