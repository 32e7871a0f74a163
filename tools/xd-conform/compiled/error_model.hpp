// What xd-conform knows about each value of a graph before running it: dtype, shape, the range
// of its finite values, and a bound on how far one correct implementation may be from exact
// arithmetic. The generator uses it to keep random graphs well conditioned (no overflow, no
// division by numbers near zero, no comparison of rounded values); the checker uses it for the
// tolerance of a graph's outputs.
//
// Why a model and not one tolerance per dtype: a chain accumulates and amplifies rounding. Each
// step's bound is first order: the inputs' bounds times the op's largest derivative over the
// inputs' range, plus the rounding of the result (the storage dtype's unit roundoff, and for
// transcendental functions up to kMathUlps ulps of the compute type, OpenCL's full-profile bound
// for erf and pow), times the result's largest magnitude. Reductions add n input errors and a
// rounding term growing like n*sqrt(n) (the summation order differs between kernels).
// The tolerance of an output (output_tolerance) is the dtype's own (comparison.hpp) plus
// kSafety times the bound: two implementations each within the bound differ by at most twice
// it, and the first-order model gets the other factor of two. Values every implementation
// computes bit for bit (`exact`: inputs, constants, integers, comparisons, casts, neg/abs/relu,
// maximum/minimum and where of such values) are compared exactly.
#pragma once

#include "../conform_case.hpp"
#include "recipe.hpp"

#include <optional>
#include <string>
#include <vector>

namespace xd::conform {

struct ValueInfo {
  Dtype dtype = Dtype::f32;
  std::vector<int64_t> shape;
  double lo = 0.0, hi = 0.0;  // range of the finite, non-NaN elements
  double min_abs = 0.0;       // smallest magnitude among them (a denominator's distance from zero)
  double err = 0.0;           // bound on one implementation's absolute error
  bool exact = true;          // every correct implementation gives the same bits
  bool nan = false;           // may hold NaN (then at the same positions everywhere: see propagate)
  int depth = 0;              // steps on the longest path from an input

  double magnitude() const;  // max(|lo|, |hi|)
};

inline constexpr double kMathUlps = 16.0;
inline constexpr double kSafety = 4.0;

// A recipe input: `spec`'s dtype and the shape the graph sees, its value range as drawn.
ValueInfo input_info(const InputSpec& spec);

// The info of step `s`'s result from the infos of the values before it, or nullopt with the
// reason in `why` when the step is not one the checker can judge: ill-typed, shapes that do not
// broadcast, a magnitude near the dtype's overflow, a domain error of an inexact value (the NaN
// positions would depend on rounding), a comparison or an integer cast of an inexact value, a
// division by a range that holds zero, an empty reduction of amax/amin.
std::optional<ValueInfo> propagate(const GraphStep& s, const std::vector<ValueInfo>& values, std::string& why);

// The infos of all values of `r` (inputs first); nullopt with `why` at the first invalid step.
std::optional<std::vector<ValueInfo>> analyze(const Recipe& r, const std::vector<InputSpec>& inputs, std::string& why);

// The tolerance an output with this info is compared at (exact for exact values).
Tolerance output_tolerance(const ValueInfo& v);

// NumPy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace xd::conform
