// Runs one case: inputs made identically on the CPU reference and the device under test, the op
// run on both (outputs poisoned first, so an unwritten element shows), outputs compared.
// A case whose reference raises an error passes when the target raises the same error type.
#pragma once

#include "comparison.hpp"
#include "conform_case.hpp"

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace xd::conform {

enum class Status { pass, fail, unsupported };
const char* status_name(Status s);

struct OutputResult {
  std::string name;
  Dtype dtype = Dtype::f32;
  std::vector<int64_t> shape;
  Tolerance tolerance;
  Comparison comparison;
};

struct Outcome {
  Status status = Status::pass;
  std::string message;  // why it failed or is unsupported
  // Failures that belong to no single output's comparison (an error raised by one side only, a
  // fallback to the CPU, an output on the wrong device or defined on one side only).
  std::vector<std::string> case_errors;
  // The case's shape: its first output's (as the reference computed it); empty when the
  // reference produced nothing (it raised, or the case did not run).
  std::optional<std::vector<int64_t>> shape;
  std::vector<OutputResult> outputs;
  std::vector<uint64_t> input_hashes;  // per input; 0 when absent
  double seconds = 0;
};

// Every exception is caught and turned into an outcome. The expected values come from the CPU
// reference's *last* kernel of the slot (its reference loop: a backend's list ends with its
// general kernel), so a fast CPU kernel in front of it is itself checked against the loop.
Outcome run_case(const Case& c);

// The kernels registered for (backend, op, dtype), in the order the slot tries them.
std::vector<std::string> slot_kernels(const std::string& backend, const std::string& op, Dtype dtype);

// Enables only `kernel` in the slot (backend, op, dtype) for the guard's lifetime (every other
// kernel of the slot is disabled, then re-enabled). An empty kernel name changes nothing.
// Not thread-safe: the switch is process-wide, and xd-conform runs cases one at a time.
class KernelIsolation {
 public:
  KernelIsolation(const std::string& backend, const std::string& op, Dtype dtype, const std::string& kernel);
  ~KernelIsolation();
  KernelIsolation(const KernelIsolation&) = delete;
  KernelIsolation& operator=(const KernelIsolation&) = delete;

 private:
  std::vector<std::string> disabled_;
};

// Isolates the host reference's last kernel of (op, dtype): what the expected values come from.
class ReferenceIsolation : public KernelIsolation {
 public:
  ReferenceIsolation(const std::string& op, Dtype dtype);
};

// The most specific xd::Error type of an exception ("ShapeError", ...), for "both sides raise
// the same error".
std::string error_type(const std::exception& e);

// Case inputs and outputs as text, for --replay.
std::string describe_inputs(const Case& c, int max_values);

}  // namespace xd::conform
