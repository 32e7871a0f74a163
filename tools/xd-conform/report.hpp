// Reporting: the terminal matrix (op rows, backend columns, pass/fail/unsupported counts),
// JSON (every case) and JUnit XML (one testcase per case).
#pragma once

#include "runner.hpp"

#include <string>
#include <vector>

namespace xd::conform {

struct Record {
  std::string id, op, backend, dtype, kernel, variant;
  std::vector<std::string> input_names;
  std::vector<std::vector<int64_t>> input_shapes;
  Outcome outcome;
};

struct UncoveredKernel {
  std::string name, op, backend, dtype;
};

struct RunSummary {
  uint64_t seed = 0;
  std::string mode;  // "generated" or "golden"
  std::vector<std::string> backends;
  std::vector<Record> records;
  std::vector<UncoveredKernel> uncovered;  // coverage gate failures
  bool coverage_checked = false;
  size_t count(Status s) const;
};

std::string format_matrix(const RunSummary& r);
void write_json(const RunSummary& r, const std::string& path);   // throws std::runtime_error on I/O failure
void write_junit(const RunSummary& r, const std::string& path);

}  // namespace xd::conform
