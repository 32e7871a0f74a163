// Golden mode: cases computed by another library, in the `xd-golden/1` format
// (docs/conformance.md, "Golden mode"; a sample set in tests/golden): manifest.json plus one .npy
// per tensor. Each case runs on every selected backend and is compared with the stored
// expected outputs at the stored tolerance. Ops, dtypes or layouts this project does not have
// (yet) are reported as unsupported, never as failures.
#pragma once

#include "report.hpp"

#include <functional>
#include <string>
#include <vector>

namespace xd::conform {

struct GoldenTensor {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  // `"layout": "sparse_csr"`: crow_indices, col_indices, values (in that order); `shape` is the
  // matrix's dense size and `dtype` its values' dtype.
  std::vector<GoldenTensor> csr;
  bool sparse() const { return !csr.empty(); }
};

class OpFamily;

struct GoldenCase {
  std::string id, op, dtype_text;
  // `"op": "graph", "graph": NAME`: a fixed graph of xd-conform --compiled (compiled/graph_cases.hpp),
  // run through xd::compile; inputs by the graph's input names, outputs out0, out1, ... in order.
  std::string graph;
  const OpFamily* family = nullptr;  // the op's family (op_case.hpp); nullptr: none describes it
  Attrs attrs;
  std::vector<GoldenTensor> inputs, outputs;
  Tolerance tolerance;
  std::string unsupported;  // why the case cannot run here (empty: it can)
};

// Throws std::runtime_error for a missing or malformed manifest or data file, naming the file,
// the place in the manifest, the field and the problem. Only regular files are read (a FIFO does
// not block), the manifest is at most 64 MiB and 64 levels deep, fields are never converted
// ("shape": [3.5] is an error, not 3); docs/conformance.md, "Golden files that are rejected".
std::vector<GoldenCase> load_golden(const std::string& dir);

// Whether the --op / --dtype filters (empty: all) select the case.
bool golden_selected(const GoldenCase& g, const std::vector<std::string>& ops, const std::vector<Dtype>& dtypes);

// Runs every case on every backend; `ops`/`dtypes` filter like in generated mode.
std::vector<Record> run_golden(const std::vector<GoldenCase>& cases, const std::vector<std::string>& backends,
                               const std::vector<std::string>& ops, const std::vector<Dtype>& dtypes,
                               const std::function<void(size_t, size_t, const std::string&)>& progress);

}  // namespace xd::conform
