// What xd-conform knows about one family of ops, in one place: the cases to generate for an
// (op, dtype), how to call the op through the public API, the tolerance of each output, and how
// a golden manifest's attributes map onto Attrs. Every family lives in its own file under ops/
// and is listed once in ops/op_list.cpp; the generator, runner, input factory and golden code
// look an op's family up by name and keep no knowledge of any op themselves.
//
// The model is ggml's test-backend-ops (llama.cpp), where each op's test case carries its shapes,
// how to build and run it, and its error bound. Here cases stay plain data (conform_case.hpp),
// so a case id alone regenerates the case (--replay), and one family serves several ops whose
// cases differ only in a few values (add and sub, sum and mean).
#pragma once

#include <xd/sparse.hpp>
#include <xd/tensor.hpp>

#include "conform_case.hpp"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xd::conform {

// One call of an op, with its inputs in schema order (nullopt: an absent optional input).
struct OpCall {
  const OpSchema& schema;
  Dtype dtype;  // the kernel slot's dtype (creation ops make tensors of it)
  const std::vector<std::optional<Tensor>>& inputs;
  const Attrs& attrs;
  Device device;
  uint64_t seed;  // the case's seed: random ops draw from it

  const Tensor& input(size_t i) const;  // throws ValueError when it is absent
  std::optional<Tensor> optional_input(size_t i) const;
};

// A golden call whose left operand is a sparse CSR matrix: that matrix and the dense inputs by
// their manifest names, all on the device that runs the call.
struct CsrCall {
  const std::string& op;
  const SparseCsr& csr;
  const std::map<std::string, Tensor>& dense;
  const Attrs& attrs;

  const Tensor& input(const std::string& name) const;  // throws when the manifest lacks it
};

class OpFamily {
 public:
  virtual ~OpFamily() = default;

  // The op names (as in xd::op_schemas()) the family describes.
  virtual std::vector<std::string> ops() const = 0;

  // The cases of one (op, dtype); `quick` selects the small CI set. Each case has its schema,
  // dtype, variant (unique per op and dtype), inputs and attrs; the generator adds the backend,
  // kernel, seed and id.
  virtual std::vector<Case> cases(const OpSchema& schema, Dtype dtype, bool quick) const = 0;

  // Runs the op through the public API (xd::add, ...). Outputs in schema order; an output that
  // output_mask leaves out is an undefined Tensor. Throws what the op throws.
  virtual std::vector<Tensor> invoke(const OpCall& call) const = 0;

  // The tolerance of a generated case's output number `output`, of dtype `out`.
  virtual Tolerance tolerance(const Case& c, size_t output, Dtype out) const = 0;

  // The reference value of input number `index`, described as Values::derived: computed from the
  // reference inputs before it (`made`). Only families that use Values::derived override it.
  virtual Tensor derived_input(const Case& c, size_t index, const std::vector<std::optional<Tensor>>& made) const;

  // Golden mode: reads attribute `key` of a manifest case of `op` into `attrs`. False when the
  // op takes no such attribute (the case is then unsupported); a value xdispatch cannot express
  // sets `unsupported` instead. By default an op takes no attributes.
  virtual bool read_golden_attr(const std::string& op, const std::string& key, const nlohmann::json& value,
                                Attrs& attrs, std::string& unsupported) const;

  // Golden mode with a sparse CSR input: the op whose kernel slot runs it (checked before it runs),
  // and the call through the public SparseCsr overloads. By default the op has no sparse form:
  // the slot is its own and the call throws NotImplementedError.
  virtual std::string csr_kernel_op(const std::string& op) const { return op; }
  virtual std::vector<Tensor> invoke_csr(const CsrCall& call) const;
};

// The family that describes `op` (ops/op_list.cpp), or nullptr when none does.
const OpFamily* find_op_family(std::string_view op);

// The message for an op the list does not know; cases of such an op fail with it.
std::string no_case_description(std::string_view op);

}  // namespace xd::conform
