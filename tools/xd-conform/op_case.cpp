#include "op_case.hpp"

#include <xd/error.hpp>

#include <stdexcept>

namespace xd::conform {

const Tensor& OpCall::input(size_t i) const {
  if (i >= inputs.size() || !inputs[i]) throw ValueError(schema.name + ": input " + std::to_string(i) + " is missing");
  return *inputs[i];
}

std::optional<Tensor> OpCall::optional_input(size_t i) const { return i < inputs.size() ? inputs[i] : std::nullopt; }

const Tensor& CsrCall::input(const std::string& name) const {
  const auto it = dense.find(name);
  if (it == dense.end()) throw std::runtime_error("the manifest lacks input '" + name + "'");
  return it->second;
}

Tensor OpFamily::derived_input(const Case& c, size_t index, const std::vector<std::optional<Tensor>>&) const {
  throw std::logic_error("xd-conform: input " + std::to_string(index) + " of " + c.id +
                         " is Values::derived, but the family of op '" + c.schema.name + "' derives no input");
}

bool OpFamily::read_golden_attr(const std::string&, const std::string&, const nlohmann::json&, Attrs&,
                                std::string&) const {
  return false;
}

std::vector<Tensor> OpFamily::invoke_csr(const CsrCall& call) const {
  throw NotImplementedError("op " + call.op + " has no sparse CSR form");
}

}  // namespace xd::conform
