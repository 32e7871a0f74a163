// MM, ADDMM, BMM, BADDBMM in f16 and bf16 through oneDNN's f32 matmul: "cpu.mm.dnnl_f32",
// "cpu.addmm.dnnl_f32", "cpu.bmm.dnnl_f32", "cpu.baddbmm.dnnl_f32". oneDNN 2.6 has no f16 matmul
// on x86 and a bf16 one only with AVX-512, so without these a large f16 (or, on AVX2 CPUs, bf16)
// matmul would run the plain loop. Listed after the native oneDNN kernels and before the loops
// (kernel_list.cpp): where oneDNN has a bf16 matmul, "cpu.*.dnnl" takes the plain layouts first
// and this kernel the rest.
//
// The operands are converted to dense f32 (exactly: every f16/bf16 value is an f32), oneDNN's f32
// GEMM accumulates in f32, and each output is then alpha*acc [+ beta*input] in f32, rounded once
// to the output dtype: the loops' semantics (matmul_loop.cpp), the same expression in the same
// order, only the order of the f32 additions is oneDNN's. beta == 0 never reads the input.
//
// Operands of any strides are taken (a transposed operand is converted into a column-major
// buffer, so both the reads and oneDNN's operand stay dense), batch strides of 0 too. Temporary
// f32 memory is bounded (kTempFloats): a problem larger than that is run in blocks of whole
// batches, or for one huge batch in blocks of rows of `a` and columns of `b`, equal-sized so that
// the per-thread primitive cache (matmul_dnnl.cpp) serves every block but a smaller last one.
// check() declines empty problems (M, N, K or the batch 0: the loops write zeros or
// beta * input), a K so large that one row and one column exceed the bound, and problems oneDNN
// builds no primitive for; the loops then run them, visibly (xd::kernels() call counts).
//
// The conversions are branch-free re-statements of include/xd/numeric.hpp's (bit-exact, round
// to nearest even, overflow to Inf, NaN kept NaN) so that the loops vectorise; no F16C needed.
#include "kernels/matmul_dnnl.hpp"

#ifdef XD_CPU_HAVE_DNNL

#include <bit>
#include <cstdlib>
#include <memory>

#ifdef _OPENMP
#define XD_CPU_SIMD _Pragma("omp simd")
#else
#define XD_CPU_SIMD
#endif

namespace xd::cpu {
namespace {

// ---------------------------------------------------------------- conversions

inline float widen(::xd::half h) {
  const uint32_t x = h.bits;
  const uint32_t sign = (x & 0x8000u) << 16;
  const uint32_t em = x & 0x7fffu;
  const uint32_t normal = (em + (112u << 10)) << 13;                          // rebias 15 -> 127
  const uint32_t special = 0x7f800000u | ((x & 0x3ffu) << 13);                // Inf, NaN with its payload
  const float sub = static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f;  // subnormal: mant * 2^-24
  const uint32_t mag = em >= 0x7c00u ? special : (em < 0x0400u ? std::bit_cast<uint32_t>(sub) : normal);
  return std::bit_cast<float>(sign | mag);
}

inline float widen(::xd::bfloat16 b) { return std::bit_cast<float>(static_cast<uint32_t>(b.bits) << 16); }

template <class T>
inline T narrow(float f);

// Normal results round the 13 dropped bits to nearest even (a carry into the exponent is the
// right answer, up to Inf); results below 2^-14 are rounded by the FPU when added to 0.5, whose
// ulp is f16's subnormal step 2^-24.
template <>
inline ::xd::half narrow<::xd::half>(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  const uint32_t normal = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
  const uint32_t sub = std::bit_cast<uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  const uint32_t special = a > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN, Inf (and overflow)
  const uint32_t mag = a >= 0x47800000u ? special : (a < 0x38800000u ? sub : normal);
  return ::xd::half::from_bits(static_cast<uint16_t>(sign | mag));
}

template <>
inline ::xd::bfloat16 narrow<::xd::bfloat16>(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t nan = (u >> 16) | 0x40u;  // quiet NaN, payload kept
  return ::xd::bfloat16::from_bits(static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded));
}

// ---------------------------------------------------------------- operands to dense f32

// Whether a [rows, cols] block with element strides (sr, sc) is converted into a column-major
// buffer: when its rows are closer together than its columns (a transposed operand), so that the
// reads run along memory. A block with a dim of 1 is both layouts; it is called row-major.
bool col_major(int64_t rows, int64_t cols, int64_t sr, int64_t sc) {
  return rows > 1 && cols > 1 && std::llabs(sr) < std::llabs(sc);
}

// Dims and strides of nb dense [rows, cols] f32 matrices, row- or column-major.
void dense(int64_t nb, int64_t rows, int64_t cols, bool col, dnnl::memory::dims& dims, dnnl::memory::dims& strides) {
  dims = {nb, rows, cols};
  strides = col ? dnnl::memory::dims{rows * cols, 1, rows} : dnnl::memory::dims{rows * cols, cols, 1};
}

// nb [rows, cols] matrices of T at src (element strides sb, sr, sc) into dense f32 at dst, laid
// out as col_major() says.
template <class T>
void to_f32(const T* src, int64_t nb, int64_t rows, int64_t cols, int64_t sb, int64_t sr, int64_t sc, float* dst) {
  if (col_major(rows, cols, sr, sc)) {  // convert the transpose, row-major
    std::swap(rows, cols);
    std::swap(sr, sc);
  }
  parallel_for(nb * rows, std::max<int64_t>(1, kElementGrain / cols), [&](int64_t begin, int64_t end) {
    for (int64_t idx = begin; idx < end; ++idx) {
      const T* s = src + (idx / rows) * sb + (idx % rows) * sr;
      float* d = dst + idx * cols;
      if (sc == 1) {
        XD_CPU_SIMD
        for (int64_t c = 0; c < cols; ++c) d[c] = widen(s[c]);
      } else {
        for (int64_t c = 0; c < cols; ++c) d[c] = widen(s[c * sc]);
      }
    }
  });
}

// ---------------------------------------------------------------- blocks

// At most this many f32 temporaries (64 MiB) per call: a, b and the destination of one block.
constexpr int64_t kTempFloats = int64_t{1} << 24;

// The size of equal chunks of at most `most` (at least 1) that cover `total`.
int64_t even_chunk(int64_t total, int64_t most) {
  most = std::clamp<int64_t>(most, 1, std::max<int64_t>(total, 1));
  const int64_t chunks = (total + most - 1) / most;
  return (total + chunks - 1) / chunks;
}

struct blocking {
  int64_t nb = 1, mb = 1, nn = 1;  // batches, rows of a, columns of b per block
  int64_t a_floats(int64_t k) const { return nb * mb * k; }
  int64_t b_floats(int64_t k) const { return nb * k * nn; }
  int64_t floats(int64_t k) const { return a_floats(k) + b_floats(k) + nb * mb * nn; }
};

// Whole problem when it fits; else whole batches; else one batch in blocks of columns (only
// when b alone would take half the bound) and rows.
blocking plan(const gemm_problem& p) {
  const int64_t per_batch = p.m * p.k + p.k * p.n + p.m * p.n;
  if (per_batch <= kTempFloats) return {even_chunk(p.batch, kTempFloats / per_batch), p.m, p.n};
  const int64_t nn = p.k * p.n <= kTempFloats / 2 ? p.n : even_chunk(p.n, kTempFloats / 2 / p.k);
  const int64_t mb = even_chunk(p.m, (kTempFloats - p.k * nn) / (p.k + nn));
  return {1, mb, nn};
}

// The f32 problem of one block of nb x mb x nn, its operands laid out as to_f32 converts them.
dnnl_key block_key(const gemm_problem& p, int64_t nb, int64_t mb, int64_t nn) {
  dnnl_key key;
  dense(nb, mb, p.k, col_major(mb, p.k, p.a_m, p.a_k), key.s.a_dims, key.s.a_strides);
  dense(nb, p.k, nn, col_major(p.k, nn, p.b_k, p.b_n), key.s.b_dims, key.s.b_strides);
  dense(nb, mb, nn, false, key.s.dst_dims, key.s.dst_strides);
  key.src = dt::f32;
  key.dst = dt::f32;
  return key;  // alpha and beta are applied when rounding (store_rows), as the loops do
}

// Why the kernel does not take p, or nullptr; `key` is then its first block's problem.
const char* convert_key(const gemm_problem& p, blocking& bl, dnnl_key& key) {
  if (p.batch <= 0 || p.m <= 0 || p.n <= 0 || p.k <= 0)
    return "an empty problem (the loops write nothing, zeros or beta * input)";
  bl = plan(p);
  if (bl.floats(p.k) > kTempFloats) return "K too large for one row and one column in the bounded f32 buffers";
  key = block_key(p, bl.nb, bl.mb, bl.nn);
  return nullptr;
}

// out[b0 + bi, m0 + i, n0 + j] = round(alpha * acc[bi, i, j] [+ beta * input[...]]), the loops'
// expression: products in f32, the sum in f32, one rounding.
template <class T>
void store_rows(const gemm_problem& p, int64_t b0, int64_t nb, int64_t m0, int64_t mb, int64_t n0, int64_t nn,
                const float* acc) {
  constexpr int64_t sz = sizeof(T);
  const float alpha = static_cast<float>(p.alpha), beta = static_cast<float>(p.beta);
  parallel_for(nb * mb, std::max<int64_t>(1, kElementGrain / nn), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = b0 + row / mb, i = m0 + row % mb;
      const float* s = acc + row * nn;
      T* o = &at<T>(p.out, (b * p.out_b + i * p.out_m + n0 * p.out_n) * sz);
      const int64_t on = p.out_n;
      if (p.input == nullptr) {
        if (on == 1) {
          XD_CPU_SIMD
          for (int64_t j = 0; j < nn; ++j) o[j] = narrow<T>(alpha * s[j]);
        } else {
          for (int64_t j = 0; j < nn; ++j) o[j * on] = narrow<T>(alpha * s[j]);
        }
        continue;
      }
      const T* in = &at<const T>(p.input, (b * p.in_b + i * p.in_m + n0 * p.in_n) * sz);
      const int64_t inn = p.in_n;
      if (on == 1 && inn == 1) {
        XD_CPU_SIMD
        for (int64_t j = 0; j < nn; ++j) o[j] = narrow<T>(alpha * s[j] + beta * widen(in[j]));
      } else if (on == 1 && inn == 0) {  // a bias column, or a scalar
        const float bias = beta * widen(in[0]);
        XD_CPU_SIMD
        for (int64_t j = 0; j < nn; ++j) o[j] = narrow<T>(alpha * s[j] + bias);
      } else {
        for (int64_t j = 0; j < nn; ++j) o[j * on] = narrow<T>(alpha * s[j] + beta * widen(in[j * inn]));
      }
    }
  });
}

template <class T>
void run_convert(const gemm_problem& p) {
  blocking bl;
  dnnl_key key;
  if (convert_key(p, bl, key) != nullptr) declined_after_check("f32-converted matmul");
  const auto buffer = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(bl.floats(p.k)));
  float* const abuf = buffer.get();
  float* const bbuf = abuf + bl.a_floats(p.k);
  float* const cbuf = bbuf + bl.b_floats(p.k);
  const T* const a = reinterpret_cast<const T*>(p.a);
  const T* const b = reinterpret_cast<const T*>(p.b);
  for (int64_t b0 = 0; b0 < p.batch; b0 += bl.nb) {
    const int64_t nb = std::min(bl.nb, p.batch - b0);
    int64_t a_rows_done = -1;  // the m0 whose block of a abuf holds, for this b0
    for (int64_t n0 = 0; n0 < p.n; n0 += bl.nn) {
      const int64_t nn = std::min(bl.nn, p.n - n0);
      to_f32(b + b0 * p.b_b + n0 * p.b_n, nb, p.k, nn, p.b_b, p.b_k, p.b_n, bbuf);
      for (int64_t m0 = 0; m0 < p.m; m0 += bl.mb) {
        const int64_t mb = std::min(bl.mb, p.m - m0);
        if (a_rows_done != m0) {
          to_f32(a + b0 * p.a_b + m0 * p.a_m, nb, mb, p.k, p.a_b, p.a_m, p.a_k, abuf);
          a_rows_done = m0;
        }
        key = block_key(p, nb, mb, nn);  // the first block's again, but a smaller last one
        const dnnl::matmul* prim = primitive_for(key);
        if (prim == nullptr) declined_after_check("f32-converted matmul");
        execute(*prim, key, abuf, bbuf, cbuf);
        store_rows<T>(p, b0, nb, m0, mb, n0, nn, cbuf);
      }
    }
  }
}

int32_t convert_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    blocking bl;
    dnnl_key key;
    if (const char* why = convert_key(describe_gemm(c), bl, key)) return plugin::decline(reason, reason_size, why);
    return primitive_for(key) != nullptr ? 1 : plugin::decline(reason, reason_size, kNoPrimitive);
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, std::string("a malformed call: ") + e.what());
  }
}

struct gemm_convert_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] { run_convert<T>(describe_gemm(c)); });
  }
};

bool convert_available(xd_dtype) { return dnnl_engine_available(); }

constexpr DtypeSet kHalfFloats = {XD_DTYPE_F16, XD_DTYPE_BF16};

template <xd_op Op>
constexpr plugin::kernel_def convert_gemm(const char* name) {
  plugin::kernel_def d = typed_kernel<gemm_convert_kernel, kHalfFloats>(Op, name, convert_check);
  d.available = convert_available;
  return d;
}

}  // namespace

// Entries of the registration list (kernel_list.cpp), after the native oneDNN kernels of their op.
extern const plugin::kernel_def def_mm_dnnl_f32 = convert_gemm<XD_OP_MM>("mm.dnnl_f32");
extern const plugin::kernel_def def_addmm_dnnl_f32 = convert_gemm<XD_OP_ADDMM>("addmm.dnnl_f32");
extern const plugin::kernel_def def_bmm_dnnl_f32 = convert_gemm<XD_OP_BMM>("bmm.dnnl_f32");
extern const plugin::kernel_def def_baddbmm_dnnl_f32 = convert_gemm<XD_OP_BADDBMM>("baddbmm.dnnl_f32");

}  // namespace xd::cpu

#endif  // XD_CPU_HAVE_DNNL
