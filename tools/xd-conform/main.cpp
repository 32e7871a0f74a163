// xd-conform: proves, op by op and dtype by dtype, that each backend computes what the CPU
// reference computes (cases generated from the op schemas), and with --golden that the
// backends compute what another library computed. See docs/conformance.md.
//
// Exit status: 0 when nothing failed, 1 when a case failed or a registered kernel was reached
// by no case, 2 on a usage error, found before any case runs (bad option or value, an empty path
// or id, a stray positional argument, unknown or unavailable backend, unknown dtype or op, a
// filter selecting no case, a --golden folder without a valid manifest or with a bad data file,
// a --json or --junit file that cannot be written).
#include <xd/schema.hpp>
#include <xd/xd.hpp>

#include "case_generator.hpp"
#include "common/build_info.hpp"
#include "common/cli.hpp"
#include "common/options.hpp"
#include "common/progress.hpp"
#include "common/startup.hpp"
#include "compiled/compiled_runner.hpp"
#include "golden.hpp"
#include "golden_folder.hpp"
#include "npy.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "tensor_factory.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace po = boost::program_options;
using namespace xd::conform;

namespace {

using xd::cli::available_backends;
using xd::cli::UsageError;

void check_backend(const std::string& name) {
  for (const auto& b : xd::backends())
    if (b.name == name) return;
  std::string why;
  for (const auto& r : xd::load_report())
    if (r.name == name) why = std::string(xd::load_status_name(r.status)) + (r.reason.empty() ? "" : ": " + r.reason);
  throw UsageError("backend '" + name + "' is not available" +
                   (why.empty() ? " (no plugin of that name was found)" : " (" + why + ")") +
                   "; available: " + available_backends() + "\n" + xd::format_load_report());
}

// "--op softmax --dtype f16 on opencl": what the filters were, for "no case matches".
std::string selection_text(const std::vector<std::string>& ops, const std::vector<std::string>& dtypes,
                           const std::vector<std::string>& backends) {
  std::string s;
  for (const std::string& op : ops) s += "--op " + op + " ";
  for (const std::string& d : dtypes) s += "--dtype " + d + " ";
  s += "on ";
  for (size_t i = 0; i < backends.size(); ++i) s += (i ? ", " : "") + backends[i];
  return s;
}

Record record_of(const Case& c, Outcome o) {
  Record r;
  r.id = c.id;
  r.op = c.schema.name;
  r.backend = c.backend;
  r.dtype = xd::dtype_name(c.dtype);
  r.kernel = c.kernel;
  r.variant = c.variant;
  for (const InputSpec& in : c.inputs) {
    r.input_names.push_back(in.name);
    r.input_shapes.push_back(in.layout == Layout::expanded ? in.expand_to : in.sizes);
  }
  r.outcome = std::move(o);
  return r;
}

// "op/dtype/backend[/kernel]/variant/sN" -> the generated case it names.
Case find_case(const std::string& id) {
  std::vector<std::string> parts;
  size_t p = 0;
  for (size_t q; (q = id.find('/', p)) != std::string::npos; p = q + 1) parts.push_back(id.substr(p, q - p));
  parts.push_back(id.substr(p));
  if (parts.size() < 5 || parts.size() > 6 || parts.back().size() < 2 || parts.back()[0] != 's')
    throw UsageError("'" + id + "' is not a case id (op/dtype/backend[/kernel]/variant/s<seed>)");
  uint64_t seed;
  try {
    seed = xd::cli::parse_count("seed", parts.back().substr(1), 0, UINT64_MAX);
  } catch (const UsageError&) {
    throw UsageError("'" + id + "': the last part must be s<seed>, the seed a whole number from 0 to " +
                     std::to_string(UINT64_MAX));
  }
  check_backend(parts[2]);
  GeneratorOptions g;
  g.backends = {parts[2]};
  g.ops = {parts[0]};
  try {
    g.dtypes = {xd::parse_dtype(parts[1])};
  } catch (const std::exception& e) {
    throw UsageError("'" + id + "': " + e.what());
  }
  g.seed = seed;
  for (bool quick : {false, true}) {
    g.quick = quick;
    for (Case& c : generate_cases(g))
      if (c.id == id) return c;
  }
  throw UsageError("no case has the id '" + id + "' (list them with --list)");
}

const char* npy_descr(xd::Dtype d) {
  switch (d) {
    case xd::Dtype::f64:
      return "<f8";
    case xd::Dtype::f32:
      return "<f4";
    case xd::Dtype::f16:
      return "<f2";
    case xd::Dtype::bf16:
      return "<u2";
    case xd::Dtype::i8:
      return "|i1";
    case xd::Dtype::u8:
      return "|u1";
    case xd::Dtype::i32:
      return "<i4";
    case xd::Dtype::i64:
      return "<i8";
    case xd::Dtype::boolean:
      return "|b1";
    default:
      return "|u1";  // fp8: raw bits
  }
}

int replay(const std::string& id, const std::string& dump_dir) {
  const Case c = find_case(id);
  std::cout << "case " << c.id << "\n" << describe_inputs(c, 16);
  if (!dump_dir.empty()) {
    std::filesystem::create_directories(dump_dir);
    const CaseInputs in = make_inputs(c, xd::cpu());
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      if (!in.reference[i]) continue;
      const xd::Tensor& t = *in.reference[i];
      const std::string path = dump_dir + "/" + c.inputs[i].name + ".npy";
      write_npy(path, npy_descr(t.dtype()), {t.sizes().begin(), t.sizes().end()}, t.to_bytes());
      std::cout << "  wrote " << path << "\n";
    }
  }
  const Outcome o = run_case(c);
  std::cout << status_name(o.status) << (o.message.empty() ? "" : ": " + o.message) << "\n";
  for (const OutputResult& r : o.outputs)
    std::cout << "  output " << r.name << ": " << xd::dtype_name(r.dtype) << " " << index_text(r.shape)
              << " max abs error " << r.comparison.max_abs_error << ", max rel error " << r.comparison.max_rel_error
              << (r.comparison.ok ? "" : " (worst at " + index_text(r.comparison.worst_index) + ")") << "\n";
  return o.status == Status::fail ? 1 : 0;
}

Record record_of(const GraphCase& g, const GraphOutcome& go) {
  Record r;
  r.id = g.id;
  r.op = g.family;
  r.backend = g.backend;
  r.dtype = xd::dtype_name(g.dtype);
  r.variant = g.variant;
  for (const InputSpec& in : g.inputs) {
    r.input_names.push_back(in.name);
    r.input_shapes.push_back(in.layout == Layout::expanded ? in.expand_to : in.sizes);
  }
  r.outcome = go.outcome;
  return r;
}

int replay_graph(const std::string& id, const std::string& dump_dir) {
  std::string why;
  const std::vector<GraphCase> found = find_graph_case(id, why);
  if (found.empty()) throw UsageError(why);
  const GraphCase& g = found.front();
  check_backend(g.backend);
  const Case c = as_case(g);
  std::cout << "case " << g.id << "\n  graph: " << recipe_text(g.recipe) << "\n" << describe_inputs(c, 16);
  if (!dump_dir.empty()) {
    std::filesystem::create_directories(dump_dir);
    const CaseInputs in = make_inputs(c, xd::cpu());
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const xd::Tensor& t = *in.reference[i];
      const std::string path = dump_dir + "/" + c.inputs[i].name + ".npy";
      write_npy(path, npy_descr(t.dtype()), {t.sizes().begin(), t.sizes().end()}, t.to_bytes());
      std::cout << "  wrote " << path << "\n";
    }
  }
  const GraphOutcome go = run_graph_case(g);
  const Outcome& o = go.outcome;
  std::cout << status_name(o.status) << (o.message.empty() ? "" : ": " + o.message) << "\n";
  for (const OutputResult& r : o.outputs)
    std::cout << "  " << r.name << ": " << xd::dtype_name(r.dtype) << " " << index_text(r.shape) << " max abs error "
              << r.comparison.max_abs_error << ", max rel error " << r.comparison.max_rel_error << " (rtol "
              << r.tolerance.rtol << ", atol " << r.tolerance.atol << ")"
              << (r.comparison.ok ? "" : " (worst at " + index_text(r.comparison.worst_index) + ")") << "\n";
  return o.status == Status::fail ? 1 : 0;
}

// --compiled: random and fixed graphs through xd::compile. Returns the records; prints how many
// graphs ran compiled and why the others ran eagerly.
std::vector<Record> run_compiled(const GraphOptions& g, bool list, bool verbose, xd::cli::Progress& progress) {
  const std::vector<GraphCase> cases = generate_graph_cases(g);
  std::vector<Record> records;
  if (list) {
    for (const GraphCase& c : cases) std::cout << c.id << "\n";
    return records;
  }
  std::map<std::string, std::map<std::string, int>> eager_reasons;  // backend -> reason -> graphs
  std::map<std::string, int> compiled;
  for (size_t i = 0; i < cases.size(); ++i) {
    progress.update(i + 1, cases.size(), cases[i].id);
    const GraphOutcome go = run_graph_case(cases[i]);
    if (go.outcome.status == Status::fail) {
      progress.clear();
      std::cout << "FAIL " << cases[i].id << ": " << go.outcome.message << "\n  graph: " << recipe_text(cases[i].recipe)
                << "\n";
    } else if (verbose) {
      progress.clear();
      std::cout << status_name(go.outcome.status) << " " << cases[i].id << ": " << go.outcome.message << "\n";
    }
    if (go.outcome.status == Status::pass && go.outcome.case_errors.empty() &&
        !go.outcome.message.starts_with("every run")) {
      if (go.run.graph)
        ++compiled[cases[i].backend];
      else
        ++eager_reasons[cases[i].backend][go.run.eager_reason];
    }
    records.push_back(record_of(cases[i], go));
  }
  progress.clear();
  for (const std::string& b : g.backends) {
    int eager = 0;
    for (const auto& [reason, n] : eager_reasons[b]) eager += n;
    std::cout << b << ": " << compiled[b] << " passing graph(s) ran compiled code, " << eager << " ran eagerly\n";
    for (const auto& [reason, n] : eager_reasons[b]) std::cout << "  " << n << " eagerly: " << reason << "\n";
  }
  return records;
}

int run(int argc, char** argv) {
  po::options_description opts("xd-conform: every backend against the CPU reference (and golden data)");
  std::vector<std::string> backends, ops, dtype_names;
  std::string json_path, junit_path, golden_dir, replay_id, dump_dir, seed_text = "1234";
  opts.add_options()("help,h", "show this help")(
      "version", "print the xdispatch version, plugin ABI and commit this tool was built from, and exit")(
      "backend,b", po::value(&backends)->composing(),
      "backend under test (repeatable; default: the one XD_BACKEND selects, "
      "else every available backend but cpu, or cpu alone)")(
      "op", po::value(&ops)->composing(), "only this op (repeatable)")("dtype", po::value(&dtype_names)->composing(),
                                                                       "only this dtype (repeatable)")(
      "quick", "the small shape set (CI)")("seed", po::value(&seed_text),
                                           "seed of every input (default 1234); part of each case id")(
      "json", po::value(&json_path), "write every case as JSON to FILE")("junit", po::value(&junit_path),
                                                                         "write JUnit XML to FILE")(
      "golden", po::value(&golden_dir),
      "run the golden cases in DIR (manifest.json + .npy) instead; without DIR the installed set "
      "(<prefix>/share/xdispatch/golden), or the source tree's tests/golden for a build-tree xd-conform")(
      "compiled",
      "run random graphs and fixed named graphs through xd::compile instead, each checked against eager execution and "
      "the CPU reference")("list", "print the case ids and exit")("replay", po::value(&replay_id),
                                                                  "rerun one case by id, printing its inputs")(
      "dump", po::value(&dump_dir), "with --replay: write the inputs as .npy files into DIR")(
      "verbose,v", "print every case, not only failures");
  po::variables_map vm;
  std::vector<std::string> args;
  try {
    args = with_default_golden_folder(argc, argv);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());  // a bare --golden where no golden set is installed
  }
  try {
    const po::parsed_options parsed =
        po::command_line_parser(std::vector<std::string>(args.begin() + 1, args.end())).options(opts).run();
    po::store(parsed, vm);
    po::notify(vm);
    xd::cli::reject_positional(parsed);
  } catch (const po::error& e) {
    std::cerr << "xd-conform: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (vm.count("version")) {
    std::cout << xd::cli::version_text("xd-conform");
    return 0;
  }
  // Every value checked before anything runs: an empty path or id would otherwise read as "not
  // given" and run the whole suite instead, and "--seed -1" would wrap to 2^64 - 1.
  xd::cli::require_nonempty(vm, "--golden", "folder");
  xd::cli::require_nonempty(vm, "--replay", "case id");
  xd::cli::require_nonempty(vm, "--dump", "folder");
  xd::cli::require_nonempty(vm, "--json", "file");
  xd::cli::require_nonempty(vm, "--junit", "file");
  const uint64_t seed = xd::cli::parse_count("--seed", seed_text, 0, UINT64_MAX);
  if (vm.count("dump") && !vm.count("replay"))
    throw UsageError("--dump writes a replayed case's inputs: give --replay too");

  // A missing kernel must fail, never quietly run on the CPU.
  setenv("XD_FALLBACK", "error", 1);
  xd::set_poison_outputs(true);
  const xd::cli::Startup env = xd::cli::startup_or_exit("xd-conform", 2);  // a bad XD_BACKEND exits 2

  std::vector<xd::Dtype> dtypes;
  for (const std::string& d : dtype_names) {
    try {
      dtypes.push_back(xd::parse_dtype(d));
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
  }
  {
    std::set<std::string> known;
    for (const auto& s : xd::op_schemas()) known.insert(s.name);
    for (const std::string& op : ops)
      if (!known.count(op)) throw UsageError("unknown op '" + op + "'");
  }
  const bool compiled = vm.count("compiled") != 0;
  if (compiled && !golden_dir.empty()) throw UsageError("--compiled and --golden are separate modes; give one");
  if (!replay_id.empty())
    return replay_id.starts_with("compiled/") ? replay_graph(replay_id, dump_dir) : replay(replay_id, dump_dir);
  if (!json_path.empty()) xd::cli::require_writable("--json", json_path);
  if (!junit_path.empty()) xd::cli::require_writable("--junit", junit_path);

  // The oracle: the backend that declares itself the host reference (the CPU plugin).
  const auto loaded = xd::backends();
  const auto reference = std::find_if(loaded.begin(), loaded.end(), [](const auto& b) { return b.host_reference; });
  if (reference == loaded.end())
    throw UsageError("the CPU reference backend is not loaded; it is the oracle every backend is compared with");
  if (backends.empty() && env.from_env) backends.push_back(env.from_env->backend());
  if (backends.empty()) {
    for (const auto& b : loaded)
      if (!b.host_reference) backends.push_back(b.name);
    if (backends.empty()) backends.push_back(reference->name);
  }
  for (const std::string& b : backends) check_backend(b);

  RunSummary summary;
  summary.seed = seed;
  summary.backends = backends;
  const bool verbose = vm.count("verbose") != 0;
  xd::cli::Progress progress;

  if (compiled) {
    summary.mode = "compiled";
    GraphOptions g;
    g.backends = backends;
    g.ops = ops;
    g.dtypes = dtypes;
    g.quick = vm.count("quick") != 0;
    g.seed = seed;
    if (generate_graph_cases(g).empty())
      throw UsageError("no compiled graph matches " + selection_text(ops, dtype_names, backends));
    summary.records = run_compiled(g, vm.count("list") != 0, verbose, progress);
    if (vm.count("list")) return 0;
  } else if (!golden_dir.empty()) {
    summary.mode = "golden";
    std::vector<std::string> with_ref = backends;
    if (std::find(with_ref.begin(), with_ref.end(), reference->name) == with_ref.end())
      with_ref.insert(with_ref.begin(), reference->name);
    summary.backends = with_ref;
    // A folder that is not a readable golden set is a mistake in the command line, found before
    // any case runs.
    std::vector<GoldenCase> cases;
    try {
      cases = load_golden(golden_dir);
    } catch (const std::exception& e) {
      throw UsageError(std::string("--golden: ") + e.what());
    }
    if (std::none_of(cases.begin(), cases.end(), [&](const GoldenCase& c) { return golden_selected(c, ops, dtypes); }))
      throw UsageError("no golden case in " + golden_dir + " matches " + selection_text(ops, dtype_names, with_ref));
    if (vm.count("list")) {
      for (const auto& g : cases)
        if (golden_selected(g, ops, dtypes)) std::cout << g.id << "\n";
      return 0;
    }
    summary.records = run_golden(cases, with_ref, ops, dtypes,
                                 [&](size_t i, size_t n, const std::string& id) { progress.update(i, n, id); });
  } else {
    summary.mode = "generated";
    GeneratorOptions g;
    g.backends = backends;
    g.ops = ops;
    g.dtypes = dtypes;
    g.quick = vm.count("quick") != 0;
    g.seed = seed;
    const std::vector<Case> cases = generate_cases(g);
    {
      std::set<std::string> ids;
      for (const Case& c : cases)
        if (!ids.insert(c.id).second) throw std::logic_error("xd-conform generated the case id " + c.id + " twice");
    }
    // Neither the backends nor the CPU reference register a kernel the filters select: running
    // nothing and passing would hide a typo'd filter.
    if (cases.empty())
      throw UsageError("no case matches " + selection_text(ops, dtype_names, backends) +
                       ": no kernel is registered for that selection (xd-info lists the kernels)");
    if (vm.count("list")) {
      for (const Case& c : cases) std::cout << c.id << "\n";
      return 0;
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      progress.update(i + 1, cases.size(), cases[i].id);
      summary.records.push_back(record_of(cases[i], run_case(cases[i])));
    }
    // Coverage as a gate: every kernel a tested backend registers must have run.
    if (ops.empty() && dtypes.empty()) {
      summary.coverage_checked = true;
      for (const auto& k : xd::kernels())
        if (k.calls == 0 && std::find(backends.begin(), backends.end(), k.backend) != backends.end())
          summary.uncovered.push_back({k.name, k.op, k.backend, xd::dtype_name(k.dtype)});
    }
  }
  progress.clear();

  for (const Record& r : summary.records) {
    if (compiled) break;  // run_compiled printed them, with each failing graph
    if (r.outcome.status == Status::fail)
      std::cout << "FAIL " << r.id << ": " << r.outcome.message << "\n";
    else if (verbose)
      std::cout << status_name(r.outcome.status) << " " << r.id
                << (r.outcome.message.empty() ? "" : ": " + r.outcome.message) << "\n";
  }
  for (const UncoveredKernel& k : summary.uncovered)
    std::cout << "UNCOVERED " << k.name << " (" << k.op << ", " << k.backend << ", " << k.dtype
              << "): registered but reached by no case\n";
  std::cout << format_matrix(summary);
  if (!json_path.empty()) write_json(summary, json_path);
  if (!junit_path.empty()) write_junit(summary, junit_path);
  return (summary.count(Status::fail) == 0 && summary.uncovered.empty()) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "xd-conform: " << e.what() << "\n";
    return 2;
  } catch (const xd::BackendError& e) {
    std::cerr << "xd-conform: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "xd-conform: " << e.what() << "\n";
    return 1;
  }
}
