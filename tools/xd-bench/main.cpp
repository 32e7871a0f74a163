// xd-bench: per op x backend x dtype x size, the median time of N calls after warm-up, timed
// with device events; GB/s under the traffic model of workload.hpp (or GFLOP/s for matmul); and
// that as a fraction of the device's copy bandwidth, measured in the same run by the copy kernel
// (on the host device, beside a plain std::memcpy of the same bytes: the copy kernel's yardstick).
// With --startup, cold vs warm start through the program cache (startup.hpp). Fused workloads
// (chain6, llama_mlp, ...) run twice, eagerly and through xd::compile (fused_workload.cpp); with
// --compile-time, xd::compile's first calls, cold and warm (compile_time.hpp).
// docs/performance.md records the figures and the commands that gave them.
//
// Rows are printed (and written to --csv) as each measurement finishes; --json is written whole
// at the end. On a terminal, a progress line on stderr says which measurement is running.
//
// Exit status: 0 when every selected measurement ran, 1 when one failed (its row says why),
// 2 on a usage error (bad option or value, an empty file name, a stray positional argument;
// unknown op, dtype or backend, on the command line or in XD_BACKEND; malformed size; a --json
// or --csv file that cannot be written).
#include "common/build_info.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/startup.hpp"
#include "compile_time.hpp"
#include "report.hpp"
#include "startup.hpp"
#include "timing.hpp"
#include "workload.hpp"

#include <xd/xd.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace po = boost::program_options;
using namespace xd::bench;

namespace {

using xd::cli::available_backends;
using xd::cli::UsageError;

// "opencl" or "opencl:1" -> the device; a usage error that names what is available otherwise.
xd::Device resolve(const std::string& text) {
  try {
    return xd::Device::parse(text);
  } catch (const xd::Error& e) {
    throw UsageError(std::string(e.what()) + "\navailable backends: " + available_backends());
  }
}

// Bounds of the numeric options: a measurement keeps every timing (reps of them), and the copy
// reference allocates 2 x copy_mib; values beyond these are typing mistakes, not measurements.
constexpr uint64_t kMaxReps = 1000000;
constexpr double kMaxCopyMib = 1 << 20;  // 1 TiB

struct Options {
  std::vector<std::string> backends, ops, dtypes, sizes;
  int reps = 20, warmup = 3;
  double copy_mib = 256;
  std::string reps_text = "20", warmup_text = "3", copy_mib_text = "256";
  bool startup = false, list = false, compile_time = false, version = false;
  std::string json, csv, startup_child, compile_time_child;
};

Options parse(int argc, char** argv, po::options_description& opts) {
  Options o;
  // clang-format off
  opts.add_options()
      ("help,h", "this help")
      ("version", po::bool_switch(&o.version), "print the xdispatch version, plugin ABI and commit this tool was built from, and exit")
      ("backend,b", po::value(&o.backends)->composing(), "backend or device to measure, e.g. opencl or opencl:1 (repeatable; default: the device XD_BACKEND selects, else every available backend)")
      ("op", po::value(&o.ops)->composing(), "workload (repeatable; default: all; --list shows them)")
      ("dtype", po::value(&o.dtypes)->composing(), "dtype (repeatable; default: f32)")
      ("size", po::value(&o.sizes)->composing(), "shape, e.g. 4096x4096; matmul MxNxK or N; bmm BxMxNxK (repeatable; default: per workload)")
      ("reps", po::value(&o.reps_text)->default_value("20"), "timed calls per measurement, 1 to 1000000 (the median is reported)")
      ("warmup", po::value(&o.warmup_text)->default_value("3"), "untimed calls first, 0 to 1000000")
      ("copy-mib", po::value(&o.copy_mib_text)->default_value("256"), "MiB the copy-bandwidth reference copies (at least 4 bytes, at most 1048576 MiB)")
      ("startup", po::bool_switch(&o.startup), "also measure cold vs warm start (two child processes per backend)")
      ("compile-time", po::bool_switch(&o.compile_time), "also time xd::compile's first calls of the selected fused workloads, cold and warm (two child processes per backend)")
      ("json", po::value(&o.json), "write every result as JSON to this file, at the end")
      ("csv", po::value(&o.csv), "write every result as CSV (RFC 4180 quoting) to this file, a row as it finishes")
      ("list", po::bool_switch(&o.list), "list the workloads and exit")
      ("startup-child", po::value(&o.startup_child), "(internal) run as the --startup child, writing JSON here")
      ("compile-time-child", po::value(&o.compile_time_child), "(internal) run as the --compile-time child, writing JSON here");
  // clang-format on
  po::variables_map vm;
  const po::parsed_options parsed = po::command_line_parser(argc, argv).options(opts).run();
  po::store(parsed, vm);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    std::exit(0);
  }
  xd::cli::reject_positional(parsed);  // before --version: "xd-bench --version x" is a mistake too
  po::notify(vm);
  if (o.version) {
    std::cout << xd::cli::version_text("xd-bench");
    std::exit(0);
  }
  // Read strictly: "nan" or "inf" MiB, "-1" reps, "1e3" or "20x" must stop here, not surface
  // later as a misleading failure (docs/performance.md, "xd-bench options").
  o.reps = static_cast<int>(xd::cli::parse_count("--reps", o.reps_text, 1, kMaxReps));
  o.warmup = static_cast<int>(xd::cli::parse_count("--warmup", o.warmup_text, 0, kMaxReps));
  o.copy_mib = xd::cli::parse_number("--copy-mib", o.copy_mib_text, 0, kMaxCopyMib,
                                     "a number of MiB greater than 0 and at most 1048576");
  if (o.copy_mib * 1024 * 1024 < 4)
    throw UsageError("--copy-mib '" + o.copy_mib_text + "' is out of range: the copy needs at least one f32 (4 bytes)");
  for (const char* option : {"--json", "--csv", "--startup-child", "--compile-time-child"})
    xd::cli::require_nonempty(vm, option, "file");
  return o;
}

// Whether `device` is the host reference device (its memory is host memory); false when no
// loaded backend declares one.
bool is_host_device(xd::Device device) {
  try {
    return device == xd::cpu();
  } catch (const xd::BackendError&) {
    return false;
  }
}

// The copy kernel's bandwidth on `device`: f32 copy of copy_mib MiB, read + write counted. On the
// host device also a plain std::memcpy of the same bytes, same warm-up and reps, its median: the
// yardstick that says whether the copy kernel (and so every %copy below it) is honest.
DeviceRow copy_reference(const std::string& backend, xd::Device device, const Options& o) {
  DeviceRow d;
  d.backend = backend;
  d.device = device.str();
  d.name = device.properties().name;
  d.driver = device.properties().driver_version;
  const int64_t n = static_cast<int64_t>(o.copy_mib * 1024 * 1024 / 4);
  const Prepared p = prepare(*find_workload("copy"), xd::Dtype::f32, {n}, device);
  const Timing t = measure(p, device, o.warmup, o.reps);
  d.copy_bytes = p.bytes;
  d.copy_gbps = p.bytes / (t.median() * 1e6);
  if (is_host_device(device)) {
    const Timing m = measure_memcpy(static_cast<size_t>(n) * 4, o.warmup, o.reps);
    if (m.median() > 0) {
      d.memcpy_gbps = p.bytes / (m.median() * 1e6);  // read + write, as the copy
      d.copy_vs_memcpy = d.copy_gbps / d.memcpy_gbps;
    }
  }
  return d;
}

// A measured row's figures: the median and minimum, the kernels that ran, and the rates against
// the workload's bytes and flops and the run's copy bandwidth.
void record_timing(ResultRow& r, const Prepared& p, const Timing& t, double copy_gbps) {
  r.median_ms = t.median();
  r.min_ms = t.min();
  r.device_clock = t.device_clock;
  r.kernels = t.kernels;
  r.gbps = r.median_ms > 0 ? p.bytes / (r.median_ms * 1e6) : 0;
  r.gflops = r.median_ms > 0 ? p.flops / (r.median_ms * 1e6) : 0;
  r.copy_fraction = copy_gbps > 0 ? r.gbps / copy_gbps : 0;
}

// A fused workload's two rows: eagerly, then through xd::compile (warm: prepare_fused made the
// traced call), the compiled row carrying the speedup. False when either failed.
bool measure_fused(const WorkloadInfo& w, xd::Dtype dtype, const std::vector<int64_t>& size, xd::Device device,
                   const Options& o, double copy_gbps, Report& report) {
  bool ok = true;
  double eager_ms = 0;
  for (const bool compiled : {false, true}) {
    ResultRow r;
    r.backend = device.backend();
    r.op = w.name;
    r.mode = compiled ? "compiled" : "eager";
    r.dtype = xd::dtype_name(dtype);
    r.size = format_size(size);
    r.reps = o.reps;
    try {
      const Prepared p = prepare_fused(w, dtype, size, device, compiled);
      const Timing t = measure(p, device, o.warmup, o.reps);
      record_timing(r, p, t, copy_gbps);
      if (compiled) {
        // The generated kernels are not in the kernel registry: the graph's counters say what ran.
        const xd::CompileStats st = p.stats();
        if (st.graph_calls == 0)
          r.kernels.insert(r.kernels.begin(), "ran eagerly (" + st.eager_reason + ")");
        else
          r.kernels.insert(r.kernels.begin(), "xd::compile(" + std::to_string(st.kernels) + " fused, " +
                                                  std::to_string(st.eager_nodes) + " dispatched)");
        r.speedup = eager_ms > 0 && r.median_ms > 0 ? eager_ms / r.median_ms : 0;
      } else {
        eager_ms = r.median_ms;
      }
    } catch (const xd::Error& e) {
      r.status = std::string("error: ") + e.what();
      ok = false;
    }
    report.rows.push_back(std::move(r));
  }
  return ok;
}

int run(const Options& o, const xd::cli::Startup& env, const std::vector<std::string>& args) {
  std::vector<std::string> backends = o.backends;
  if (backends.empty() && env.from_env) backends.push_back(env.from_env->str());
  if (backends.empty())
    for (const auto& b : xd::backends()) backends.push_back(b.name);
  std::vector<const WorkloadInfo*> selected;
  if (o.ops.empty())
    for (const auto& w : workloads()) selected.push_back(&w);
  for (const auto& name : o.ops) {
    const WorkloadInfo* w = find_workload(name);
    if (w == nullptr) throw UsageError("unknown workload '" + name + "'; xd-bench --list shows them");
    selected.push_back(w);
  }
  std::vector<xd::Dtype> dtypes;
  for (const auto& name : o.dtypes) {
    try {
      dtypes.push_back(xd::parse_dtype(name));
    } catch (const xd::Error& e) {
      throw UsageError(e.what());
    }
  }
  if (dtypes.empty()) dtypes.push_back(xd::Dtype::f32);
  // Sizes per workload, parsed up front so that a malformed one is a usage error before any run.
  std::vector<std::vector<std::vector<int64_t>>> sizes;
  for (const WorkloadInfo* w : selected) {
    std::vector<std::vector<int64_t>> s;
    try {
      for (const auto& text : o.sizes) s.push_back(parse_size(text, w->kind));
    } catch (const xd::Error& e) {
      throw UsageError(w->name + ": " + e.what());
    }
    if (s.empty()) s.push_back(w->default_size);
    sizes.push_back(std::move(s));
  }

  // The startup measurement uses each workload's first size.
  auto startup_job = [&](const std::string& backend) {
    StartupJob job{backend, selected, dtypes, {}};
    for (const auto& s : sizes) job.sizes.push_back(s.front());
    return job;
  };

  auto compile_time_job = [&](const std::string& backend) {
    CompileTimeJob job{backend, {}, dtypes, {}};
    for (size_t i = 0; i < selected.size(); ++i)
      if (is_fused(selected[i]->kind)) {
        job.workloads.push_back(selected[i]);
        job.sizes.push_back(sizes[i].front());
      }
    return job;
  };
  if (o.compile_time && compile_time_job("").workloads.empty())
    throw UsageError(
        "--compile-time needs a fused workload (chain6, silu_mul_add, silu_rms_norm, llama_mlp) among --op");
  if (!o.compile_time_child.empty()) {
    if (backends.size() != 1) throw UsageError("--compile-time-child takes exactly one --backend");
    run_compile_time_child(compile_time_job(backends[0]), o.compile_time_child);
    return 0;
  }

  if (!o.startup_child.empty()) {
    if (backends.size() != 1) throw UsageError("--startup-child takes exactly one --backend");
    run_startup_child(startup_job(backends[0]), o.startup_child);
    return 0;
  }

  std::vector<xd::Device> devices;
  for (const auto& b : backends) devices.push_back(resolve(b));
  if (!o.json.empty()) xd::cli::require_writable("--json", o.json);
  if (!o.csv.empty()) xd::cli::require_writable("--csv", o.csv);

  // The op column fits the longest label a selected workload gives, known before the first row.
  int op_width = 18;
  for (const WorkloadInfo* w : selected)
    op_width = std::max(op_width, static_cast<int>(row_label(w->name, is_fused(w->kind) ? "compiled" : "").size()));
  // What will be measured, counted first for the progress line's [i/n].
  size_t total = 0;
  for (const xd::Device& device : devices)
    for (size_t wi = 0; wi < selected.size(); ++wi)
      for (xd::Dtype dtype : dtypes)
        if (has_kernel(selected[wi]->op, device.backend(), dtype)) total += sizes[wi].size();
  size_t done = 0;

  Report report;
  report.warmup = o.warmup;
  RowStream out(op_width, o.csv);
  xd::cli::Progress progress;
  bool failed = false;
  for (size_t bi = 0; bi < backends.size(); ++bi) {
    const xd::Device device = devices[bi];
    const std::string& backend = device.backend();
    progress.update(done, total, backend + " copy bandwidth reference");
    report.devices.push_back(copy_reference(backend, device, o));
    const double copy_gbps = report.devices.back().copy_gbps;
    progress.clear();
    out.device(report.devices.back());
    for (size_t wi = 0; wi < selected.size(); ++wi) {
      const WorkloadInfo& w = *selected[wi];
      for (xd::Dtype dtype : dtypes) {
        if (!has_kernel(w.op, backend, dtype)) continue;  // not an error: the backend has no such kernel
        for (const auto& size : sizes[wi]) {
          progress.update(++done, total,
                          backend + " " + w.name + " " + xd::dtype_name(dtype) + " " + format_size(size));
          const size_t first = report.rows.size();
          if (is_fused(w.kind)) {
            if (!measure_fused(w, dtype, size, device, o, copy_gbps, report)) failed = true;
          } else {
            ResultRow r;
            r.backend = backend;
            r.op = w.name;
            r.dtype = xd::dtype_name(dtype);
            r.size = format_size(size);
            r.reps = o.reps;
            try {
              const Prepared p = prepare(w, dtype, size, device);
              const Timing t = measure(p, device, o.warmup, o.reps);
              record_timing(r, p, t, copy_gbps);
            } catch (const xd::Error& e) {
              r.status = std::string("error: ") + e.what();
              failed = true;
            }
            report.rows.push_back(std::move(r));
          }
          progress.clear();
          for (size_t i = first; i < report.rows.size(); ++i) out.row(report.rows[i]);
        }
      }
    }
    if (o.compile_time) {
      std::vector<std::string> child = {args[0], "--backend", backends[bi]};
      for (const WorkloadInfo* w : selected) child.insert(child.end(), {"--op", w->name});
      for (xd::Dtype d : dtypes) child.insert(child.end(), {"--dtype", xd::dtype_name(d)});
      for (const auto& s : o.sizes) child.insert(child.end(), {"--size", s});
      try {
        for (auto& row : measure_compile_time(compile_time_job(backends[bi]), child))
          report.compile_time.push_back(std::move(row));
      } catch (const xd::Error& e) {
        std::fprintf(stderr, "xd-bench: compile time on %s: %s\n", backends[bi].c_str(), e.what());
        failed = true;
      }
    }
    if (o.startup) {
      const StartupJob job = startup_job(backends[bi]);
      std::vector<std::string> child = {args[0], "--backend", backends[bi]};
      for (const WorkloadInfo* w : selected) child.insert(child.end(), {"--op", w->name});
      for (xd::Dtype d : dtypes) child.insert(child.end(), {"--dtype", xd::dtype_name(d)});
      for (const auto& s : o.sizes) child.insert(child.end(), {"--size", s});
      try {
        for (auto& row : measure_startup(job, child)) report.startup.push_back(std::move(row));
      } catch (const xd::Error& e) {
        std::fprintf(stderr, "xd-bench: startup on %s: %s\n", backends[bi].c_str(), e.what());
        failed = true;
      }
    }
  }
  print_summaries(report);
  if (!o.json.empty()) write_json(report, o.json);
  return failed ? 1 : 0;
}

}  // namespace

// Under the asan preset, LeakSanitizer's tracer dies with SIGSEGV ("Tracer caught signal 11")
// while scanning the main thread's thread-local storage at the exit of every xd-bench run that
// launches an op (reproduced on every try on the CI machine, 2026-11-27; the other tools and
// examples are unaffected, and with use_tls=0 the same runs finish with no leak reported). Not
// scanning TLS can only add leak reports (objects reachable only from TLS count as leaked), never
// hide one. Read only by the sanitizer runtime; a plain build never calls it.
extern "C" const char* __lsan_default_options();  // NOLINT(bugprone-reserved-identifier): the runtime's name
extern "C" const char* __lsan_default_options() { return "use_tls=0"; }  // NOLINT(bugprone-reserved-identifier)

int main(int argc, char** argv) {
  po::options_description opts("xd-bench: time ops per backend, dtype and size (docs/performance.md)");
  try {
    const Options o = parse(argc, argv, opts);
    const xd::cli::Startup env = xd::cli::startup_or_exit("xd-bench", 2);  // a bad XD_BACKEND exits 2
    if (o.list) {
      for (const auto& w : workloads())
        std::printf("%-18s op %-18s default size %s\n", w.name.c_str(), w.op.c_str(), format_size(w.default_size).c_str());
      return 0;
    }
    return run(o, env, std::vector<std::string>(argv, argv + argc));
  } catch (const po::error& e) {
    std::fprintf(stderr, "xd-bench: %s\n%s", e.what(), "run xd-bench --help for the options\n");
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "xd-bench: %s\n", e.what());
    return 2;
  } catch (const xd::BackendError& e) {
    std::fprintf(stderr, "xd-bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xd-bench: %s\n", e.what());
    return 1;
  }
}
