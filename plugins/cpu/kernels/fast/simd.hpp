// Vector row primitives of the CPU backend's fast kernels, compiled by Highway for several
// instruction sets (SSE4, AVX2, AVX-512) and chosen once at run time for the CPU the process
// runs on (simd.cpp). The arithmetic is in f32. The primitives that touch memory rows take the
// rows' element type (`elem`: f32, bf16 or f16 bits) and convert on the way in and out, rounding
// each result once to nearest even, so a narrow row costs one pass as an f32 row does; the
// softmax primitives work on f32 rows in L1 (softmax promotes its row once, as it revisits it).
//
// Accuracy: sums accumulate in double, as the reference loops do (rms_norm_backward's: in f32, then
// double; see there); elementwise math runs in f32 (exp with max error 1 ulp, simd_exp-inl.h).
// Results can differ from the reference in the last bits, never in NaN/Inf positions; xd-conform
// checks both against each other.
// Thread safety: every function is pure on its arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace xd::cpu::simd {

// The element type of a row in memory.
enum class elem : int { f32, bf16, f16 };

// The instruction set the dispatch chose, e.g. "AVX2" (xd-info shows it beside the kernels).
const char* target_name();
// Caps the instruction set the dispatch may choose (XD_CPU_MAX_ISA): "best" leaves it to the CPU;
// "avx512", "avx2", "sse4" (x86) or "scalar" (Highway's portable one-lane code) rule out every
// better target. Returns false, changing nothing, for a name with no target here. Process-wide
// (libhwy's disabled targets); call before the first primitive.
bool cap_target(std::string_view isa);

// ---- reductions over x[0, n)
double sum_max_abs(const void* x, elem e, int64_t n, float* largest);  // in double; *largest = max |x| (NaN ignored)
double sum_squares(const void* x, elem e, int64_t n);                  // sum of float(x*x), in double
// The same sum by f32 fma in four vector accumulators, their lanes added in double: within
// xd-conform's tolerance of the double one; the caller redoes it in double where it is not finite.
double sum_squares_f32(const void* x, elem e, int64_t n);
float max(const void* x, elem e, int64_t n);                           // NaN if any element is NaN; -Inf for n == 0
float min(const void* x, elem e, int64_t n);                           // NaN if any element is NaN; +Inf for n == 0
// The first i with x[i] == value (-0 equal to +0), or with x[i] NaN when value is NaN; n if none.
int64_t find_first(const void* x, elem e, int64_t n, float value);

// ---- softmax rows (max is the row's finite maximum)
// e[i] = exp(x[i] - max) (nothing stored when e is null); returns the sum of those values in
// double. `next` (may be null): next_bytes the caller reads next, prefetched meanwhile.
double exp_shifted(const float* x, float max, float* e, int64_t n, const void* next = nullptr, int64_t next_bytes = 0);
// The functions that write a row y take `stream`: non-temporal stores (y written straight to
// memory, for outputs larger than the caches; the writer calls stream_fence() before publishing).
// y[i] = x[i] * s.
void scale(const float* x, float s, void* y, elem ey, int64_t n, bool stream = false);
// y[i] = (x[i] - a) - b.
void subtract2(const float* x, float a, float b, void* y, elem ey, int64_t n, bool stream = false);

// ---- rms_norm rows (x, g, y, dx of element type e; the weight w in f32)
// Rows the caller reads next (null: none), each of the same length and element type as the
// rows a primitive below reads. A primitive that writes a row asks for their cache lines while
// it stores, one line per line it writes, so the caller's next pass over them (a sum over memory)
// finds them cached: a row loop that reads, then writes, would otherwise leave the memory idle
// for reads while it writes (docs/performance.md, "Reads during the writes").
// `into_l2` asks for them into L2 only (x86's prefetcht1), for a loop whose rows in L1 leave no
// room for them (rows.hpp, kNextRowsIntoL2).
struct next_rows {
  const void* row[2] = {nullptr, nullptr};
  bool into_l2 = false;
};
// y[i] = (x[i] * r) * w[i], or x[i] * r without a weight (w == nullptr).
void scale_weighted(const void* x, elem e, float r, const float* w, void* y, int64_t n, bool stream = false,
                    next_rows next = {});
// rms_norm_backward's sums: the reference's double ones (dot_gw_xh, accumulate_g_xh into double),
// and f32 fma ones added in double only at the end of a row (the dot) or of a few rows (dw's
// partials: fold_f32), which stay within xd-conform's tolerance of the double ones and take the
// double promotions out of the per-element work; the caller redoes a sum in double where the f32
// one is not finite (an overflow the double sum need not have).
// Sum over i of double(g[i]*w[i]) * double(x[i]*r) (w == nullptr: g[i]), in double.
double dot_gw_xh(const void* g, const void* x, elem e, const float* w, float r, int64_t n);
// The same sum by f32 fma in four vector accumulators, their lanes added in double.
double dot_gw_xh_f32(const void* g, const void* x, elem e, const float* w, float r, int64_t n);
// dx[i] = r * (g[i]*w[i] - (x[i]*r) * mean).
void rms_dx(const void* g, const void* x, elem e, const float* w, float r, float mean, void* dx, int64_t n,
            bool stream = false, next_rows next = {});
// part[i] += double(g[i]) * double(x[i]*r).
void accumulate_g_xh(const void* g, const void* x, elem e, float r, double* part, int64_t n);
// acc[i] = fma(g[i], x[i]*r, acc[i]) in f32.
void accumulate_g_xh(const void* g, const void* x, elem e, float r, float* acc, int64_t n);
// rms_dx and the f32 accumulate_g_xh in one pass over g and x.
void rms_dx_accumulate(const void* g, const void* x, elem e, const float* w, float r, float mean, void* dx, float* acc,
                       int64_t n, bool stream = false, next_rows next = {});
// Where every acc[i] is finite, part[i] += double(acc[i]), and true; else part unchanged, and false.
// acc is zeroed either way.
bool fold_f32(float* acc, double* part, int64_t n);

// ---- pointwise over contiguous runs of element type e; b_step 0 broadcasts b[0]
void add(const void* a, const void* b, elem e, int64_t b_step, float alpha, void* y, int64_t n,
         bool stream = false);  // a + alpha*b
void mul(const void* a, const void* b, elem e, int64_t b_step, void* y, int64_t n, bool stream = false);
void div(const void* a, const void* b, elem e, int64_t b_step, void* y, int64_t n, bool stream = false);  // a / b
// y[i] = x[i] converted (rounded to nearest even as include/xd/numeric.hpp does, NaN kept NaN).
void convert(const void* x, elem ex, void* y, elem ey, int64_t n, bool stream = false);

// ---- elementwise math (simd_math.cpp), as kernels/unary.cpp computes it in f32
enum class unary_fn : int { exp, sigmoid, silu, tanh, gelu_tanh, gelu_erf, log, sqrt, rsqrt, relu, neg, abs };
// y[i] = f(x[i]), x and y of element type e.
void unary(unary_fn f, const void* x, elem e, void* y, int64_t n, bool stream = false);
// y[i] = pow(x[i], p) as std::pow(float, float) gives it (within 1 ulp; 0, Inf and NaN elements
// exactly), for a finite p.
void pow_scalar(const void* x, elem e, float p, void* y, int64_t n, bool stream = false);

// ---- comparisons and selection (simd_select.cpp)
enum class compare_fn : int { eq, ne, lt, le, gt, ge };
// y[i] = f(a[i], b[i]) as a bool byte (0 or 1), a and b of element type e compared in f32.
void compare(compare_fn f, const void* a, const void* b, elem e, uint8_t* y, int64_t n);
// y[i] = cond[i] != 0 ? a[i] : b[i], elements of `bytes` (1, 2, 4 or 8) moved bit for bit.
void select(const uint8_t* cond, const void* a, const void* b, int bytes, void* y, int64_t n);

// ---- memory
// memcpy through non-temporal stores, for outputs larger than the caches: the destination is
// never read into the cache first. A thread calls stream_fence() once after its last
// stream_copy, before its results are published (the end of its parallel range).
void stream_copy(void* dst, const void* src, size_t bytes);
void stream_fence();

// ---- layer_norm rows (x and y of element type e; weight and bias in f32, each may be null)
// Sum of x in double lanes.
double sum_f64(const void* x, elem e, int64_t n);
// Sum of (x[i] - mean)^2, the deviations in f32 from mean split into two floats, squared and
// summed by f32 fma in vector lanes, the lanes added in double: within xd-conform's tolerance of
// the reference's double sum; the caller redoes it in double where it is not finite.
double sum_squared_deviations(const void* x, elem e, int64_t n, double mean);
// y[i] = ((x[i] - m) * r) * w[i] + b[i], each operation rounded in f32 as the reference's.
void layer_norm_row(const void* x, elem e, float m, float r, const float* w, const float* b, void* y, int64_t n,
                    bool stream = false, next_rows next = {});

// ---- int4 weights (weight_int4_mm, docs/ops/int4.md's layout)
// out[r] = sum over k < K of x_r[k] * w[k] for each r < rows (1 to 4; more are taken as 4),
// w[k] = (q[k] - z[k/g]) * s[k/g] rounded once as the reference dequantizes it, q being one
// weight row's codes (K/2 bytes, even k in the low nibble) and x_r split into its even elements
// xe[r] and odd ones xo[r] (K/2 each). The reference's products, summed in f32 in another order.
// Group i's scale and zero point: s[i * sz_step], z[i * sz_step]. g: a multiple of 32 dividing K.
void int4_dot(const uint8_t* q, int64_t k, int64_t g, const float* s, const float* z, int64_t sz_step,
              const float* const* xe, const float* const* xo, int rows, float* out);
// w[k] = (q[k] - z[k/g]) * s[k/g] for k < K, the reference's dequantized weight row (f32).
void int4_dequantize(const uint8_t* q, int64_t k, int64_t g, const float* s, const float* z, int64_t sz_step, float* w);

// ---- attention tiles (scaled_dot_product_attention), rows: 1 to 4 (more are taken as 4)
// Keys a panel of packed K holds: key j's element e at kp[(j / kKeyPanel) * E * kKeyPanel +
// e * kKeyPanel + j % kKeyPanel], the panels zero-padded past the last key.
inline constexpr int64_t kKeyPanel = 32;
// s[r][j] = (sum over e < e_count of q[r][e] * k[j][e]) * scale for j < n, the sum in order of e
// by f32 fma, one rounding for the scale (as the reference's dot * scale). s's rows (ld_s floats)
// are written up to n rounded up to a multiple of kKeyPanel.
void attention_scores(const float* q, int64_t ld_q, int rows, const float* kp, int64_t e_count, int64_t n, float scale,
                      float* s, int64_t ld_s);
// o[r][c] = sum over j < n + r * extra of p[r][j] * v[j][c] for c < width, in order of j by f32
// fma: extra = 1 for a causal tile (each row one key more than the one before); a key past a
// row's count never reaches it, whatever p and v hold there.
void attention_values(const float* p, int64_t ld_p, int rows, const float* v, int64_t ld_v, int64_t n, int64_t extra,
                      int64_t width, float* o, int64_t ld_o);

}  // namespace xd::cpu::simd
