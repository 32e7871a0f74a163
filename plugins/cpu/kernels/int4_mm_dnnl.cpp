// WEIGHT_INT4_MM with many rows of x (prefill: M >= 16) through oneDNN's f32 matmul: the weight
// is dequantized a block of 256 of its rows at a time into f32 (simd::int4_dequantize: the
// reference's weights, each rounded once) and multiplied by x there, so the products are the
// reference's and only the order of the f32 sums is oneDNN's. Listed before weight_int4_mm.fast,
// which reads the packed weight once and is faster for a few rows (decode); with many rows the
// dequantized block is reused by every one of them at oneDNN's rate (docs/performance.md, "int4
// weights on the CPU"). Only where the plugin is built with oneDNN and the fast kernels are on.
#include "kernels/matmul_dnnl.hpp"

#ifdef XD_CPU_HAVE_DNNL

#include "kernels/fast/int4_mm.hpp"
#include "kernels/fast/rows.hpp"

#include <memory>
#include <vector>

namespace xd::cpu {
namespace {

constexpr int64_t kMinRows = 16;                   // fewer rows of x: weight_int4_mm.fast
constexpr int64_t kBlockRows = 256;                // weight rows dequantized a block
constexpr int64_t kTempFloats = int64_t{1} << 26;  // f32 temporaries a call may hold (256 MiB)

struct plan {
  int64_t m = 0, k = 0, n = 0, g = 0, block = 0;
};

// The blocking of a call, or why the kernel does not take it.
const char* plan_of(const xd_kernel_call* c, plan& p) {
  if (const char* why = fast::int4_mm_decline(c)) return why;
  p.m = input(c, 0).sizes[0];
  p.k = input(c, 0).sizes[1];
  p.n = input(c, 1).sizes[0];
  p.g = need_attrs<xd_attrs_int4>(c).group_size;
  if (p.m < kMinRows) return "fewer than 16 rows of x: weight_int4_mm.fast reads the packed weight once";
  if (p.n == 0) return "an empty result";
  const int64_t room = (kTempFloats - p.m * p.k) / (p.k + p.m);  // weight rows a block can hold
  if (room < 16) return "x and a block of the dequantized weight exceed the bounded f32 buffers";
  p.block = std::min({kBlockRows, p.n, room});
  return nullptr;
}

// The f32 problem out_block[m, block] = x[m, k] @ w_block[block, k]^T.
dnnl_key key_of(const plan& p, int64_t block) {
  dnnl_key key;
  key.s.a_dims = {1, p.m, p.k};
  key.s.a_strides = {p.m * p.k, p.k, 1};
  key.s.b_dims = {1, p.k, block};
  key.s.b_strides = {p.k * block, 1, p.k};  // the dequantized rows, read as columns
  key.s.dst_dims = {1, p.m, block};
  key.s.dst_strides = {p.m * block, block, 1};
  key.src = dt::f32;
  key.dst = dt::f32;
  return key;
}

int32_t check(const xd_kernel_call* c, char* reason, size_t reason_size) {
  return fast::check_with(reason, reason_size, [&]() -> const char* {
    plan p;
    if (const char* why = plan_of(c, p)) return why;
    return primitive_for(key_of(p, p.block)) != nullptr ? nullptr : kNoPrimitive;
  });
}

struct int4_mm_dnnl {
  template <class T>
  static xd_status run(const xd_kernel_call* c) {
    return kernel_guard(c, [&] {
      plan p;
      if (const char* why = plan_of(c, p)) plugin::fail(XD_ERR_INTERNAL, std::string("weight_int4_mm.dnnl ") + why);
      const T* xp = reinterpret_cast<const T*>(data(input(c, 0)));
      const uint8_t* wp = reinterpret_cast<const uint8_t*>(data(input(c, 1)));
      const T* sp = reinterpret_cast<const T*>(data(input(c, 2)));
      const int8_t* zp = reinterpret_cast<const int8_t*>(data(input(c, 3)));
      T* op = reinterpret_cast<T*>(data(output(c, 0)));
      const int64_t groups = p.k / p.g;
      std::vector<float> xf;
      const float* x32 = reinterpret_cast<const float*>(xp);
      if constexpr (!std::is_same_v<T, float>) {
        xf.resize(static_cast<size_t>(p.m * p.k));
        parallel_for(p.m * p.k, kElementGrain, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) xf[static_cast<size_t>(i)] = static_cast<float>(xp[i]);
        });
        x32 = xf.data();
      }
      const auto w = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(p.block * p.k));
      const auto acc = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(p.m * p.block));
      std::vector<float> s_block(static_cast<size_t>(groups * p.block)), z_block(s_block.size());
      for (int64_t n0 = 0; n0 < p.n; n0 += p.block) {
        const int64_t nb = std::min(p.block, p.n - n0);
        fast::gather_group_params(sp, zp, p.n, groups, n0, nb, p.block, s_block.data(), z_block.data());
        parallel_for(nb, std::max<int64_t>(1, kElementGrain / p.k), [&](int64_t j0, int64_t j1) {
          for (int64_t j = j0; j < j1; ++j)
            simd::int4_dequantize(wp + (n0 + j) * (p.k / 2), p.k, p.g, s_block.data() + j, z_block.data() + j, p.block,
                                  w.get() + j * p.k);
        });
        const dnnl_key key = key_of(p, nb);
        const dnnl::matmul* prim = primitive_for(key);
        if (prim == nullptr) declined_after_check("int4 weight");
        execute(*prim, key, x32, w.get(), acc.get());
        parallel_for(p.m, std::max<int64_t>(1, kElementGrain / nb), [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t j = 0; j < nb; ++j) op[i * p.n + n0 + j] = cast<T>(acc[static_cast<size_t>(i * nb + j)]);
        });
      }
    });
  }
};

bool available(xd_dtype d) { return fast::enabled(d) && dnnl_engine_available(); }

}  // namespace

// An entry of the registration list (kernel_list.cpp), before weight_int4_mm.fast.
extern const plugin::kernel_def def_weight_int4_mm_dnnl = [] {
  plugin::kernel_def d = typed_kernel<int4_mm_dnnl, fast::kDtypes>(XD_OP_WEIGHT_INT4_MM, "weight_int4_mm.dnnl", check);
  d.available = available;
  return d;
}();

}  // namespace xd::cpu

#endif  // XD_CPU_HAVE_DNNL
