// Calls an op by its schema with a case's inputs and attributes, through the public API: the
// one place that knows each op's C++ signature. Outputs are in schema order; an output its
// output_mask leaves out is an undefined Tensor.
#pragma once

#include "conform_case.hpp"

#include <xd/tensor.hpp>

#include <optional>
#include <vector>

namespace xd::conform {

// Throws what the op throws; NotImplementedError for an op this tool cannot call.
std::vector<Tensor> invoke(const OpSchema& schema, Dtype dtype, const std::vector<std::optional<Tensor>>& inputs,
                           const Attrs& attrs, Device device, uint64_t seed);

}  // namespace xd::conform
