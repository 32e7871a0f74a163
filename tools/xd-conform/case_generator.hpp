// Cases generated from the op schemas: for every kernel slot (op x backend x dtype) a backend
// registers, the cases the op's family (op_case.hpp, ops/) describes for that op and dtype —
// empty, size 1, odd and prime sizes, a large case, transposed, sliced and expanded inputs,
// broadcasting, special values — with the seed in every case id. Slots holding several kernels
// get the set once per kernel, with the others disabled, so every kernel is reached.
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

// The case id: "op/dtype/backend[/kernel]/variant/sN".
std::string make_case_id(const Case& c);

}  // namespace xd::conform
