#include "case_generator.hpp"

#include "op_case.hpp"

#include <xd/backend.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace xd::conform {

namespace {

// One case of a slot that cannot have real ones, with the reason it is reported under.
Case placeholder(const OpSchema& schema, Dtype d, const std::string& backend, uint64_t seed, std::string variant) {
  Case c;
  c.schema = schema;
  c.dtype = d;
  c.backend = backend;
  c.variant = std::move(variant);
  c.seed = seed;
  c.id = make_case_id(c);
  return c;
}

}  // namespace

std::string make_case_id(const Case& c) {
  std::string id = c.schema.name + "/" + dtype_name(c.dtype) + "/" + c.backend;
  if (!c.kernel.empty()) id += "/" + c.kernel;
  return id + "/" + c.variant + "/s" + std::to_string(c.seed);
}

std::vector<Case> generate_cases(const GeneratorOptions& o) {
  // The slots every selected backend registers, with their kernels in the order tried.
  std::map<std::tuple<std::string, std::string, Dtype>, std::vector<std::string>> slots;
  for (const KernelInfo& k : kernels()) {
    if (std::find(o.backends.begin(), o.backends.end(), k.backend) == o.backends.end()) continue;
    if (!o.ops.empty() && std::find(o.ops.begin(), o.ops.end(), k.op) == o.ops.end()) continue;
    if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), k.dtype) == o.dtypes.end()) continue;
    slots[{k.backend, k.op, k.dtype}].push_back(k.name);
  }
  // The (op, dtype) pairs the CPU reference registers: a backend lacking one gets an unsupported
  // case for it, so what is missing shows in the matrix, the JSON and the JUnit (as skipped).
  const std::string reference = cpu().backend();  // the host reference: the oracle
  std::set<std::pair<std::string, Dtype>> reference_slots;
  for (const KernelInfo& k : kernels()) {
    if (k.backend != reference) continue;
    if (!o.ops.empty() && std::find(o.ops.begin(), o.ops.end(), k.op) == o.ops.end()) continue;
    if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), k.dtype) == o.dtypes.end()) continue;
    reference_slots.insert({k.op, k.dtype});
  }
  std::vector<Case> out;
  for (const OpSchema& schema : op_schemas()) {
    for (const std::string& backend : o.backends) {
      for (int di = 0; di < kNumDtypes; ++di) {
        const Dtype d = static_cast<Dtype>(di);
        auto it = slots.find({backend, schema.name, d});
        if (it == slots.end()) {
          if (backend != reference && reference_slots.count({schema.name, d})) {
            Case c = placeholder(schema, d, backend, o.seed, "no_kernel");
            c.unsupported = "backend '" + backend + "' registers no " + schema.name + " kernel for " + dtype_name(d) +
                            " (the CPU reference does)";
            out.push_back(std::move(c));
          }
          continue;
        }
        // An op no family describes: one case per slot, which the runner fails with the
        // message saying where its description belongs.
        const OpFamily* family = find_op_family(schema.name);
        if (family == nullptr) {
          out.push_back(placeholder(schema, d, backend, o.seed, "no_case_description"));
          continue;
        }
        const std::vector<Case> cases = family->cases(schema, d, o.quick);
        const std::vector<std::string>& names = it->second;
        for (const std::string& kernel : names) {
          for (Case c : cases) {
            c.backend = backend;
            c.seed = o.seed;
            if (names.size() > 1) c.kernel = kernel;
            c.id = make_case_id(c);
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace xd::conform
