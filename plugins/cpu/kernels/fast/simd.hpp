// Vector row primitives of the CPU backend's fast kernels, compiled by Highway for several
// instruction sets (SSE4, AVX2, AVX-512) and chosen once at run time for the CPU the process
// runs on (simd.cpp). Every function works on contiguous f32 rows; narrow dtypes are promoted
// into an f32 row first and demoted once at the end (promote_*/demote_*), so each op's arithmetic
// exists once.
//
// Accuracy: sums accumulate in double, as the reference loops do; elementwise math runs in f32
// (exp through Highway's vectorised Exp, max error 1 ulp). Results can differ from the reference
// in the last bits, never in NaN/Inf positions; xd-conform checks both against each other.
// Thread safety: every function is pure on its arguments.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xd::cpu::simd {

// The instruction set the dispatch chose, e.g. "AVX2" (xd-info shows it beside the kernels).
const char* target_name();

// ---- reductions over x[0, n)
double sum(const float* x, int64_t n);                          // in double
double sum_max_abs(const float* x, int64_t n, float* largest);  // sum in double; *largest = max |x| (NaN ignored)
double sum_squares(const float* x, int64_t n);                  // sum of float(x*x), in double
float max(const float* x, int64_t n);                           // NaN if any element is NaN; -Inf for n == 0
float min(const float* x, int64_t n);                           // NaN if any element is NaN; +Inf for n == 0

// ---- softmax rows (max is the row's finite maximum)
// e[i] = exp(x[i] - max); returns the sum of e in double.
double exp_shifted(const float* x, float max, float* e, int64_t n);
// The functions that write a row y take `stream`: non-temporal stores (y written straight to
// memory, for outputs larger than the caches; the writer calls stream_fence() before publishing).
// y[i] = x[i] * s (x may be y).
void scale(const float* x, float s, float* y, int64_t n, bool stream = false);
// y[i] = (x[i] - a) - b.
void subtract2(const float* x, float a, float b, float* y, int64_t n, bool stream = false);

// ---- rms_norm rows
// y[i] = (x[i] * r) * w[i], or x[i] * r without a weight (w == nullptr).
void scale_weighted(const float* x, float r, const float* w, float* y, int64_t n, bool stream = false);
// Sum over i of double(g[i]*w[i]) * double(x[i]*r) (w == nullptr: g[i]), in double.
double dot_gw_xh(const float* g, const float* w, const float* x, float r, int64_t n);
// dx[i] = r * (g[i]*w[i] - (x[i]*r) * mean).
void rms_dx(const float* g, const float* w, const float* x, float r, float mean, float* dx, int64_t n,
            bool stream = false);
// part[i] += double(g[i]) * double(x[i]*r).
void accumulate_g_xh(const float* g, const float* x, float r, double* part, int64_t n);

// ---- pointwise over contiguous runs; b_step 0 broadcasts b[0]
void add(const float* a, const float* b, int64_t b_step, float alpha, float* y, int64_t n,
         bool stream = false);  // a + alpha*b
void mul(const float* a, const float* b, int64_t b_step, float* y, int64_t n, bool stream = false);

// ---- conversions (bit patterns of f16/bf16 as uint16_t), rounding to nearest even as
// include/xd/numeric.hpp does, NaN kept NaN
void promote_bf16(const uint16_t* x, float* y, int64_t n);
void promote_f16(const uint16_t* x, float* y, int64_t n);
void demote_bf16(const float* x, uint16_t* y, int64_t n);
void demote_f16(const float* x, uint16_t* y, int64_t n);

// ---- memory
// memcpy through non-temporal stores, for outputs larger than the caches: the destination is
// never read into the cache first. A thread calls stream_fence() once after its last
// stream_copy, before its results are published (the end of its parallel range).
void stream_copy(void* dst, const void* src, size_t bytes);
void stream_fence();

}  // namespace xd::cpu::simd
