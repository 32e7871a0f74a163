/*
 * xdispatch plugin ABI — the only contract between libxdispatch (the host) and a backend plugin.
 *
 * Pure C11. A plugin built by another compiler, or written in C, loads as long as it follows
 * these rules:
 *
 *  - Versioning. XD_ABI_MAJOR changes only when an existing field or function changes meaning;
 *    the host refuses a plugin of another major version ("abi mismatch"). XD_ABI_MINOR grows
 *    when fields are appended. Every struct starts with `struct_size`; fields are only ever
 *    appended, so the reader of a struct checks `struct_size` (XD_STRUCT_HAS) before touching a
 *    trailing field. docs/plugin-abi.md keeps one changelog entry per minor version.
 *  - Entry points. A plugin exports exactly two symbols with C linkage:
 *      XD_PLUGIN_QUERY_SYMBOL  xd_status xd_plugin_query(xd_plugin_info *info);
 *      XD_PLUGIN_INIT_SYMBOL   xd_status xd_plugin_init(const xd_host_api *host, xd_plugin_api *api);
 *    `query` is cheap: it fills static strings and numbers and must not touch any vendor runtime.
 *    `init` is called at most once per process, after a successful query with a matching major
 *    version. It fills `api` and registers kernels through `host->register_kernel`. A plugin
 *    whose vendor runtime or driver is absent returns XD_ERR_UNAVAILABLE with a reason set
 *    through `host->set_error`.
 *  - Errors. No C++ exception ever crosses this boundary. Every function returns an xd_status;
 *    on failure the plugin first calls `host->set_error(host->ctx, code, message)` (which returns
 *    `code`, so `return host->set_error(...)` is the idiom). The message is copied by the host.
 *  - Lifetime. The host never unloads a plugin. Strings returned in xd_plugin_info must stay valid
 *    for the life of the process (string literals). `host` and everything it points to stays valid
 *    for the life of the process.
 *  - Threads. All xd_plugin_api functions and kernels may be called concurrently from several
 *    threads; a plugin serialises internally where its runtime requires it. Calls on one stream
 *    are issued in order by the host but may come from different threads.
 */
#ifndef XD_PLUGIN_ABI_H
#define XD_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XD_ABI_MAJOR 1
#define XD_ABI_MINOR 8

#define XD_PLUGIN_QUERY_SYMBOL "xd_plugin_query"
#define XD_PLUGIN_INIT_SYMBOL "xd_plugin_init"

/* True when a struct whose producer wrote `s->struct_size` contains `field`. */
#define XD_STRUCT_HAS(s, type, field) \
  ((s)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* ---------------------------------------------------------------- status codes */
typedef enum xd_status {
  XD_OK = 0,
  XD_ERR_INVALID_ARGUMENT = 1, /* a caller broke a documented precondition */
  XD_ERR_OUT_OF_MEMORY = 2,    /* a device or host allocation failed */
  XD_ERR_UNAVAILABLE = 3,      /* the vendor runtime, driver or device is missing */
  XD_ERR_NOT_IMPLEMENTED = 4,  /* the feature exists in the ABI but not in this plugin */
  XD_ERR_DEVICE = 5,           /* the vendor runtime reported a failure */
  XD_ERR_INTERNAL = 6,         /* a bug in the plugin */
  XD_NOT_READY = 7             /* event/stream query: work is still pending (not an error) */
} xd_status;

/* ---------------------------------------------------------------- element types */
/* Values are part of the ABI: append only. */
typedef enum xd_dtype {
  XD_DTYPE_F64 = 0,
  XD_DTYPE_F32 = 1,
  XD_DTYPE_F16 = 2,
  XD_DTYPE_BF16 = 3,
  XD_DTYPE_I8 = 4,
  XD_DTYPE_U8 = 5,
  XD_DTYPE_I32 = 6,
  XD_DTYPE_I64 = 7,
  XD_DTYPE_BOOL = 8, /* one byte, 0 or 1 */
  XD_DTYPE_F8E4M3FN = 9,
  XD_DTYPE_F8E5M2 = 10,
  XD_DTYPE_COUNT_V1 = 11
} xd_dtype;

/* ---------------------------------------------------------------- operations */
/* The core owns every op: its schema, validation and output allocation. A plugin can only
 * implement ops listed here. Values are part of the ABI: append only. The inputs, outputs and
 * attribute struct of each op are listed beside it: [inputs] -> [outputs] (attrs). An input or
 * output marked `?` may be absent (see xd_view.ndim). */
typedef enum xd_op {
  XD_OP_FILL = 0,      /* [] -> [out] (xd_attrs_scalar: value) */
  XD_OP_ARANGE = 1,    /* [] -> [out 1-d] (xd_attrs_arange) out[i] = start + i*step */
  XD_OP_RAND = 2,      /* [] -> [out contiguous] (xd_attrs_random) uniform [low, high) */
  XD_OP_RANDN = 3,     /* [] -> [out contiguous] (xd_attrs_random) normal(mean=low, std=high) */
  XD_OP_COPY = 4,      /* [src] -> [dst] (none) same shape, dst dtype may differ: cast. Keyed on src dtype */
  XD_OP_ADD = 5,       /* [a, b] -> [out] (xd_attrs_scalar alpha) a + alpha*b; a, b broadcast to out */
  XD_OP_SUB = 6,       /* [a, b] -> [out] (xd_attrs_scalar alpha) a - alpha*b */
  XD_OP_MUL = 7,       /* [a, b] -> [out] (none) */
  XD_OP_DIV = 8,       /* [a, b] -> [out] (none) true division (floats only) */
  XD_OP_POW = 9,       /* [a] -> [out] (xd_attrs_scalar exponent) a ** exponent */
  XD_OP_WHERE = 10,    /* [cond bool, a, b] -> [out] (none) cond ? a : b; keyed on a's dtype */
  XD_OP_EQ = 11,       /* [a, b] -> [out bool] (none) */
  XD_OP_LT = 12,       /* [a, b] -> [out bool] (none) */
  XD_OP_GT = 13,       /* [a, b] -> [out bool] (none) */
  XD_OP_NEG = 14,      /* unary ops: [a] -> [out] (none unless noted) */
  XD_OP_ABS = 15,
  XD_OP_EXP = 16,
  XD_OP_LOG = 17,
  XD_OP_SQRT = 18,
  XD_OP_RSQRT = 19,
  XD_OP_RELU = 20,
  XD_OP_GELU = 21,     /* (xd_attrs_gelu) */
  XD_OP_SILU = 22,
  XD_OP_SIGMOID = 23,
  XD_OP_TANH = 24,
  XD_OP_SUM = 25,      /* reductions: [a] -> [out] (xd_attrs_reduce). `out` has a's rank with the */
  XD_OP_MEAN = 26,     /* reduced dims of size 1 (the host passes a keepdim view); argmax out is i64 */
  XD_OP_AMAX = 27,
  XD_OP_AMIN = 28,
  XD_OP_ARGMAX = 29,   /* exactly one reduced dim; first index of the maximum; NaN is the maximum */
  XD_OP_SOFTMAX = 30,  /* [a] -> [out] (xd_attrs_dim). Reductions and softmax never see rank 0: */
                       /* the host presents a scalar as rank 1 of size 1. */
  XD_OP_LOG_SOFTMAX = 31,
  XD_OP_MM = 32,       /* [a [M,K], b [K,N]] -> [out [M,N]] (none) */
  XD_OP_ADDMM = 33,    /* [input (broadcast to [M,N]), a, b] -> [out] (xd_attrs_blas) beta*input + alpha*a@b */
  XD_OP_BMM = 34,      /* [a [B,M,K], b [B,K,N]] -> [out [B,M,N]] (none) */
  XD_OP_BADDBMM = 35,  /* [input (broadcast to [B,M,N]), a, b] -> [out] (xd_attrs_blas) */
  XD_OP_RMS_NORM = 36, /* [x, weight?] -> [y, rstd f32 (f64 for f64 x)] (xd_attrs_rms_norm) */
  XD_OP_RMS_NORM_BACKWARD = 37, /* [grad_out, x, rstd, weight?] -> [grad_input?, grad_weight?]
                                   (xd_attrs_rms_norm_backward); grad_weight has weight's dtype */
  XD_OP_COUNT_V1 = 38,          /* the ops of ABI 1.0; a 1.0 host rejects a registration of any later op */
  /* ABI 1.1 (docs/plugin-abi.md, changelog). */
  XD_OP_INT_MM = 38,            /* [a i8 [M,K], b i8 [K,N]] -> [out i32 [M,N]] (none) exact, keyed on i8 */
  XD_OP_SCALED_MM = 39,         /* [a fp8 [M,K], b fp8 [K,N], scale_a f32, scale_b f32, bias? [N]] -> [out [M,N]]
                                   (xd_attrs_scaled_mm from ABI 1.7; none before, which means fast accumulation
                                   off) out = (a*scale_a) @ (b*scale_b) + bias, accumulated in f32, keyed on
                                   a's dtype. b may be the other fp8 format. The host passes scale_a broadcast
                                   to [M,1] and scale_b to [1,N] (stride 0 for a tensor-wise scale); out is
                                   f32, f16 or bf16 and bias (1-d, N) has out's dtype or bf16. */
  XD_OP_WEIGHT_INT4_MM = 40,    /* [input [M,K], weight u8 [N,K/2], scales [K/g,N], zeros i8 [K/g,N]] -> [out [M,N]]
                                   (xd_attrs_int4) keyed on input's dtype (f32 f16 bf16); scales have it too.
                                   Element k of row n is the low nibble of weight[n][k/2] for even k, the high
                                   nibble for odd k; out = input @ ((q - zeros) * scales)^T, fp32 accumulation.
                                   Every view arrives contiguous. */
  XD_OP_QUANTIZE_INT4 = 41,     /* [weight [N,K]] -> [packed u8 [N,K/2], scales [K/g,N], zeros i8 [K/g,N]]
                                   (xd_attrs_int4) keyed on weight's dtype (f32 bf16), scales in it; the
                                   rounding rules are docs/ops/int4.md's. Every view arrives contiguous. */
  /* Sparse CSR. The host always presents the batched form; an unbatched matrix comes as batch 1.
   * Index tensors are contiguous i32 or i64 (crow and col the same dtype), values are contiguous
   * in the op's dtype, and every invariant (crow starts at 0, non-decreasing, ends at nnz; columns
   * sorted, distinct and in [0, K)) has been checked by the host. Keyed on values. */
  XD_OP_CSR_ADDMM = 42,         /* [input? (broadcast to [B,M,N]), crow [B,M+1], col [B,nnz], values [B,nnz],
                                   b [B,K,N]] -> [out [B,M,N]] (xd_attrs_blas) beta*input + alpha*A@b;
                                   input absent: beta*input is not computed (mm, bmm, and beta == 0) */
  XD_OP_CSR_TO_DENSE = 43,      /* [crow [B,M+1], col [B,nnz], values [B,nnz]] -> [out [B,M,K]] (none) */
  XD_OP_COUNT_V1_1 = 44,        /* one past the last op of ABI 1.1 */
  /* ABI 1.2. */
  XD_OP_MAXIMUM = 44,           /* [a, b] -> [out] (none) out = max(a, b) elementwise, as torch.maximum: a and b
                                   broadcast to out, one dtype (f64 f32 f16 bf16 i8 u8 i32 i64); a NaN in either
                                   operand gives NaN; of two equal values, a (max(-0, +0) is -0). Exact. */
  XD_OP_MINIMUM = 45,           /* [a, b] -> [out] (none) out = min(a, b) elementwise, as torch.minimum: the same
                                   rules (min(+0, -0) is +0). */
  XD_OP_COUNT_V1_2 = 46,        /* one past the last op of ABI 1.2 (and of 1.3, which added none) */
  /* ABI 1.4. Unary pointwise ops as PyTorch defines them: [a] -> [out], out of a's shape and dtype. */
  XD_OP_CLAMP = 46,             /* [a] -> [out] (xd_attrs_clamp) out = min(max(a, lo), hi), as torch.clamp with scalar
                                   bounds: f64 f32 f16 bf16 i8 u8 i32 i64. The host gives both bounds already in a's
                                   dtype (rounded to f16/bf16/f32 as PyTorch converts them; an absent bound is -Inf/+Inf,
                                   or the integer dtype's extreme). Compared exactly: a NaN a stays NaN; a NaN bound
                                   gives NaN everywhere; lo > hi gives hi; of equal values, a (clamp(-0, lo=+0) is -0). */
  XD_OP_FLOOR = 47,             /* [a] -> [out] (none) floor(a), exact: f64 f32 f16 bf16 (NaN, +-Inf, +-0 kept, so
                                   floor(-0.5) is -1 and floor(-0) is -0); i8 u8 i32 i64 are copied, as torch.floor. */
  XD_OP_ROUND = 48,             /* [a] -> [out] (xd_attrs_round) round half to even, as torch.round: f64 f32 f16 bf16;
                                   i8 u8 i32 i64 with decimals 0 only (a copy). decimals 0: rint(a), exact, sign kept
                                   (round(-0.5) is -0). decimals d > 0: rint(a * s) / s; d < 0: rint(a / s) * s, where
                                   s = 10^|d| rounded to the compute type (float for f32/f16/bf16, double for f64) and
                                   each operation is done in the compute type, rounded once to a's dtype at the end
                                   (s overflowing to Inf gives NaN, as in PyTorch). */
  /* ABI 1.4. Indexing, as PyTorch defines it. */
  XD_OP_INDEX_SELECT = 49,      /* [a, index i64 1-d] -> [out] (xd_attrs_dim) torch.index_select: out has a's rank and
                                   dtype, size(dim) = index.numel(), out[.., i, ..] = a[.., index[i], ..] along dim
                                   (normalised; a 0-d a, whose index has one element, is seen as [1]). Keyed on a's
                                   dtype: every dtype (f64 f32 f16 bf16 i8 u8 i32 i64 bool f8e4m3fn f8e5m2), a bitwise
                                   move, exact. The host converts an i32 index to i64 and checks, before the launch,
                                   that every index is in [0, size(dim)) (negative ones are errors, as in PyTorch): it
                                   reads the index tensor, which waits for the work that writes it. A kernel given an
                                   index outside [0, size(dim)) anyway (a plugin called directly) must not read a: it
                                   writes zero bytes for that element. */
  XD_OP_COUNT_V1_4 = 50,        /* one past the last op of ABI 1.4 */
  /* ABI 1.5. Layer normalisation, as torch.native_layer_norm and torch.native_layer_norm_backward. Rows are x's
   * leading dims, a row its normalized_ndim trailing ones (N elements); statistics in f32 (f64 for f64 x). */
  XD_OP_LAYER_NORM = 50,        /* [x, weight?, bias?] -> [out, mean, rstd] (xd_attrs_rms_norm: normalized_ndim, eps)
                                   f64 f32 f16 bf16, keyed on x; weight and bias have the row's shape and x's dtype.
                                   Per row: mean = sum(x)/N, var = sum((x-mean)^2)/N (biased), rstd = 1/sqrt(var+eps),
                                   out = (x-mean)*rstd*weight+bias (weight 1, bias 0 when absent), rounded once to x's
                                   dtype. mean and rstd are f32 (f64 for f64 x) of shape x.shape[:-k] + [1]*k. Rows of no
                                   elements launch nothing: the host gives mean 0 and rstd NaN, as PyTorch's kernel.
                                   NaN or Inf in a row gives NaN throughout it. */
  XD_OP_LAYER_NORM_BACKWARD = 51, /* [grad_out, x, mean, rstd, weight?, bias?] -> [grad_input?, grad_weight?,
                                   grad_bias?] (xd_attrs_layer_norm_backward) keyed on x (f64 f32 f16 bf16); mean and
                                   rstd as XD_OP_LAYER_NORM returns them; bias is only the shape of grad_bias. With
                                   xh = (x-mean)*rstd and gw = grad_out*weight (weight 1 when absent), per row:
                                   grad_input = rstd*(gw - mean(gw) - xh*mean(gw*xh)); over every row:
                                   grad_weight = sum(grad_out*xh), grad_bias = sum(grad_out) (zero with no rows),
                                   in the weight's (bias's) dtype. An output whose output_mask entry is 0 is absent. */
  /* ABI 1.5. Indexing. */
  XD_OP_GATHER = 52,            /* [a, index i64] -> [out] (xd_attrs_dim) torch.gather: index has a's rank (a 0-d a and
                                   index are seen as [1]), index.size(d) <= a.size(d) for every d != dim, out has
                                   index's shape and a's dtype: out[p] = a[p with p[dim] = index[p]]. Keyed on a's
                                   dtype: every dtype, a bitwise move, exact. As for INDEX_SELECT, the host converts
                                   an i32 index to i64 and checks every entry is in [0, a.size(dim)) before the
                                   launch (negative entries are errors); a kernel given an entry outside anyway must
                                   not read a with it and writes zero bytes for that element. */
  /* ABI 1.5. Fused attention. */
  XD_OP_SCALED_DOT_PRODUCT_ATTENTION = 53, /* [q [B,L,E], k [B,S,E], v [B,S,Ev], mask? [B,L,S]] -> [out [B,L,Ev]]
                                   (xd_attrs_attention) torch.nn.functional.scaled_dot_product_attention without
                                   dropout: out[b,i,:] = softmax_j(s[b,i,j]) @ v[b,:,:] with
                                   s[b,i,j] = scale * dot(q[b,i,:], k[b,j,:]) + mask[b,i,j]. Keyed on q's dtype
                                   (f64 f32 f16 bf16); k, v, mask and out have it too. The host broadcasts and
                                   flattens the leading dims into B (any strides, 0 included, in every view),
                                   turns a bool mask into an additive one (0 where true, -inf where false), and
                                   passes scale already defaulted (1/sqrt(E); 0 when E = 0, as PyTorch's math path
                                   gives every score 0 then). is_causal: key j takes part in row i only when
                                   j <= i (top-left aligned tril(ones(L, S))); a kernel may skip the others; the
                                   host never passes a mask with it. Accumulation in CT (f32 for f16/bf16, f64 for
                                   f64): each dot product, the softmax statistics (maximum subtracted before exp)
                                   and the weighted sum of v, rounded once to the dtype. A row whose maximum is not
                                   finite (every key masked, a NaN or +inf score) is NaN throughout; S = 0 gives
                                   zeros (the composed formula's empty sum). The order of the sums is the kernel's
                                   (an online softmax over key tiles may rescale). */
  XD_OP_COUNT_V1_5 = 54,        /* one past the last op of ABI 1.5 */
  /* ABI 1.6. Convolution. */
  XD_OP_CONV2D = 54,            /* [input [N,C,H,W], weight [O,C/groups,kH,kW], bias? [O]] -> [out [N,O,oH,oW]]
                                   (xd_attrs_conv2d) torch.nn.functional.conv2d, a cross-correlation: with
                                   cg = C/groups, og = O/groups and g = o / og,
                                   out[n,o,y,x] = bias[o] + sum over ci < cg, i < kH, j < kW of
                                   input[n, g*cg+ci, y*sy-pt+i*dy, x*sx-pl+j*dx] * weight[o,ci,i,j],
                                   positions outside the input reading 0. Keyed on input's dtype (f64 f32 f16
                                   bf16); weight, bias and out have it. Any strides (never negative). The host
                                   checks the shapes and chooses oH, oW (PyTorch's sizes; padding "same" may pad
                                   the bottom/right by one more than padding[] says, which a kernel sees only
                                   as out's size): a kernel reads 0 for every position outside the input.
                                   Accumulation in CT (f32 for f16/bf16 and f32, f64 for f64), the bias added to
                                   the finished sum, rounded once; the order of the sum is the kernel's. C = 0
                                   gives the bias (0 without one). */
  /* ABI 1.6. Pooling. Both take a [N,C,H,W] view (the host views an unbatched [C,H,W] input as
   * [1,C,H,W]; a and the outputs may have any strides, 0 included) and xd_attrs_pool2d, already
   * defaulted and validated; Ho and Wo are the host's (PyTorch's pooling_output_shape, ceil_mode
   * included), and every window holds at least one tap inside the input or its left padding.
   * Keyed on a's dtype, f64 f32 f16 bf16; out has a's dtype. Window (ho, wo) starts at
   * h0 = ho*stride[0] - padding[0], w0 = wo*stride[1] - padding[1]. */
  XD_OP_MAX_POOL2D = 55,        /* [a] -> [out [N,C,Ho,Wo], indices? i64 [N,C,Ho,Wo]] (xd_attrs_pool2d)
                                   torch.nn.functional.max_pool2d (aten::max_pool2d_with_indices, its CPU kernel):
                                   the taps are rows h0 + i*dilation[0] (i < kernel[0]) by columns
                                   w0 + j*dilation[1] (j < kernel[1]); taps outside [0,H) x [0,W) are padding,
                                   never chosen. Scanning the taps inside row-major (i, then j), a tap replaces the
                                   running maximum, which starts at -inf, when it is greater or NaN: so a window
                                   with a NaN gives NaN and the last NaN's index, and of equal maxima the first
                                   stays. indices (absent unless the caller asked for it) is h*W + w of the chosen
                                   tap within its (n, c) plane; when no tap replaces -inf (every tap -inf, or none
                                   inside the input) out is -inf and the index is h*W + w of the first tap row and
                                   column that are >= 0 (PyTorch's). Exact: the result is an element. */
  XD_OP_AVG_POOL2D = 56,        /* [a] -> [out [N,C,Ho,Wo]] (xd_attrs_pool2d; dilation 1 1)
                                   torch.nn.functional.avg_pool2d (its CPU kernel): with h1 = min(h0 + kernel[0],
                                   H + padding[0]) and w1 likewise, the window's elements are rows
                                   max(h0,0)..min(h1,H)-1 by columns max(w0,0)..min(w1,W)-1, summed row-major in CT
                                   (f32 for f16/bf16/f32, f64 for f64); out = sum / d in CT, rounded once to the
                                   dtype, d = divisor_override when non-zero, else (h1-h0)*(w1-w0) with
                                   count_include_pad (the window clipped at the padded input), else the number of
                                   elements summed; d is converted to CT. A window with no element (the host never
                                   passes one) gives 0. NaN and Inf propagate by IEEE arithmetic. */
  /* ABI 1.6. Scans and selections along one dim, as PyTorch defines them. Rows are every dim but `dim`; the host
   * presents a 0-d tensor as [1] (and topk's 0-d outputs too). Views of any strides. */
  XD_OP_CUMSUM = 57,            /* [a] -> [out] (xd_attrs_dim) torch.cumsum: out has a's shape and dtype, out[.., i, ..] =
                                   a[.., 0, ..] + ... + a[.., i, ..] along dim. Keyed on out's dtype, which a has too:
                                   f64 f32 f16 bf16 i8 u8 i32 i64 (the host applies torch's dtype rule — bool and
                                   integer inputs give i64, a given dtype wins — and converts a to it first).
                                   Accumulation: f32 for f16/bf16 (each output rounded once from the running f32 sum),
                                   f32 for f32, f64 for f64, int64 wrapping for integers (exact two's-complement
                                   wrap-around of out's width). NaN and infinities propagate as in a running sum. The
                                   order of the additions is the kernel's: the CPU reference adds in index order; a
                                   parallel scan may reassociate (floating results then differ by rounding; integers
                                   are exact). */
  XD_OP_TOPK = 58,              /* [a] -> [values, indices i64] (xd_attrs_topk) torch.topk: both have a's shape with
                                   size(dim) = k, 0 <= k <= a.size(dim) (checked by the host). Keyed on a's dtype: f64
                                   f32 f16 bf16 i8 u8 i32 i64; values are a's elements, bit for bit. Order: with
                                   largest, NaN first, then larger values; without, smaller values first, NaN last
                                   (NaN is larger than every number, as in torch); -0 equals +0; equal values go to
                                   the smaller index (torch leaves that unspecified), so the result is one. sorted = 0
                                   allows any order of the k; the in-tree kernels sort anyway. */
  XD_OP_COUNT_V1_6 = 59,        /* one past the last op of ABI 1.6 (and of 1.7, which added none) */
  XD_OP_NE = 59,                /* [a, b] -> [out bool] (none) torch.ne, torch.ge, torch.le: a and b broadcast to out,
                                   one dtype out of f64 f32 f16 bf16 i8 u8 i32 i64 (ne also bool), compared exactly
                                   as IEEE-754 does: a NaN on either side makes ne true and ge, le false; -0 equals
                                   +0. */
  XD_OP_GE = 60,                /* [a, b] -> [out bool] (none), as XD_OP_NE says */
  XD_OP_LE = 61,                /* [a, b] -> [out bool] (none), as XD_OP_NE says */
  XD_OP_COUNT_V1_8 = 62         /* one past the last op of ABI 1.8 */
} xd_op;

/* One past the last op of the newest ABI minor this header declares: what a host of this header
 * sizes its tables by. A plugin that must load on older hosts checks host->abi_minor instead. */
#define XD_OP_COUNT_LATEST XD_OP_COUNT_V1_8

/* ---------------------------------------------------------------- attribute structs */
/* A scalar given to an op. `real` is used for floating-point dtypes, `integer` for integer and
 * bool dtypes; the host fills both consistently. */
typedef struct xd_attrs_scalar {
  size_t struct_size;
  double real;
  int64_t integer;
} xd_attrs_scalar;

typedef struct xd_attrs_arange {
  size_t struct_size;
  double start, step;           /* floating-point dtypes */
  int64_t int_start, int_step;  /* integer dtypes */
} xd_attrs_arange;

/* Philox4x32-10 stream, identical on every backend (docs/architecture.md, "Random numbers"):
 * element i of a contiguous output of n elements is computed from counter block
 * (offset + i / per_block) where per_block = 4 for rand (f32 and narrower), 2 for randn and for
 * f64 rand. */
typedef struct xd_attrs_random {
  size_t struct_size;
  uint64_t seed;
  uint64_t offset; /* in 128-bit counter blocks */
  double low, high; /* rand: [low, high); randn: mean = low, std = high */
} xd_attrs_random;

typedef struct xd_attrs_gelu {
  size_t struct_size;
  int32_t approximate; /* 0: exact erf form; 1: tanh approximation */
} xd_attrs_gelu;

typedef struct xd_attrs_reduce {
  size_t struct_size;
  uint64_t dim_mask; /* bit d set: dim d of the input is reduced (already normalised) */
} xd_attrs_reduce;

typedef struct xd_attrs_dim {
  size_t struct_size;
  int32_t dim; /* normalised to [0, ndim) */
} xd_attrs_dim;

typedef struct xd_attrs_blas {
  size_t struct_size;
  double beta;  /* beta == 0: input is not read (NaN in it does not propagate) */
  double alpha;
} xd_attrs_blas;

typedef struct xd_attrs_rms_norm {
  size_t struct_size;
  int32_t normalized_ndim; /* the trailing dims normalised over, >= 1 */
  double eps;              /* already defaulted by the host */
} xd_attrs_rms_norm;

typedef struct xd_attrs_rms_norm_backward {
  size_t struct_size;
  int32_t normalized_ndim;
  int32_t output_mask[2]; /* [grad_input, grad_weight]; an unrequested output is absent */
} xd_attrs_rms_norm_backward;

/* ABI 1.5. XD_OP_LAYER_NORM_BACKWARD's (XD_OP_LAYER_NORM takes xd_attrs_rms_norm). */
typedef struct xd_attrs_layer_norm_backward {
  size_t struct_size;
  int32_t normalized_ndim;
  int32_t output_mask[3]; /* [grad_input, grad_weight, grad_bias]; an unrequested output is absent */
} xd_attrs_layer_norm_backward;

/* Int4 weight-only ops (ABI 1.1). group_size: consecutive k sharing one scale and zero point, a
 * positive multiple of 32 that divides K (checked by the host). */
typedef struct xd_attrs_int4 {
  size_t struct_size;
  int64_t group_size;
} xd_attrs_int4;

/* ABI 1.4. XD_OP_CLAMP's bounds, both always set, already converted to the input's dtype by the host:
 * `real_*` for floating dtypes (exact in the dtype; NaN when torch.clamp gives NaN everywhere),
 * `int_*` for integer dtypes (in the dtype's range). */
typedef struct xd_attrs_clamp {
  size_t struct_size;
  double real_min, real_max;
  int64_t int_min, int_max;
} xd_attrs_clamp;

/* ABI 1.4. XD_OP_ROUND's decimals: 0 for integer dtypes. */
typedef struct xd_attrs_round {
  size_t struct_size;
  int64_t decimals;
} xd_attrs_round;

/* ABI 1.5. XD_OP_SCALED_DOT_PRODUCT_ATTENTION: the scale already defaulted by the host. */
typedef struct xd_attrs_attention {
  size_t struct_size;
  double scale;
  int32_t is_causal; /* 1: key j takes part in query row i only when j <= i */
} xd_attrs_attention;

/* ABI 1.6. XD_OP_CONV2D, every value already checked and expanded to both spatial dims by the host
 * ([0] the height, [1] the width). */
typedef struct xd_attrs_conv2d {
  size_t struct_size;
  int64_t stride[2];   /* >= 1 */
  int64_t padding[2];  /* >= 0: the top and left padding (the bottom/right follow from out's size) */
  int64_t dilation[2]; /* >= 1 */
  int64_t groups;      /* >= 1, divides C and O */
} xd_attrs_conv2d;

/* ABI 1.6. XD_OP_MAX_POOL2D and XD_OP_AVG_POOL2D: [H, W] pairs, defaulted and checked by the host
 * (kernel, stride, dilation >= 1; 0 <= padding <= ((kernel-1)*dilation+1)/2; each below 2^31). */
typedef struct xd_attrs_pool2d {
  size_t struct_size;
  int64_t kernel[2];
  int64_t stride[2];         /* the kernel size where the caller gave none */
  int64_t padding[2];        /* each side */
  int64_t dilation[2];       /* max_pool2d; 1 1 for avg_pool2d */
  int32_t ceil_mode;         /* 1: Ho and Wo were rounded up (the host's; kernels take out's sizes) */
  int32_t count_include_pad; /* avg_pool2d: 1 divides by the window clipped at the padded input */
  int64_t divisor_override;  /* avg_pool2d: the divisor when non-zero; 0: none */
} xd_attrs_pool2d;

/* ABI 1.6. XD_OP_TOPK (XD_OP_CUMSUM takes xd_attrs_dim). */
typedef struct xd_attrs_topk {
  size_t struct_size;
  int64_t k;       /* in [0, a.size(dim)] */
  int32_t dim;     /* normalised to [0, ndim) */
  int32_t largest; /* 1: the k largest, 0: the k smallest */
  int32_t sorted;  /* 1: in the order above; 0: any order */
} xd_attrs_topk;

/* ABI 1.7. XD_OP_SCALED_MM. use_fast_accum: 0 (the default): every product summed in f32, as the
 * op's contract says; 1: the caller accepts sums at the lower precision of a matrix unit that adds
 * fp8 products that way (PyTorch's use_fast_accum; docs/ops/matmul.md says what xd-conform allows).
 * A kernel may ignore it: summing in f32 is always allowed. A host before 1.7 passes no attribute
 * struct: read that as 0. */
typedef struct xd_attrs_scaled_mm {
  size_t struct_size;
  int32_t use_fast_accum;
} xd_attrs_scaled_mm;

/* ---------------------------------------------------------------- tensors as kernels see them */
/* A strided view of device memory. `handle` is the plugin's own allocation handle (a host pointer
 * on the CPU backend, a cl_mem on OpenCL, a USM pointer on Level Zero); `offset` is in bytes from
 * the start of that allocation; sizes and strides are in elements. Strides may be 0 (broadcast)
 * but are never negative. An absent optional tensor has ndim == -1 and handle == NULL. The arrays
 * are owned by the host and valid for the duration of the call only. */
typedef struct xd_view {
  size_t struct_size;
  int32_t dtype; /* xd_dtype */
  int32_t ndim;
  const int64_t *sizes;
  const int64_t *strides;
  void *handle;
  uint64_t offset;
} xd_view;

typedef void *xd_stream; /* plugin-defined; created by xd_plugin_api.stream_create */
typedef void *xd_event;  /* plugin-defined; created by xd_plugin_api.event_create */

struct xd_host_api;

/* Everything a kernel receives. Valid for the duration of the call. A kernel enqueues work on
 * `stream` and may return before it completes; memory it reads or writes stays alive until the
 * stream has passed the work (the host's allocator guarantees it). */
typedef struct xd_kernel_call {
  size_t struct_size;
  int32_t op; /* xd_op */
  int32_t device;
  xd_stream stream;
  int32_t num_inputs;
  int32_t num_outputs;
  const xd_view *inputs;
  const xd_view *outputs;
  const void *attrs; /* the op's attribute struct, or NULL for ops without attributes */
  void *plugin_ctx;  /* xd_plugin_api.ctx */
  void *user_data;   /* xd_kernel_desc.user_data */
  const struct xd_host_api *host;
  /* Scratch memory on the call's device and stream, released after the stream passes the call.
   * Returns XD_OK and sets *handle and *offset, or an error already reported through set_error. */
  xd_status (*workspace)(void *workspace_ctx, uint64_t nbytes, void **handle, uint64_t *offset);
  void *workspace_ctx;
} xd_kernel_call;

typedef xd_status (*xd_kernel_fn)(const xd_kernel_call *call);
/* Returns non-zero when the kernel accepts this call. Must be cheap and side-effect free. */
typedef int (*xd_kernel_supports_fn)(const xd_kernel_call *call);
/* ABI 1.2: `supports` that says why it declines. Returns non-zero to accept the call. To decline
 * it returns 0 and writes a NUL-terminated reason of at most `reason_size` bytes (truncated, never
 * longer) into `reason`, naming what the call has that the kernel does not take, e.g.
 * "f64 on a device without cl_khr_fp64". The host logs the reason (XD_LOG=debug) and puts it into
 * the NotImplementedError it raises when every kernel of the slot declines. `reason` is never NULL
 * and `reason_size` is at least 64. Must be cheap, thread-safe and free of other side effects. */
typedef int32_t (*xd_kernel_check_fn)(const xd_kernel_call *call, char *reason, size_t reason_size);

typedef struct xd_kernel_desc {
  size_t struct_size;
  int32_t op;    /* xd_op */
  int32_t dtype; /* xd_dtype the op is keyed on (see xd_op) */
  const char *name; /* for diagnostics, e.g. "cpu.add.contiguous"; copied by the host */
  xd_kernel_fn fn;
  xd_kernel_supports_fn supports; /* NULL: accepts every call */
  void *user_data;
  int32_t priority; /* higher is tried first; equal priorities keep registration order */
  /* ABI 1.2. NULL: `supports` decides (or the kernel accepts every call). Set: the host calls it
   * instead of `supports`. */
  xd_kernel_check_fn check;
} xd_kernel_desc;

/* ---------------------------------------------------------------- the host's side */
typedef enum xd_log_level { XD_LOG_ERROR = 0, XD_LOG_WARN = 1, XD_LOG_INFO = 2, XD_LOG_DEBUG = 3 } xd_log_level;

typedef struct xd_host_api {
  size_t struct_size;
  uint32_t abi_major, abi_minor; /* the host's version */
  void *ctx;                     /* pass back to every function below */
  /* Log through the host (XD_LOG decides what is printed). Thread-safe. */
  void (*log)(void *ctx, int32_t level, const char *message);
  /* Record an error message for the calling thread and return `code`. Thread-safe. */
  xd_status (*set_error)(void *ctx, xd_status code, const char *message);
  /* Register a kernel; only valid during xd_plugin_init. Returns XD_ERR_INVALID_ARGUMENT for an
   * unknown op or dtype, or a NULL fn. */
  xd_status (*register_kernel)(void *ctx, const xd_kernel_desc *desc);
} xd_host_api;

/* ---------------------------------------------------------------- the plugin's side */
typedef enum xd_device_kind {
  XD_DEVICE_KIND_CPU = 1,
  XD_DEVICE_KIND_GPU = 2,
  XD_DEVICE_KIND_ACCELERATOR = 4
} xd_device_kind;

enum {
  XD_DEVICE_FLAG_F16 = 1,  /* computes in f16 natively */
  XD_DEVICE_FLAG_F64 = 2,
  XD_DEVICE_FLAG_BF16 = 4,
  /* handle + offset of an allocation is a host pointer, usable by memcpy once the stream that
   * wrote it is synchronised. The host copies between such devices without the plugin. */
  XD_DEVICE_FLAG_HOST_POINTERS = 8,
  XD_DEVICE_FLAG_TIMING = 16 /* events can measure elapsed time */
};

typedef struct xd_device_properties {
  size_t struct_size;
  char name[256];
  char vendor[128];
  char driver_version[128];
  int32_t kind; /* xd_device_kind */
  uint32_t flags; /* XD_DEVICE_FLAG_* */
  uint64_t total_memory; /* bytes */
  uint32_t compute_units;
  uint32_t max_work_group_size; /* 0 where meaningless */
} xd_device_properties;

/* A setting the plugin reads from the environment (ABI 1.2), declared so that the host can list
 * it (xd-info) and a plugin can parse it the one way include/xd/plugin.hpp does. Every string
 * lives for the process. The value is read with secure_getenv; unset and empty mean the default. */
typedef enum xd_option_kind {
  XD_OPTION_TEXT = 0,     /* any text (build options, a folder) */
  XD_OPTION_INTEGER = 1,  /* a decimal integer in [min[0], max[0]] */
  XD_OPTION_FLAG = 2,     /* 0 or 1 */
  XD_OPTION_CHOICE = 3,   /* one of `choices` */
  XD_OPTION_INTEGERS = 4  /* `count` comma-separated decimal integers, integer i in [min[i], max[i]] */
} xd_option_kind;

#define XD_OPTION_MAX_INTEGERS 4

typedef struct xd_option_desc {
  size_t struct_size;
  const char *name;          /* the environment variable: XD_ then the plugin's own prefix */
  int32_t kind;              /* xd_option_kind */
  int32_t count;             /* INTEGERS: how many (1..XD_OPTION_MAX_INTEGERS); INTEGER: 1; else 0 */
  int64_t min[XD_OPTION_MAX_INTEGERS]; /* INTEGER, INTEGERS: inclusive bounds */
  int64_t max[XD_OPTION_MAX_INTEGERS];
  const char *choices;       /* CHOICE: the accepted values, '|'-separated; INTEGERS: the integers'
                                names, ','-separated; else NULL */
  const char *default_value; /* as a user would write it; "" when the default is "unset" */
  const char *doc;           /* what it does, when it is read, what an invalid value does */
} xd_option_desc;

/* Bits of xd_plugin_info.flags (ABI 1.2). */
enum {
  /* The backend runs on the host CPU and is the reference every other backend is checked against:
   * its first device is xd::cpu(), the default device when XD_BACKEND is unset, and where
   * XD_FALLBACK=cpu runs the kernels another backend lacks. The first loaded plugin with the flag
   * holds the role. */
  XD_PLUGIN_FLAG_HOST_REFERENCE = 1
};

typedef struct xd_plugin_info {
  size_t struct_size;
  const char *name;        /* backend name: [a-z][a-z0-9_]*, unique among loaded plugins */
  uint32_t abi_major, abi_minor; /* the version the plugin was built against */
  const char *version;     /* the plugin's own version */
  const char *description;
  uint32_t device_kinds;   /* xd_device_kind bits it may expose */
  /* ABI 1.2. A family is a name several backends share that XD_BACKEND accepts for "the best device
   * of any of them" (e.g. "xpu" for the OpenCL and Level Zero backends): NULL for none, else
   * [a-z][a-z0-9_]*, not any backend's name. Among the loaded backends of a family, higher
   * `family_preference` is tried first (ties: load order); within a backend, GPUs before
   * accelerators before CPUs, restricted to the xd_device_kind bits of `family_kinds`. */
  const char *family;
  int32_t family_preference;
  uint32_t family_kinds;
  uint32_t flags;                /* XD_PLUGIN_FLAG_* */
  const xd_option_desc *options; /* `option_count` settings the plugin reads; NULL when none */
  int32_t option_count;
} xd_plugin_info;

/* ---------------------------------------------------------------- generated kernels (ABI 1.3) */
/* The DeviceOpOverrides of a backend: how the core's compiler (docs/compiler.md) runs the kernels
 * it generates there. The core owns the graph, the fusion and the emitters; a backend says which
 * source languages it accepts, what the emitter must know of a device in a language, and builds,
 * finds and launches generated kernels. A backend without this table, or one whose build fails,
 * runs every op eagerly: generated code is an optimisation, never a requirement. */

/* Bits of xd_plugin_api.codegen_languages and xd_codegen_api.languages. */
enum { XD_CODEGEN_OPENCL_C = 1, XD_CODEGEN_CPP = 2 };

/* What the emitter must know of one device in one language. Strings live as long as the plugin. */
typedef struct xd_codegen_target {
  size_t struct_size;
  /* Source the emitter puts before every generated kernel: the element types, the exact
   * conversions of include/xd/numeric.hpp and the math the generated code calls, under the names
   * docs/compiler.md lists for the language. */
  const char *prelude;
  const char *compiler;      /* what builds it, for messages and cache keys: "clang 15 (PoCL 3.1)" */
  uint32_t work_group;       /* work-items per group the emitter sizes its kernels for (power of two) */
  uint32_t vector_width;     /* elements per work-item (OpenCL) or per SIMD lane group (C++) */
  uint32_t sub_group;        /* 0 when unknown */
  uint32_t flags;            /* XD_CODEGEN_FLAG_* */
  uint64_t max_groups;       /* the most work-groups of one launch along dim 0 (0: no limit) */
} xd_codegen_target;

enum {
  XD_CODEGEN_FLAG_F64 = 1,        /* double arithmetic compiles and runs */
  XD_CODEGEN_FLAG_FAST_F16 = 2    /* f16 conversions are native instructions (else the prelude's ports) */
};

typedef void *xd_program;         /* plugin-defined */
typedef void *xd_codegen_kernel;  /* plugin-defined; lives as long as its program */

/* One argument of a generated kernel, in the order of its parameters. A BUFFER is the `handle` of
 * an xd_view (a cl_mem, a USM or host pointer); offsets travel as VALUE arguments. */
enum { XD_CODEGEN_ARG_BUFFER = 0, XD_CODEGEN_ARG_VALUE = 1 };
typedef struct xd_codegen_arg {
  int32_t kind;
  uint32_t size;      /* VALUE: bytes at `value` */
  const void *value;  /* VALUE: the bytes; BUFFER: the handle itself */
} xd_codegen_arg;

/* The extent of a launch. OpenCL C: an NDRange of `global` work-items in groups of `local` over
 * `dims` dims. C++: `global[0]` units (elements or rows, as the kernel's docs/compiler.md contract
 * says), which the plugin may split over threads into [begin, end) ranges of at least `local[0]`. */
typedef struct xd_codegen_grid {
  uint32_t dims;
  uint64_t global[3];
  uint64_t local[3];
} xd_codegen_grid;

typedef struct xd_codegen_api {
  size_t struct_size;
  uint32_t languages; /* XD_CODEGEN_* this backend builds */
  /* What the emitter must know of `device` in `language`. XD_ERR_UNAVAILABLE (with a message, e.g.
   * "no C++ compiler on PATH") when the language cannot be built here: the core runs eagerly. */
  xd_status (*target)(void *ctx, int32_t device, int32_t language, xd_codegen_target *out);
  /* Builds `source` (NUL-terminated, prelude included) for `device`. The plugin caches what it
   * builds (in XD_CACHE_DIR, keyed by the source, the device and the compiler), so a build already
   * made costs no compiler invocation, in this process or a later one. A source that does not
   * build: XD_ERR_INVALID_ARGUMENT with the compiler's log and the path of the source it wrote. */
  xd_status (*program_build)(void *ctx, int32_t device, int32_t language, const char *source, xd_program *out);
  /* The kernel `name` of a built program. */
  xd_status (*kernel_get)(void *ctx, int32_t device, xd_program program, const char *name, xd_codegen_kernel *out);
  /* Enqueues a kernel on `stream` with `num_args` arguments. Thread-safe: two launches of one
   * kernel from two threads must not mix their arguments. */
  xd_status (*kernel_launch)(void *ctx, int32_t device, xd_stream stream, xd_codegen_kernel kernel,
                             const xd_codegen_arg *args, int32_t num_args, const xd_codegen_grid *grid);
} xd_codegen_api;

/* Filled by the plugin in xd_plugin_init. The host zero-fills it and sets struct_size to its
 * own size; the plugin writes only fields that fit in that size and sets struct_size to the
 * size it filled. Every `device` argument is in [0, device_count). Functions taking a stream
 * enqueue work in order on it. */
typedef struct xd_plugin_api {
  size_t struct_size;
  void *ctx; /* plugin-owned, passed back to every function */

  int32_t (*device_count)(void *ctx);
  xd_status (*device_properties)(void *ctx, int32_t device, xd_device_properties *out);

  /* Raw device memory. alloc returns XD_ERR_OUT_OF_MEMORY (with a message) when it cannot. */
  xd_status (*mem_alloc)(void *ctx, int32_t device, uint64_t nbytes, void **handle);
  xd_status (*mem_free)(void *ctx, int32_t device, void *handle);
  /* Pinned host memory for transfers; both NULL when unsupported. The core caches it per device
   * (Tensor::pin_memory) and calls host_free only once no copy still uses the memory. */
  xd_status (*host_alloc)(void *ctx, int32_t device, uint64_t nbytes, void **ptr);
  xd_status (*host_free)(void *ctx, int32_t device, void *ptr);

  /* Copies. `blocking` non-zero: return after the copy completed. The host passes 0 only when
   * the host side lies in memory this plugin's host_alloc returned for `device`, and keeps that
   * memory allocated until `stream` has passed the copy; the plugin may still complete the copy
   * before returning. */
  xd_status (*copy_h2d)(void *ctx, int32_t device, xd_stream stream, void *dst, uint64_t dst_offset,
                        const void *src, uint64_t nbytes, int32_t blocking);
  xd_status (*copy_d2h)(void *ctx, int32_t device, xd_stream stream, void *dst, const void *src,
                        uint64_t src_offset, uint64_t nbytes, int32_t blocking);
  xd_status (*copy_d2d)(void *ctx, int32_t device, xd_stream stream, void *dst, uint64_t dst_offset,
                        const void *src, uint64_t src_offset, uint64_t nbytes);

  /* In-order streams. */
  xd_status (*stream_create)(void *ctx, int32_t device, xd_stream *out);
  xd_status (*stream_destroy)(void *ctx, int32_t device, xd_stream stream);
  xd_status (*stream_synchronize)(void *ctx, int32_t device, xd_stream stream);
  /* XD_OK when all work is done, XD_NOT_READY when some is pending. */
  xd_status (*stream_query)(void *ctx, int32_t device, xd_stream stream);

  /* Events. */
  xd_status (*event_create)(void *ctx, int32_t device, xd_event *out);
  xd_status (*event_destroy)(void *ctx, int32_t device, xd_event event);
  xd_status (*event_record)(void *ctx, int32_t device, xd_event event, xd_stream stream);
  /* Later work on `stream` waits for `event` (which may belong to another stream of the device). */
  xd_status (*stream_wait_event)(void *ctx, int32_t device, xd_stream stream, xd_event event);
  xd_status (*event_query)(void *ctx, int32_t device, xd_event event);
  xd_status (*event_synchronize)(void *ctx, int32_t device, xd_event event);
  /* Milliseconds between two recorded, completed events. */
  xd_status (*event_elapsed_ms)(void *ctx, int32_t device, xd_event start, xd_event end, double *ms);

  /* XD_CODEGEN_* languages this backend accepts; 0 = none (ABI 1.0–1.2: always 0). */
  uint32_t codegen_languages;
  /* ABI 1.3: the table behind codegen_languages (NULL when it is 0); lives as long as the plugin. */
  const xd_codegen_api *codegen;
} xd_plugin_api;

typedef xd_status (*xd_plugin_query_fn)(xd_plugin_info *info);
typedef xd_status (*xd_plugin_init_fn)(const xd_host_api *host, xd_plugin_api *api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XD_PLUGIN_ABI_H */
