// Builds a case's inputs: values from Philox4x32-10 keyed by (seed, op, dtype, variant, input
// name), so a case id regenerates them bit for bit; the base tensor is made on the CPU
// reference and moved byte for byte to the device under test, then both get the same view
// (transpose, slice or expand), so both backends see identical values in the same layout.
#pragma once

#include "conform_case.hpp"

#include <xd/tensor.hpp>

#include <optional>
#include <vector>

namespace xd::conform {

struct CaseInputs {
  std::vector<std::optional<Tensor>> reference;  // on the CPU reference
  std::vector<std::optional<Tensor>> target;     // on the device under test
  std::vector<uint64_t> hashes;                  // FNV-1a of each input's bytes, row-major; 0 if absent
};

CaseInputs make_inputs(const Case& c, Device target);

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull);
std::string hex64(uint64_t v);

}  // namespace xd::conform
