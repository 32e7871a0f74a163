// Running one kernel: look up (op, backend, dtype) in the dispatch table, take the first enabled
// kernel that accepts the call (its check(), ABI 1.2; or its supports(), from a plugin built before
// it), and call it on the current stream. With XD_FALLBACK=cpu a missing kernel runs on the CPU
// backend instead (inputs copied over, outputs copied back) with a one-time warning per (op,
// backend, dtype) and a counter (xd::fallback_count()).
#pragma once

#include <xd/plugin_abi.h>

#include "tensor/tensor_impl.hpp"

#include <initializer_list>
#include <span>

namespace xd::detail {

// A tensor as one kernel argument: a tensor with (optionally) other sizes and strides, e.g. an
// input broadcast to the output's shape. An absent optional argument has t == nullptr.
struct Arg {
  const TensorImpl* t = nullptr;
  int ndim = -1;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims];
};

Arg arg(const TensorImpl& t);
Arg arg_absent();
// A rank-0 argument as rank 1 of size 1, for kernels whose ABI has no rank-0 case (reductions,
// softmax, index_select); other ranks unchanged.
inline Arg rank1_if_scalar(Arg a) {
  if (a.ndim == 0) {
    a.ndim = 1;
    a.sizes[0] = 1;
    a.strides[0] = 1;
  }
  return a;
}
// `t` broadcast to (sizes, ndim); the caller has checked that it broadcasts.
Arg arg_broadcast(const TensorImpl& t, const int64_t* sizes, int ndim);

// The most inputs and outputs an op has (layer_norm_backward: 6 inputs; quantize_int4 and the
// layer norms: 3 outputs); launch() keeps its views in fixed arrays of these sizes.
inline constexpr size_t kMaxInputs = 6;
inline constexpr size_t kMaxOutputs = 3;

// Whether xd::set_poison_outputs is on, and the poisoning itself (0xFF bytes into every output
// that owns its storage), for code that writes outputs without launch() (core/compiler).
bool poisoning_outputs();
void poison_outputs(DeviceRecord& dev, StreamState& stream, std::span<const Arg> outputs);

// ValueError unless XD_FALLBACK is unset, "error" or "cpu" (checked when the registry starts).
void check_fallback_setting();

// All inputs and outputs are on `dev`. `key` is the dtype the op is keyed on (see xd_op).
void launch(xd_op op, Dtype key, DeviceRecord& dev, std::span<const Arg> inputs, std::span<const Arg> outputs,
            const void* attrs);
inline void launch(xd_op op, Dtype key, DeviceRecord& dev, std::initializer_list<Arg> inputs,
                   std::initializer_list<Arg> outputs, const void* attrs) {
  launch(op, key, dev, std::span<const Arg>(inputs.begin(), inputs.size()),
         std::span<const Arg>(outputs.begin(), outputs.size()), attrs);
}

}  // namespace xd::detail
