// MM, ADDMM, BMM, BADDBMM through oneDNN's matmul primitive (oneDNN 2.6 C++ API), listed before
// the plain loops (kernel_list.cpp). Registered for f32, and bf16 (f32 accumulation) where this
// CPU has a bf16 matmul. check() accepts non-empty problems whose operands are plain row- or
// column-major matrices (any leading dimension) with non-zero batch strides, and only when oneDNN
// builds a primitive for the problem; anything else it declines with the reason, and the
// dispatcher runs the plain loop kernel instead: which kernel ran is then visible in
// xd::kernels()' call counts (the tests check that oneDNN ran where it must), never hidden inside
// this kernel. The primitive is built in check() and the last problem's is kept per thread, so
// the call after check() and repeated calls of one shape build it once. A failure after check()
// accepted is reported as the kernel's error.
//
// The tests disable these kernels by name ("cpu.mm.dnnl", "cpu.addmm.dnnl", "cpu.bmm.dnnl",
// "cpu.baddbmm.dnnl") and compare them with the loops.
//
// INT_MM goes through the same primitive with s8 operands and an s32 destination
// ("cpu.int_mm.dnnl"), for the same plain layouts; its reference loop is int_mm.cpp.
//
// f16 and bf16 calls these do not take (all f16; bf16 where this CPU has no bf16 matmul or an
// operand is not plain) go through oneDNN's f32 matmul on converted operands
// (matmul_dnnl_convert.cpp, "cpu.*.dnnl_f32"), listed after these; the primitive cache and the
// calls into oneDNN are shared through matmul_dnnl.hpp.
#include "kernels/matmul_dnnl.hpp"
#include "kernels/quant_mm.hpp"

#ifdef XD_CPU_HAVE_DNNL

#include <vector>

namespace xd::cpu {
namespace {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

}  // namespace

bool dnnl_engine_available() {
  static const bool ok = [] {
    try {
      (void)engine();
      return true;
    } catch (const dnnl::error& e) {
      plugin::log(XD_LOG_WARN, std::string("oneDNN CPU engine unavailable, matmul uses the plain loops: ") + e.what());
      return false;
    }
  }();
  return ok;
}

namespace {

// Whether a [rows, cols] matrix with strides (sr, sc) is a plain row-major (sc == 1, sr >= cols)
// or column-major (sr == 1, sc >= rows) matrix. The stride of a size-1 dim is meaningless, so
// it is first replaced by one that makes the layout plain when one exists.
bool plain(int64_t rows, int64_t cols, int64_t& sr, int64_t& sc) {
  if (rows == 1) sr = sc == 1 ? cols : 1;
  if (cols == 1) sc = 1;
  return (sc == 1 && sr >= cols) || (sr == 1 && sc >= rows);
}

// The problem as oneDNN sees it (dnnl_shapes, matmul_dnnl.hpp); the describing functions return
// nullptr, or why oneDNN is not asked (the reason check() declines with).

constexpr const char* kEmpty = "an empty problem (the loops write nothing or beta * input)";
constexpr const char* kNotPlain = "an operand that is neither a row- nor a column-major matrix";

const char* describe_for_dnnl(const gemm_problem& p, bool batched, dnnl_shapes& s) {
  if (p.batch <= 0 || p.m <= 0 || p.n <= 0 || p.k <= 0) return kEmpty;
  int64_t a_m = p.a_m, a_k = p.a_k, b_k = p.b_k, b_n = p.b_n;
  if (!plain(p.m, p.k, a_m, a_k) || !plain(p.k, p.n, b_k, b_n)) return kNotPlain;
  if (batched) {
    int64_t a_b = p.a_b, b_b = p.b_b;
    if (p.batch == 1) {
      a_b = p.m * p.k;
      b_b = p.k * p.n;
    }
    if (a_b <= 0 || b_b <= 0) return "a batch broadcast by stride 0 (the loops take it)";
    s.a_dims = {p.batch, p.m, p.k}, s.a_strides = {a_b, a_m, a_k};
    s.b_dims = {p.batch, p.k, p.n}, s.b_strides = {b_b, b_k, b_n};
    s.dst_dims = {p.batch, p.m, p.n}, s.dst_strides = {p.m * p.n, p.n, 1};
  } else {
    s.a_dims = {p.m, p.k}, s.a_strides = {a_m, a_k};
    s.b_dims = {p.k, p.n}, s.b_strides = {b_k, b_n};
    s.dst_dims = {p.m, p.n}, s.dst_strides = {p.n, 1};
  }
  return nullptr;
}

bool is_batched(int32_t op) { return op == XD_OP_BMM || op == XD_OP_BADDBMM; }

}  // namespace

// The primitive cache (matmul_dnnl.hpp): one entry per thread.
const dnnl::matmul* primitive_for(const dnnl_key& k) {
  struct entry {
    bool valid = false, ok = false;
    dnnl_key key;
    dnnl::matmul prim;
  };
  thread_local entry last;
  if (last.valid && last.key == k) return last.ok ? &last.prim : nullptr;
  last.valid = false;
  try {
    dnnl::primitive_attr attr;
    if (k.alpha != 1) attr.set_output_scales(0, {k.alpha});
    if (k.sum) {
      dnnl::post_ops ops;
      ops.append_sum(k.beta);
      attr.set_post_ops(ops);
    }
    const dnnl::memory::desc a_md(k.s.a_dims, k.src, k.s.a_strides);
    const dnnl::memory::desc b_md(k.s.b_dims, k.src, k.s.b_strides);
    const dnnl::memory::desc dst_md(k.s.dst_dims, k.dst, k.s.dst_strides);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, dst_md), attr, engine());
    last.prim = dnnl::matmul(pd);
    last.ok = true;
  } catch (const dnnl::error&) {
    last.ok = false;
  }
  last.key = k;
  last.valid = true;
  return last.ok ? &last.prim : nullptr;
}

// oneDNN takes non-const handles for every argument; it only reads a and b.
void execute(const dnnl::matmul& prim, const dnnl_key& k, const void* a, const void* b, void* dst) {
  dnnl::memory a_mem({k.s.a_dims, k.src, k.s.a_strides}, engine(), const_cast<void*>(a));
  dnnl::memory b_mem({k.s.b_dims, k.src, k.s.b_strides}, engine(), const_cast<void*>(b));
  dnnl::memory dst_mem({k.s.dst_dims, k.dst, k.s.dst_strides}, engine(), dst);
  dnnl::stream stream(engine());
  prim.execute(stream, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, dst_mem}});
  stream.wait();
}

void declined_after_check(const char* op) {
  plugin::fail(XD_ERR_INTERNAL, std::string("oneDNN has no primitive for this ") + op +
                                    " problem, which the kernel's check() declines");
}

namespace {

// The call as oneDNN is asked for it, or why it is not (a problem check() never accepts). The
// destination is always f32 (see run_dnnl).
const char* gemm_key(const gemm_problem& p, bool batched, dt src, dnnl_key& k) {
  if (const char* why = describe_for_dnnl(p, batched, k.s)) return why;
  k.src = src;
  k.dst = dt::f32;
  k.alpha = static_cast<float>(p.alpha);
  k.sum = p.input != nullptr;
  k.beta = k.sum ? static_cast<float>(p.beta) : 0.0f;
  return nullptr;
}

dt src_type(int32_t dtype) { return dtype == XD_DTYPE_BF16 ? dt::bf16 : dt::f32; }

// Declines with the reason oneDNN is not used; a malformed call is declined too, so that the loop
// kernel reports it.
int32_t dnnl_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    dnnl_key k;
    if (const char* why = gemm_key(describe_gemm(c), is_batched(c->op), src_type(output(c, 0).dtype), k))
      return plugin::decline(reason, reason_size, why);
    return primitive_for(k) != nullptr ? 1 : plugin::decline(reason, reason_size, kNoPrimitive);
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, std::string("a malformed call: ") + e.what());
  }
}

// out = alpha*(a@b) [+ beta*input] with the primitive of `k`.
// The destination is always f32: `out` itself when it is a dense f32 tensor, otherwise a
// temporary rounded into `out` afterwards, so bf16 results are rounded once, as in the loops.
// beta != 0 pre-fills the destination with the input and adds it back through a sum post-op;
// beta == 0 never reads the input.
template <class T>
void run_dnnl(const gemm_problem& p, const dnnl_key& k, const dnnl::matmul& prim) {
  const bool direct = std::is_same_v<T, float> && p.out_n == 1 && p.out_m == p.n && (p.batch == 1 || p.out_b == p.m * p.n);
  std::vector<float> temp;
  float* dst = reinterpret_cast<float*>(p.out);
  if (!direct) {
    temp.resize(static_cast<size_t>(p.batch * p.m * p.n));
    dst = temp.data();
  }
  constexpr int64_t sz = sizeof(T);
  auto for_each_out = [&](auto&& f) {  // (b, i, j, dense index) in dst order
    parallel_for(p.batch * p.m, std::max<int64_t>(1, kElementGrain / p.n), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row)
        for (int64_t j = 0; j < p.n; ++j) f(row / p.m, row % p.m, j, row * p.n + j);
    });
  };
  if (p.input != nullptr)
    for_each_out([&](int64_t b, int64_t i, int64_t j, int64_t d) {
      dst[d] = static_cast<float>(load(at<const T>(p.input, (b * p.in_b + i * p.in_m + j * p.in_n) * sz)));
    });
  execute(prim, k, p.a, p.b, dst);
  if (!direct)
    for_each_out([&](int64_t b, int64_t i, int64_t j, int64_t d) {
      at<T>(p.out, (b * p.out_b + i * p.out_m + j * p.out_n) * sz) = cast<T>(dst[d]);
    });
}

// The dispatcher calls check() first, which declines what oneDNN has no primitive for; a call
// that reaches run() without one is an error (declined_after_check).
struct gemm_dnnl_kernel {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      const gemm_problem p = describe_gemm(c);
      dnnl_key k;
      const dnnl::matmul* prim =
          gemm_key(p, is_batched(c->op), std::is_same_v<T, float> ? dt::f32 : dt::bf16, k) == nullptr ? primitive_for(k)
                                                                                                : nullptr;
      if (prim == nullptr) declined_after_check("matmul");
      run_dnnl<T>(p, k, *prim);
    });
  }
};

// ---------------------------------------------------------------- int_mm: s8 x s8 -> s32

// The int_mm problem in oneDNN's terms, or why it is not asked (empty, an operand not plain).
const char* int_mm_key(const int_mm_problem& p, dnnl_key& k) {
  if (p.m <= 0 || p.n <= 0 || p.k <= 0) return kEmpty;
  int64_t a_m = p.a_m, a_k = p.a_k, b_k = p.b_k, b_n = p.b_n;
  if (!plain(p.m, p.k, a_m, a_k) || !plain(p.k, p.n, b_k, b_n)) return kNotPlain;
  k.s.a_dims = {p.m, p.k}, k.s.a_strides = {a_m, a_k};
  k.s.b_dims = {p.k, p.n}, k.s.b_strides = {b_k, b_n};
  k.s.dst_dims = {p.m, p.n}, k.s.dst_strides = {p.n, 1};
  k.src = dt::s8;
  k.dst = dt::s32;
  return nullptr;
}

int32_t int_mm_dnnl_check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    dnnl_key k;
    if (const char* why = int_mm_key(describe_int_mm(c), k)) return plugin::decline(reason, reason_size, why);
    return primitive_for(k) != nullptr ? 1 : plugin::decline(reason, reason_size, kNoPrimitive);
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, std::string("a malformed call: ") + e.what());
  }
}

// The destination is `out` itself when it is dense row-major, else a temporary copied into it.
void run_int_mm(const int_mm_problem& p, const dnnl_key& k, const dnnl::matmul& prim) {
  const bool direct = p.out_n == 1 && p.out_m == p.n;
  std::vector<int32_t> temp;
  int32_t* dst = p.out;
  if (!direct) {
    temp.resize(static_cast<size_t>(p.m * p.n));
    dst = temp.data();
  }
  execute(prim, k, p.a, p.b, dst);
  if (!direct)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) p.out[i * p.out_m + j * p.out_n] = dst[i * p.n + j];
}

xd_status run_int_mm_dnnl(const xd_kernel_call* c) {
  return kernel_guard(c, [&] {
    const int_mm_problem p = describe_int_mm(c);
    dnnl_key k;
    const dnnl::matmul* prim = int_mm_key(p, k) == nullptr ? primitive_for(k) : nullptr;
    if (prim == nullptr) declined_after_check("int_mm");
    run_int_mm(p, k, *prim);
  });
}

// Whether oneDNN has a bf16 matmul on this CPU (it needs AVX-512 or AMX in 2.6).
bool bf16_available() {
  try {
    using dt = dnnl::memory::data_type;
    const dnnl::memory::desc a({2, 2}, dt::bf16, dnnl::memory::dims{2, 1});
    const dnnl::memory::desc d({2, 2}, dt::f32, dnnl::memory::dims{2, 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, a, d), engine());
    return true;
  } catch (const dnnl::error&) {
    return false;
  }
}

// Whether oneDNN's s8 x s8 -> s32 matmul is exact here. Without VNNI (AVX-512 VNNI or AVX-VNNI)
// oneDNN 2.6 multiplies through vpmaddubsw, whose pairwise sums saturate at 16 bits: on an AVX2
// CPU int_mm of large-magnitude operands comes back wrong (seen on an AMD EPYC: golden int_mm
// off by thousands), so the exact loop must run instead.
bool int8_exact() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  return (isa & static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni & ~dnnl_cpu_isa_avx512_core)) != 0 ||
         (isa & static_cast<unsigned>(dnnl_cpu_isa_avx2_vnni & ~dnnl_cpu_isa_avx2)) != 0;
}

// Registered where oneDNN runs: its CPU engine opens (else every matmul takes the loops, with a
// warning), for bf16 where this CPU has a bf16 matmul, and for i8 (int_mm) where its int8 matmul
// is exact (int8_exact). Each is said once, in the log.
bool dnnl_available(xd_dtype d) {
  if (!dnnl_engine_available()) return false;
  if (d == XD_DTYPE_I8) {
    static const bool exact = [] {
      const bool ok = int8_exact();
      if (!ok)
        plugin::log(XD_LOG_INFO,
                    "oneDNN's int8 matmul saturates on this CPU (no VNNI): int_mm uses the exact plain loop");
      return ok;
    }();
    return exact;
  }
  if (d != XD_DTYPE_BF16) return true;
  static const bool bf16 = [] {
    const bool ok = bf16_available();
    if (!ok) plugin::log(XD_LOG_INFO, "oneDNN has no bf16 matmul on this CPU: bf16 matmul uses the plain loops");
    return ok;
  }();
  return bf16;
}

constexpr DtypeSet kDnnlFloat = {XD_DTYPE_F32, XD_DTYPE_BF16};

template <xd_op Op>
constexpr plugin::kernel_def dnnl_gemm(const char* name) {
  plugin::kernel_def d = typed_kernel<gemm_dnnl_kernel, kDnnlFloat>(Op, name, dnnl_check);
  d.available = dnnl_available;
  return d;
}

}  // namespace

// Entries of the registration list (kernel_list.cpp), each before the loop kernel of its op.
extern const plugin::kernel_def def_mm_dnnl = dnnl_gemm<XD_OP_MM>("mm.dnnl");
extern const plugin::kernel_def def_addmm_dnnl = dnnl_gemm<XD_OP_ADDMM>("addmm.dnnl");
extern const plugin::kernel_def def_bmm_dnnl = dnnl_gemm<XD_OP_BMM>("bmm.dnnl");
extern const plugin::kernel_def def_baddbmm_dnnl = dnnl_gemm<XD_OP_BADDBMM>("baddbmm.dnnl");
extern const plugin::kernel_def def_int_mm_dnnl{
    XD_OP_INT_MM, "int_mm.dnnl", {XD_DTYPE_I8}, run_int_mm_dnnl, nullptr, int_mm_dnnl_check, nullptr, dnnl_available};

}  // namespace xd::cpu

#else  // !XD_CPU_HAVE_DNNL

// Built without oneDNN: kernel_list.cpp lists no oneDNN kernel, and the loops serve alone.

#endif
