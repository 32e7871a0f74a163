#include "runner.hpp"

#include <xd/backend.hpp>
#include <xd/error.hpp>

#include "op_case.hpp"
#include "tensor_factory.hpp"

#include <chrono>
#include <sstream>

namespace xd::conform {

const char* status_name(Status s) {
  switch (s) {
    case Status::pass:
      return "pass";
    case Status::fail:
      return "fail";
    case Status::unsupported:
      return "unsupported";
  }
  return "?";
}

std::string error_type(const std::exception& e) {
  if (dynamic_cast<const ShapeError*>(&e)) return "ShapeError";
  if (dynamic_cast<const DtypeError*>(&e)) return "DtypeError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const LayoutError*>(&e)) return "LayoutError";
  if (dynamic_cast<const OutOfMemoryError*>(&e)) return "OutOfMemoryError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const PluginError*>(&e)) return "PluginError";
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const Error*>(&e)) return "Error";
  return "std::exception";
}

std::vector<std::string> slot_kernels(const std::string& backend, const std::string& op, Dtype dtype) {
  std::vector<std::string> names;
  for (const KernelInfo& k : kernels())
    if (k.backend == backend && k.op == op && k.dtype == dtype) names.push_back(k.name);
  return names;
}

KernelIsolation::KernelIsolation(const std::string& backend, const std::string& op, Dtype dtype,
                                 const std::string& kernel) {
  if (kernel.empty()) return;
  for (const std::string& name : slot_kernels(backend, op, dtype)) {
    if (name == kernel) continue;
    set_kernel_enabled(name, false);
    disabled_.push_back(name);
  }
}

KernelIsolation::~KernelIsolation() {
  for (const std::string& n : disabled_) set_kernel_enabled(n, true);
}

namespace {
std::string last_kernel(const std::string& op, Dtype dtype) {
  const std::vector<std::string> names = slot_kernels(cpu().backend(), op, dtype);
  return names.size() > 1 ? names.back() : std::string();
}
}  // namespace

ReferenceIsolation::ReferenceIsolation(const std::string& op, Dtype dtype)
    : KernelIsolation(cpu().backend(), op, dtype, last_kernel(op, dtype)) {}

namespace {

void fail(Outcome& o, const std::string& why) {
  o.status = Status::fail;
  if (!o.message.empty()) o.message += "; ";
  o.message += why;
}

// A failure of the case as a whole, not of one output's values.
void fail_case(Outcome& o, const std::string& why) {
  fail(o, why);
  o.case_errors.push_back(why);
}

}  // namespace

Outcome run_case(const Case& c) {
  Outcome o;
  if (!c.unsupported.empty()) {
    o.status = Status::unsupported;
    o.message = c.unsupported;
    return o;
  }
  const OpFamily* family = find_op_family(c.schema.name);
  if (family == nullptr) {
    fail_case(o, no_case_description(c.schema.name));
    return o;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const Device target = Device::parse(c.backend);
    CaseInputs in = make_inputs(c, target);
    o.input_hashes = in.hashes;

    std::vector<Tensor> expected;
    std::string ref_error, ref_type;
    try {
      const ReferenceIsolation oracle(c.schema.name, c.dtype);
      expected = family->invoke({c.schema, c.dtype, in.reference, c.attrs, cpu(), c.seed});
    } catch (const std::exception& e) {
      ref_error = e.what();
      ref_type = error_type(e);
    }

    std::vector<Tensor> got;
    std::string tgt_error, tgt_type;
    const uint64_t fallbacks = fallback_count();
    {
      const KernelIsolation only(c.backend, c.schema.name, c.dtype, c.kernel);
      try {
        got = family->invoke({c.schema, c.dtype, in.target, c.attrs, target, c.seed});
      } catch (const std::exception& e) {
        tgt_error = e.what();
        tgt_type = error_type(e);
      }
    }
    for (const Tensor& e : expected)
      if (e.defined() && !o.shape) o.shape = std::vector<int64_t>(e.sizes().begin(), e.sizes().end());
    if (fallback_count() != fallbacks) fail_case(o, "the op fell back to the CPU backend");

    if (!ref_type.empty() || !tgt_type.empty()) {
      if (ref_type == tgt_type) {
        o.message = "both raise " + ref_type;
      } else if (ref_type.empty() && tgt_type == "NotImplementedError" && !c.kernel.empty()) {
        o.status = Status::unsupported;  // the isolated kernel declines this call (its check())
        o.message = tgt_error;
      } else if (ref_type.empty()) {
        fail_case(o, "raises " + tgt_type + ": " + tgt_error);
      } else if (tgt_type.empty()) {
        fail_case(o, "succeeds where the reference raises " + ref_type + ": " + ref_error);
      } else {
        fail_case(o, "raises " + tgt_type + " where the reference raises " + ref_type + ": " + tgt_error);
      }
    } else {
      for (size_t i = 0; i < expected.size() && i < got.size(); ++i) {
        OutputResult r;
        r.name = i < c.schema.outputs.size() ? c.schema.outputs[i] : "out" + std::to_string(i);
        if (expected[i].defined() != got[i].defined()) {
          fail_case(o, r.name + ": defined on one side only");
          continue;
        }
        if (!expected[i].defined()) continue;
        r.dtype = expected[i].dtype();
        r.shape.assign(expected[i].sizes().begin(), expected[i].sizes().end());
        r.tolerance = family->tolerance(c, i, r.dtype);
        if (got[i].device() != target) fail_case(o, r.name + ": on " + got[i].device().str() + ", not " + target.str());
        r.comparison = compare(expected[i], got[i], r.tolerance);
        if (!r.comparison.ok) fail(o, r.name + ": " + r.comparison.message);
        o.outputs.push_back(std::move(r));
      }
      if (expected.size() != got.size()) fail_case(o, "output counts differ");
    }
  } catch (const std::exception& e) {
    fail_case(o, std::string("harness error: ") + e.what());
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

std::string describe_inputs(const Case& c, int max_values) {
  std::ostringstream s;
  const CaseInputs in = make_inputs(c, cpu());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const InputSpec& spec = c.inputs[i];
    s << "  input " << spec.name << ": ";
    if (!in.reference[i]) {
      s << "absent\n";
      continue;
    }
    const Tensor& t = *in.reference[i];
    s << dtype_name(t.dtype()) << " " << index_text({t.sizes().begin(), t.sizes().end()}) << " strides "
      << index_text({t.strides().begin(), t.strides().end()}) << " offset " << t.storage_offset() << " ("
      << layout_name(spec.layout) << "), fnv1a " << hex64(in.hashes[i]) << "\n    values:";
    const std::vector<uint8_t> bytes = t.to_bytes();
    const int64_t n = t.numel();
    for (int64_t k = 0; k < n && k < max_values; ++k) s << " " << decode(t.dtype(), bytes.data(), k);
    if (n > max_values) s << " ... (" << n << " values)";
    s << "\n";
  }
  return s.str();
}

}  // namespace xd::conform
