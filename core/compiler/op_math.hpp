// The arithmetic of each op in generated code: one scalar C expression per op, in the op's
// compute type, with the CPU reference's semantics (include/xd/plugin_abi.h's op comments and
// plugins/cpu/kernels/): float for f32/f16/bf16, double for f64, wrapping 64-bit integers for the
// integer dtypes and bool. Both emitters (OpenCL C and C++) use it; it writes only names of the
// language contract (docs/compiler.md), so the text is valid in both languages.
#pragma once

#include "compiler/graph.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace xd::detail::compiler {

// f (float), d (double) or l (long): how a dtype is computed.
char compute_kind(Dtype d);
const char* compute_type(Dtype d);  // float, double or long
const char* tag(Dtype d);           // f32, f16, ..., b8, e4m3, e5m2

// A constant of dtype d holding `value` as the op that made it stored it, written exactly
// (through its bits) in d's compute type.
std::string literal(Dtype d, double value);
std::string literal_kind(char kind, double value);
// `expr` (d's compute kind) rounded to d and decoded again: what a buffer of d would hold.
std::string round_to(Dtype d, const std::string& expr);
// `expr` of compute kind `from` as the storage of d (for a store).
std::string encode(Dtype d, char from, const std::string& expr);
std::string decode(Dtype d, const std::string& storage_expr);

// Writes statements computing node `n` from `args` (its inputs as variables of their dtypes'
// compute types; absent optionals as "") into `out`, and returns the variable holding the result
// (rounded to the output's dtype). `tmp` numbers the temporaries (unique per kernel).
std::string emit_pointwise(const Graph& g, const Node& n, const std::vector<std::string>& args, std::ostream& out,
                           int& tmp, const std::string& indent);

}  // namespace xd::detail::compiler
