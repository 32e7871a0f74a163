// Cases generated from the op schemas: for every kernel slot (op x backend x dtype) a backend
// registers, a shape set by op kind — empty, size 1, odd and prime sizes, a large case,
// transposed, sliced and expanded inputs, broadcasting, special values — with the seed in every
// case id. Slots holding several kernels get the set once per kernel, with the others disabled,
// so every kernel is reached.
#pragma once

#include "conform_case.hpp"

#include <string>
#include <vector>

namespace xd::conform {

struct GeneratorOptions {
  std::vector<std::string> backends;  // backends under test
  std::vector<std::string> ops;       // empty: all
  std::vector<Dtype> dtypes;          // empty: all
  bool quick = false;                 // the small CI shape set
  uint64_t seed = 0;
};

std::vector<Case> generate_cases(const GeneratorOptions& o);

// The cases of weight_int4_mm and quantize_int4 for one dtype (int4_cases.cpp); empty for other ops.
std::vector<Case> int4_cases(const OpSchema& schema, Dtype dtype, bool quick);

// The case id without backend, kernel or seed parts removed: "op/dtype/backend[/kernel]/variant/sN".
std::string make_case_id(const Case& c);

}  // namespace xd::conform
