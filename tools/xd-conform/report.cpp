#include "report.hpp"

#include "common/build_info.hpp"
#include "common/build_info_json.hpp"
#include "tensor_factory.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

namespace xd::conform {

size_t RunSummary::count(Status s) const {
  size_t n = 0;
  for (const Record& r : records) n += r.outcome.status == s;
  return n;
}

std::string format_matrix(const RunSummary& r) {
  struct Cell {
    size_t pass = 0, fail = 0, unsupported = 0;
  };
  std::map<std::string, std::map<std::string, Cell>> m;
  std::vector<std::string> ops;
  for (const Record& rec : r.records) {
    if (m.find(rec.op) == m.end()) ops.push_back(rec.op);
    Cell& c = m[rec.op][rec.backend];
    (rec.outcome.status == Status::pass ? c.pass : rec.outcome.status == Status::fail ? c.fail : c.unsupported)++;
  }
  size_t w0 = 18;
  for (const std::string& op : ops) w0 = std::max(w0, op.size() + 2);
  const size_t w = 22;
  std::ostringstream o;
  o << std::left << std::setw(static_cast<int>(w0)) << "op";
  for (const std::string& b : r.backends) o << std::setw(static_cast<int>(w)) << (b + " pass/fail/unsup");
  o << "\n";
  for (const std::string& op : ops) {
    o << std::setw(static_cast<int>(w0)) << op;
    for (const std::string& b : r.backends) {
      auto it = m[op].find(b);
      std::string cell = "-";
      if (it != m[op].end()) {
        const Cell& c = it->second;
        cell = std::to_string(c.pass) + "/" + std::to_string(c.fail) + "/" + std::to_string(c.unsupported);
        if (c.fail) cell += "  FAIL";
      }
      o << std::setw(static_cast<int>(w)) << cell;
    }
    o << "\n";
  }
  o << "total: " << r.records.size() << " cases, " << r.count(Status::pass) << " passed, " << r.count(Status::fail)
    << " failed, " << r.count(Status::unsupported) << " unsupported";
  if (r.coverage_checked) o << "; " << r.uncovered.size() << " registered kernel(s) reached by no case";
  o << " (seed " << r.seed << ")\n";
  return o.str();
}

namespace {

// JSON has no infinity or NaN: a non-finite error (a NaN/Inf position mismatch) is written as
// the string "inf" (or "nan") rather than null, so it cannot be read as "no error".
nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// One entry per compared output (`name`, errors, `worst_index`, `message`; a passing output has
// worst_index null and an empty message), then one per failure of the case as a whole (`name`
// and the error fields null).
nlohmann::json errors_json(const Outcome& o) {
  nlohmann::json errs = nlohmann::json::array();
  for (const OutputResult& r : o.outputs) {
    const Comparison& c = r.comparison;
    errs.push_back({{"name", r.name},
                    {"max_abs_error", c.elementwise ? number(c.max_abs_error) : nlohmann::json()},
                    {"max_rel_error", c.elementwise ? number(c.max_rel_error) : nlohmann::json()},
                    {"worst_index", c.worst_index.empty() && c.ok ? nlohmann::json() : nlohmann::json(c.worst_index)},
                    {"message", c.message}});
  }
  for (const std::string& why : o.case_errors)
    errs.push_back({{"name", nullptr}, {"max_abs_error", nullptr}, {"max_rel_error", nullptr},
                    {"worst_index", nullptr}, {"message", why}});
  return errs;
}

nlohmann::json record_json(const Record& rec) {
  const Outcome& o = rec.outcome;
  nlohmann::json j = {{"id", rec.id},           {"op", rec.op},          {"backend", rec.backend},
                      {"dtype", rec.dtype},     {"variant", rec.variant}, {"status", status_name(o.status)},
                      {"message", o.message},   {"seconds", o.seconds}};
  if (!rec.kernel.empty()) j["kernel"] = rec.kernel;
  nlohmann::json ins = nlohmann::json::array();
  for (size_t i = 0; i < rec.input_names.size(); ++i) {
    nlohmann::json in = {{"name", rec.input_names[i]}};
    if (i < rec.input_shapes.size()) in["shape"] = rec.input_shapes[i];
    if (i < o.input_hashes.size() && o.input_hashes[i] != 0) in["fnv1a"] = hex64(o.input_hashes[i]);
    ins.push_back(in);
  }
  j["inputs"] = ins;
  // The case's shape is its output's: for addmm with a broadcast bias row that is [m, n], not the
  // bias's [n]. Null when there is no output (the reference raised, or no kernel to run).
  j["shape"] = o.shape ? nlohmann::json(*o.shape) : nlohmann::json();
  j["errors"] = errors_json(o);
  nlohmann::json outs = nlohmann::json::array();
  for (const OutputResult& r : o.outputs) {
    nlohmann::json x = {{"name", r.name},
                        {"dtype", dtype_name(r.dtype)},
                        {"shape", r.shape},
                        {"rtol", r.tolerance.rtol},
                        {"atol", r.tolerance.atol},
                        {"ok", r.comparison.ok},
                        {"max_abs_error", number(r.comparison.max_abs_error)},
                        {"max_rel_error", number(r.comparison.max_rel_error)},
                        {"mismatches", r.comparison.mismatches},
                        {"nonfinite_mismatches", r.comparison.nonfinite_mismatches}};
    if (!r.comparison.ok) {
      x["worst_index"] = r.comparison.worst_index;
      x["got"] = number(r.comparison.got);
      x["expected"] = number(r.comparison.expected);
    }
    outs.push_back(x);
  }
  j["outputs"] = outs;
  return j;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') o += ' ';
        else o += ch;
    }
  }
  return o;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot open " + path + " for writing");
  f << text;
  if (!f.flush()) throw std::runtime_error("cannot write " + path);
}

// What built the tool, in each testsuite (JUnit puts properties there, not on testsuites).
std::string junit_properties() {
  return "    <properties>\n      <property name=\"xdispatch.version\" value=\"" +
         xml_escape(xd::cli::library_version()) + "\"/>\n      <property name=\"xdispatch.plugin_abi\" value=\"" +
         xml_escape(xd::cli::plugin_abi_version()) + "\"/>\n      <property name=\"xdispatch.commit\" value=\"" +
         xml_escape(xd::cli::build_commit()) + "\"/>\n    </properties>\n";
}

}  // namespace

void write_json(const RunSummary& r, const std::string& path) {
  nlohmann::json j;
  j["tool"] = "xd-conform";
  j["xdispatch"] = xd::cli::build_info_json();
  j["mode"] = r.mode;
  j["seed"] = r.seed;
  j["backends"] = r.backends;
  j["summary"] = {{"cases", r.records.size()},
                  {"passed", r.count(Status::pass)},
                  {"failed", r.count(Status::fail)},
                  {"unsupported", r.count(Status::unsupported)},
                  {"uncovered_kernels", r.uncovered.size()}};
  j["cases"] = nlohmann::json::array();
  for (const Record& rec : r.records) j["cases"].push_back(record_json(rec));
  j["uncovered_kernels"] = nlohmann::json::array();
  for (const UncoveredKernel& k : r.uncovered)
    j["uncovered_kernels"].push_back({{"kernel", k.name}, {"op", k.op}, {"backend", k.backend}, {"dtype", k.dtype}});
  write_file(path, j.dump(1) + "\n");
}

void write_junit(const RunSummary& r, const std::string& path) {
  std::map<std::string, std::vector<const Record*>> by_backend;
  for (const Record& rec : r.records) by_backend[rec.backend].push_back(&rec);
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"xd-conform\" tests=\"" << r.records.size() + r.uncovered.size() << "\" failures=\""
    << r.count(Status::fail) + r.uncovered.size() << "\" skipped=\"" << r.count(Status::unsupported) << "\">\n";
  for (const auto& [backend, recs] : by_backend) {
    size_t fails = 0, skips = 0;
    double secs = 0;
    for (const Record* rec : recs) {
      fails += rec->outcome.status == Status::fail;
      skips += rec->outcome.status == Status::unsupported;
      secs += rec->outcome.seconds;
    }
    x << "  <testsuite name=\"xd-conform." << xml_escape(backend) << "\" tests=\"" << recs.size() << "\" failures=\""
      << fails << "\" skipped=\"" << skips << "\" time=\"" << secs << "\">\n"
      << junit_properties();
    for (const Record* rec : recs) {
      x << "    <testcase classname=\"" << xml_escape(rec->op + "." + rec->dtype + "." + rec->backend) << "\" name=\""
        << xml_escape(rec->id) << "\" time=\"" << rec->outcome.seconds << "\"";
      if (rec->outcome.status == Status::pass) {
        x << "/>\n";
      } else if (rec->outcome.status == Status::unsupported) {
        x << "><skipped message=\"" << xml_escape(rec->outcome.message) << "\"/></testcase>\n";
      } else {
        x << "><failure message=\"" << xml_escape(rec->outcome.message) << "\"/></testcase>\n";
      }
    }
    x << "  </testsuite>\n";
  }
  if (!r.uncovered.empty()) {
    x << "  <testsuite name=\"xd-conform.coverage\" tests=\"" << r.uncovered.size() << "\" failures=\""
      << r.uncovered.size() << "\">\n"
      << junit_properties();
    for (const UncoveredKernel& k : r.uncovered)
      x << "    <testcase classname=\"coverage\" name=\"" << xml_escape(k.name + " " + k.dtype)
        << "\"><failure message=\"registered kernel reached by no case\"/></testcase>\n";
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  write_file(path, x.str());
}

}  // namespace xd::conform
