// What one conformance case is: an op on one backend and dtype, with inputs described (shape,
// layout, value range) rather than stored, so the case id plus its seed regenerates the exact
// inputs (--replay). Each op's cases come from its family (op_case.hpp, ops/), gathered by
// case_generator.cpp; golden cases from golden.cpp.
#pragma once

#include <xd/dtype.hpp>
#include <xd/ops.hpp>
#include <xd/schema.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace xd::conform {

// How an input tensor is laid out in memory before the op sees it.
enum class Layout {
  contiguous,  // row-major
  transposed,  // stored with its last two dims swapped, then transposed back (strides swapped)
  sliced,      // every second row of a larger buffer, starting at row 1 (offset and stride)
  expanded,    // stored with size-1 dims, expanded to `expand_to` (stride 0)
};
const char* layout_name(Layout l);

// Which values fill an input.
enum class Values {
  uniform,    // uniform in [lo, hi)
  special,    // uniform, with NaN, +-Inf, +-0 and values near overflow mixed in (floating only)
  boolean,    // 0 or 1
  positive,   // uniform in [lo, hi) with lo > 0
  magnitude,  // |x| uniform in [lo, hi) with lo > 0, random sign (denominators)
  derived,    // computed from the reference inputs before it by the op's family
              // (OpFamily::derived_input; rms_norm_backward: the reference rstd of its `input`)
  extreme,    // uniform, and one extreme element per row (last dim) without NaN: +Inf in rows 0, 3, ..,
              // -Inf in rows 1, 4, .., +-0.9 x the dtype's largest in rows 2, 5, ..; isolates what
              // special's NaNs would hide (a kernel's reassociation overflowing, Inf - Inf)
  halves,     // multiples of 0.5 in [lo, hi): ties of round (half to even) and floor's -0.5
  sparse,     // uniform, most elements zero: the dense form of a CSR operand (`density`, `empty_rows`);
              // the zero pattern repeats in every batch, so batched CSR has equal nnz per batch
};

struct InputSpec {
  std::string name;
  bool absent = false;  // an optional input that is not given
  Dtype dtype = Dtype::f32;
  std::vector<int64_t> sizes;      // the logical shape the op sees (before expansion)
  std::vector<int64_t> expand_to;  // Layout::expanded: the shape after expand
  Layout layout = Layout::contiguous;
  Values values = Values::uniform;
  double lo = -2.0, hi = 2.0;
  double density = 1.0;     // Values::sparse: the fraction of nonzero elements
  bool empty_rows = false;  // Values::sparse: every third row (1, 4, 7, ...) is all zero
};

struct Attrs {
  double alpha = 1.0, beta = 1.0;
  double value = 0.0;                 // fill
  double start = 0.0, step = 1.0;     // arange: [start, start + step * numel)
  double exponent = 2.0;              // pow
  std::optional<double> clamp_min, clamp_max;  // clamp
  int64_t decimals = 0;                        // round
  GeluApproximate approximate = GeluApproximate::none;
  std::vector<int64_t> dims;          // reduce
  int64_t dim = 0;                    // argmax, softmax
  bool keepdim = false;
  std::vector<int64_t> sizes;         // fill, arange, random, and the copy destination
  std::vector<int64_t> normalized_shape;
  std::optional<double> eps;
  std::array<bool, 3> output_mask{true, true, true};  // the norms' backward (rms_norm_backward: the first two)
  Dtype to_dtype = Dtype::f32;        // copy
  int64_t group_size = 0;             // weight_int4_mm, quantize_int4
  Dtype out_dtype = Dtype::bf16;      // scaled_mm
  bool use_fast_accum = false;        // scaled_mm
  int64_t reduction_length = 1;       // how many terms each output sums over (tolerance scale)
  Dtype index_dtype = Dtype::i64;     // csr ops: the CSR operand's index dtype
  bool is_causal = false;             // scaled_dot_product_attention
  std::optional<double> scale;        // scaled_dot_product_attention (nullopt: 1/sqrt(E))
  std::vector<int64_t> conv_stride{1}, conv_padding{0}, conv_dilation{1};  // conv2d
  int64_t conv_groups = 1;
  int conv_same = 0;                  // conv2d: 1 padding "same", 2 "valid", 0 conv_padding
  // max_pool2d, avg_pool2d: 1 or 2 ints each; an empty stride is the kernel size.
  std::vector<int64_t> kernel_size{1}, stride, padding{0}, dilation{1};
  bool ceil_mode = false;
  bool count_include_pad = true;            // avg_pool2d
  std::optional<int64_t> divisor_override;  // avg_pool2d
  bool return_indices = false;              // max_pool2d: the indices output too
  std::optional<Dtype> cumsum_dtype;  // cumsum's dtype argument
  int64_t k = 0;                      // topk
  bool largest = true, sorted = true;  // topk
};

struct Case {
  std::string id;       // op/dtype/backend[/kernel]/variant/s<seed>
  OpSchema schema;
  Dtype dtype = Dtype::f32;
  std::string backend;  // the backend under test
  std::string kernel;   // when set: only this kernel of its slot is enabled
  std::string variant;  // shape/layout description, unique per (op, dtype)
  uint64_t seed = 0;
  std::vector<InputSpec> inputs;
  Attrs attrs;
  // When set, the case is not run but reported unsupported with this reason: the CPU reference
  // registers (op, dtype) and the backend under test does not, so its author sees the gap.
  std::string unsupported;
};

// Per-output tolerance: |got - expected| <= atol + rtol * |expected|; NaN matches NaN.
struct Tolerance {
  double rtol = 0.0, atol = 0.0;
};

}  // namespace xd::conform
