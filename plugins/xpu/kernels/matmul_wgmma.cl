// MM, ADDMM, BMM, BADDBMM for f16 and bf16 on Hopper's warpgroup tensor-core instruction (wgmma),
// from operands packed along k by xd_gemm_pack_wgmma. Appended by the OpenCL plugin to matmul.cl's
// program after matmul_mma.cl and wgmma_common.cl (the wgmma route and main loop); empty without
// XD_NV_WGMMA, which the plugin defines only where the program cache rewrites the program's PTX for
// sm_90a, and never part of a Level Zero module.
//
//   xd_gemm_wgmma_packed  A and B packed along k (B from either layout): 128 x 128 outputs per
//                         work-group of one warpgroup, two wgmma.m64n128k16 per k16 step
//                         (wgmma_common.cl: xd_wg_tile), the stages of two steps filled by
//                         bulk copies
//   xd_gemm_wgmma_tma     the same tiles and stages read where the operands are, by tensor-map
//                         copies (Hopper's TMA) through maps xd_gemm_tma_maps writes first: no
//                         packing pass, and the swizzled layouts wgmma reads fastest
//
// Rounding: each product and sum in f32 on the tensor core (exact products of f16/bf16 values,
// f32 additions in the hardware's order), then alpha * acc + beta * input in f32 and one rounding
// to T (xd_gemm_store), as the other matmul kernels.

#if defined(XD_NV_WGMMA) && defined(XD_NV_BULK) && defined(XD_NV_MMA) && (XD_MMK == 1 || XD_MMK == 2)

// Stages of two k16 steps (16 KiB of A and B), three of them: 48 KiB, NVIDIA's OpenCL limit for a
// work-group. Against one step a stage and four stages, bf16 4096^3 ran 3% faster on an H200, f16
// the same (docs/performance.md, "Two k steps a stage").
#define XD_GW_IMAGES 2
#define XD_GW_STAGES 3

// The 128 x 128 tile's sums through the epilogue (xd_gemm_store_pair, matmul_mma.cl): accumulator
// j of warp w, lane (g, t) holds rows 16 w + g and + 8, columns 8 j + 2 t and + 1 of each 64-row
// half.
inline void xd_gw_store(__global T* c, __global const T* in, const xd_gemm G, long bt, long m0, long n0,
                        const float4* acc0, const float4* acc1) {
  const int lane = (int)get_local_id(0) & 31, warp = (int)get_local_id(0) >> 5, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const float4 v = h ? acc1[j] : acc0[j];
      const long r = m0 + h * 64 + warp * 16 + g, col = n0 + j * 8 + 2 * t;
      xd_gemm_store_pair(c, in, G, bt, r, col, v.s0, v.s1);
      xd_gemm_store_pair(c, in, G, bt, r + 8, col, v.s2, v.s3);
    }
  }
}

__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void xd_gemm_wgmma_packed(
    __global T* c, __global const uint4* pa, __global const uint4* pb, __global const T* in, const xd_gemm G,
    long row0, long batch0, long pa0, long pb0) {
  __local uint4 sa[XD_GW_STAGES * XD_GW_IMAGES * XD_MMK_PCHUNKS];
  __local uint4 sb[XD_GW_STAGES * XD_GW_IMAGES * XD_MMK_PCHUNKS];
  __local ulong bars[XD_GW_STAGES];
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  const long bt = batch0 + (long)get_group_id(2);
  const int steps = (int)((G.k + 15) / 16);
  pa += pa0 + ((bt * ((G.m + 127) / 128) + m0 / 128) * steps) * XD_MMK_PCHUNKS;
  pb += pb0 + ((bt * ((G.n + 127) / 128) + n0 / 128) * steps) * XD_MMK_PCHUNKS;
  float4 acc0[16], acc1[16];  // rows 0-63 and 64-127 of the tile
  xd_wg_tile(pa, pb, steps, sa, sb, bars, acc0, acc1, XD_MMK - 1, XD_GW_IMAGES, XD_GW_STAGES, 0, 0, 0, 0, 0, 0,
             0);  // f16 0, bf16 1
  xd_gw_store(c, in, G, bt, m0, n0, acc0, acc1);
}

// A tensor map as the CUDA driver encodes it (CUtensorMap: 128 bytes, opaque), passed by value.
typedef struct {
  ulong q[16];
} xd_tmap;

// Writes the call's two maps at maps + maps0 (the workspace, 128-byte aligned: A's, then B's 128
// bytes) with their addresses set to the operands' (the host encodes them for a placeholder
// address: it never learns where an OpenCL buffer lives), then makes them visible to the
// tensor-map proxy. Work-item 0 does it all; any others return.
__kernel void xd_gemm_tma_maps(__global ulong* maps, long maps0, const xd_tmap ta, const xd_tmap tb,
                               __global const T* a, __global const T* b, long a_off, long b_off) {
  if (get_global_id(0) != 0) return;
  maps += maps0;
  for (int i = 0; i < 16; ++i) {
    maps[i] = ta.q[i];
    maps[16 + i] = tb.q[i];
  }
  XD_ASM volatile(XD_WGMMA_LIVE "tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                  :
                  : "l"(maps), "l"((ulong)(a + a_off))
                  : "memory");
  XD_ASM volatile(XD_WGMMA_LIVE "tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                  :
                  : "l"(maps + 16), "l"((ulong)(b + b_off))
                  : "memory");
  XD_ASM volatile(XD_WGMMA_LIVE "fence.proxy.tensormap::generic.release.gpu;" : : : "memory");
}

// xd_gemm_wgmma_packed's tiles with the stages read by tensor maps (wgmma_common.cl:
// xd_wg_fill_tma): maps + maps0 as xd_gemm_tma_maps left them; `b_mn`: B stored k x n.
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void xd_gemm_wgmma_tma(
    __global T* c, __global const ulong* maps, long maps0, __global const T* in, const xd_gemm G, long row0,
    long batch0, int b_mn) {
  maps += maps0;
  // Each stage at a multiple of 1024 bytes: the 128-byte swizzle's whole pattern.
  __local uint4 sa[XD_GW_STAGES * XD_GW_IMAGES * XD_MMK_PCHUNKS] __attribute__((aligned(1024)));
  __local uint4 sb[XD_GW_STAGES * XD_GW_IMAGES * XD_MMK_PCHUNKS] __attribute__((aligned(1024)));
  __local ulong bars[XD_GW_STAGES];
  long m0, n0;
  xd_mmk_tile_origin(row0, &m0, &n0);
  const long bt = batch0 + (long)get_group_id(2);
  const int steps = (int)((G.k + 15) / 16);
  float4 acc0[16], acc1[16];
  xd_wg_tile(0, 0, steps, sa, sb, bars, acc0, acc1, XD_MMK - 1, XD_GW_IMAGES, XD_GW_STAGES, 1, maps, maps + 16,
             (int)m0, (int)n0, (int)bt, b_mn);
  xd_gw_store(c, in, G, bt, m0, n0, acc0, acc1);
}

// Packs one operand along k: image (bt, t, kt) of the operand's `tiles` tiles of 128 rows (A's m,
// or B's n) and `steps` k steps of 16 holds at chunk xd_wg_at(r, c) the 8 elements of row
// t * 128 + r from k = kt * 16 + c * 8, zeros outside the matrix; images in the order
// ((bt * tiles + t) * steps + kt), as xd_wg_tile reads them. A work-group of 256 work-items packs
// `per_group` consecutive images of one tile (the host's choice, which also sets the grid: one
// work-group per per_group images of each tile), XD_GW_PACK_BATCH at a time, a work-item one
// 16-byte chunk of each, all a batch's loads issued before its stores, so that each work-item keeps
// several loads in flight (docs/performance.md, "Packing four images a work-group").
// `rows_k` = 0: the source is dense along k (A; B stored n x k), a chunk one 16-byte load.
// `rows_k` = 1: the source is stored k x n (B in the nn layout): the work-group loads each image's
// 16 k rows of 128 columns as whole 16-byte chunks and transposes them through local memory.
// `off`, `ld` (elements between the source's rows) and `bs` (between batches) are multiples of 8,
// as are k and, for rows_k, the row count (xpu::plan_gemm's conditions), so a chunk is wholly
// inside or outside.
#define XD_GW_PACK_BATCH 4
__kernel __attribute__((reqd_work_group_size(XD_MMK_PCHUNKS, 1, 1))) void xd_gemm_pack_wgmma(
    __global uint4* dst, long dst0, __global const T* src, long off, long ld, long bs, long rows, long k, int tiles,
    int steps, int rows_k, int per_group) {
  __local uint4 image_t[XD_MMK_PCHUNKS];  // rows_k: one image's 16 k rows of 128 columns
  const int q = (int)get_local_id(0);
  const uint blocks = ((uint)steps + (uint)per_group - 1) / (uint)per_group;
  const uint g = (uint)get_group_id(0), rest = g / blocks, kb = g - rest * blocks;
  const long t = (long)(rest % (uint)tiles), bt = (long)(rest / (uint)tiles);
  __global const T* s = src + off + bt * bs;
  // Every bound below is the same for the whole work-group, so its barriers are reached by all.
  for (int done = 0; done < per_group; done += XD_GW_PACK_BATCH) {
    const long kt0 = (long)kb * per_group + done;
    const int count = (int)min((long)min(XD_GW_PACK_BATCH, per_group - done), (long)steps - kt0);
    if (count <= 0) return;
    __global uint4* d = dst + dst0 + ((long)rest * steps + kt0) * XD_MMK_PCHUNKS + q;
    uint4 v[XD_GW_PACK_BATCH];
    if (!rows_k) {
      const long row = t * 128 + (q >> 4) * 8 + (q & 7);
#pragma unroll
      for (int i = 0; i < XD_GW_PACK_BATCH; ++i) {
        const long k0 = (kt0 + i) * 16 + ((q >> 3) & 1) * 8;
        v[i] = i < count && row < rows && k0 < k ? *(__global const uint4*)(s + row * ld + k0) : (uint4)(0u);
      }
#pragma unroll
      for (int i = 0; i < XD_GW_PACK_BATCH; ++i)
        if (i < count) d[i * XD_MMK_PCHUNKS] = v[i];
      continue;
    }
    const long col = t * 128 + (q & 15) * 8;  // work-item q loads k row q >> 4 of an image, 8 columns
#pragma unroll
    for (int i = 0; i < XD_GW_PACK_BATCH; ++i) {
      const long kr = (kt0 + i) * 16 + (q >> 4);
      v[i] = i < count && col < rows && kr < k ? *(__global const uint4*)(s + kr * ld + col) : (uint4)(0u);
    }
    __local const ushort* e = (__local const ushort*)image_t + ((q >> 3) & 1) * 8 * 128 + (q >> 4) * 8 + (q & 7);
#pragma unroll
    for (int i = 0; i < XD_GW_PACK_BATCH; ++i) {
      if (i < count) {
        barrier(CLK_LOCAL_MEM_FENCE);
        image_t[q] = v[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        ushort h[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) h[j] = e[j * 128];
        d[i * XD_MMK_PCHUNKS] =
            (uint4)(h[0] | (uint)h[1] << 16, h[2] | (uint)h[3] << 16, h[4] | (uint)h[5] << 16, h[6] | (uint)h[7] << 16);
      }
    }
  }
}

#endif  // XD_NV_WGMMA
