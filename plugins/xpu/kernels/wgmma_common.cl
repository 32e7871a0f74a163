// The warpgroup tensor-core instruction of Hopper (wgmma) as the f16/bf16 matmuls
// (matmul_wgmma.cl) and fp8 scaled_mm (quant_mm_wgmma.cl) use it: the sm_90a route through the
// program cache, shared-memory descriptors of the packed operands' image, and the main loop of a
// 128 x 128 tile (xd_wg_tile). Part of the matmul and quant_mm programs after mma_common.cl
// (kernel_list.cpp's program_sources); empty without XD_NV_WGMMA, never part of a Level Zero
// module.
#if defined(XD_NV_WGMMA) && defined(XD_NV_BULK) && defined(XD_NV_MMA)

// ---------------------------------------------------------------- wgmma (Hopper, sm_90a)
// NVIDIA's OpenCL compiles source for `.target sm_90`, where ptxas rejects every wgmma
// instruction (they need sm_90a). So each wgmma line of an inline asm begins with XD_WGMMA_LIVE, a
// PTX comment: the compiler sees a statement that reads and writes its operands and places them in
// registers, and the program cache (program/program_cache.cpp, program/wgmma_ptx.hpp) takes the
// program's PTX, deletes the marker, names `.target sm_90a` and builds that PTX as the program's
// binary. A program built without that step would compute nothing, so the plugin defines
// XD_NV_WGMMA only together with it (the device's probe: program/program_cache.hpp, wgmma_route).
#define XD_WGMMA_LIVE "// XD_SM90A "

// The operands' image (matmul_wgmma.cl's xd_gemm_pack_wgmma, quant_mm_wgmma.cl's
// xd_qmm_pack_wgmma): a stage's 128 rows by 32 bytes of k as 8 x 8 "core matrices" of 128
// contiguous bytes (8 rows of 16 bytes), the two along k of 8 rows next to each other: chunk c (along k) of row r at xd_wg_at(r, c). wgmma reads it without
// swizzling, core matrices XD_WG_LBO bytes apart along k and XD_WG_SBO bytes apart along the rows.
inline int xd_wg_at(int r, int c) { return ((r >> 3) * 2 + c) * 8 + (r & 7); }
#ifndef XD_WG_LBO
#define XD_WG_LBO 128
#endif
#ifndef XD_WG_SBO
#define XD_WG_SBO 256
#endif

// A shared-memory matrix descriptor: the start address and both offsets in 16-byte units, no
// swizzle (bits 62-63 zero), base offset 0.
inline ulong xd_wg_desc(uint addr) {
  return (ulong)((addr & 0x3FFFFu) >> 4) | ((ulong)(XD_WG_LBO >> 4) << 16) | ((ulong)(XD_WG_SBO >> 4) << 32);
}
// The same with a swizzle mode (bits 62-63: 1 the 128-byte swizzle, 2 the 64-byte one), for the
// layouts tensor-map copies leave (xd_wg_fill_tma); base offset 0, every stage being aligned to the
// swizzle's whole pattern (1024 bytes).
inline ulong xd_wg_desc_swizzled(uint addr, uint lbo, uint sbo, uint swizzle) {
  return (ulong)((addr & 0x3FFFFu) >> 4) | ((ulong)(lbo >> 4) << 16) | ((ulong)(sbo >> 4) << 32) |
         ((ulong)swizzle << 62);
}

// ---------------------------------------------------------------- tensor maps (Hopper's TMA)
// A stage of the 16-bit matmul read straight from the operands (xd_gemm_wgmma_tma): 32 k of A's
// 128 rows and of B's 128 columns, 8 KiB each, by tensor-map copies (cp.async.bulk.tensor, sm_90)
// completing on the stage's mbarrier. The maps (encoded by the host, their addresses set by
// xd_gemm_tma_maps) are 3-D, the batch outermost:
//   A, and B stored n x k (K-major): {k, rows, batch}, boxes of {32, 128, 1} in the 64-byte swizzle:
//     row r's 64 bytes at r * 64, so 8-row groups 512 bytes apart and the second k16 step at +32;
//   B stored k x n (MN-major, `b_mn`): {n, k, batch}, two boxes of {64, 32, 1} (columns n0 and
//     n0 + 64) in the 128-byte swizzle: k row r of each at r * 128, the halves 4096 bytes apart,
//     8-row groups of k 1024 apart, the second k16 step at +2048; wgmma reads it transposed.
// Rows, columns and k past the operands' extents arrive as zeros (the maps' bounds).
inline void xd_wg_fill_tma(uint sa_st, uint sb_st, __global const ulong* ma, __global const ulong* mb, int k0, int m0,
                           int n0, int bt, int b_mn, uint bar) {
  XD_ASM volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" : : "r"(bar) : "memory");
  XD_ASM volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
      :
      : "r"(sa_st), "l"(ma), "r"(k0), "r"(m0), "r"(bt), "r"(bar)
      : "memory");
  if (b_mn) {
    XD_ASM volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];"
        :
        : "r"(sb_st), "l"(mb), "r"(n0), "r"(k0), "r"(bt), "r"(bar)
        : "memory");
    XD_ASM volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];"
        :
        : "r"(sb_st + 4096u), "l"(mb), "r"(n0 + 64), "r"(k0), "r"(bt), "r"(bar)
        : "memory");
  } else {
    XD_ASM volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];"
        :
        : "r"(sb_st), "l"(mb), "r"(k0), "r"(n0), "r"(bt), "r"(bar)
        : "memory");
  }
}
// Before a work-group's first copy through maps that a kernel wrote (xd_gemm_tma_maps): the
// tensor-map proxy sees what the generic proxy wrote there (PTX ISA 8.3).
inline void xd_wg_maps_acquire(__global const ulong* ma, __global const ulong* mb) {
  XD_ASM volatile(XD_WGMMA_LIVE "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" : : "l"(ma) : "memory");
  XD_ASM volatile(XD_WGMMA_LIVE "fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" : : "l"(mb) : "memory");
}

#define XD_WG_F4(v) "+f"(v.s0), "+f"(v.s1), "+f"(v.s2), "+f"(v.s3)
#define XD_WG_ACC(D)                                                                                                  \
  XD_WG_F4(D[0]), XD_WG_F4(D[1]), XD_WG_F4(D[2]), XD_WG_F4(D[3]), XD_WG_F4(D[4]), XD_WG_F4(D[5]), XD_WG_F4(D[6]),    \
      XD_WG_F4(D[7]), XD_WG_F4(D[8]), XD_WG_F4(D[9]), XD_WG_F4(D[10]), XD_WG_F4(D[11]), XD_WG_F4(D[12]),             \
      XD_WG_F4(D[13]), XD_WG_F4(D[14]), XD_WG_F4(D[15])
// D (float4[16]: 64 f32 accumulators) += A (64 rows, descriptor DA) * B (128 rows, descriptor DB)
// over one k step, both K-major, scale-d 1: the accumulators are read. K: the step, "k16" for
// 16-bit types, whose TAIL gives the transpose flags (", 0, 0"), or "k32" for fp8, which has none
// (K-major only; TAIL ""). TY: the operands' types, e.g. "bf16.bf16", "e4m3.e5m2".
#define XD_WG_MMA(D, DA, DB, K, TAIL, TY)                                                                             \
  XD_ASM volatile(XD_WGMMA_LIVE "wgmma.mma_async.sync.aligned.m64n128" K ".f32." TY                                   \
                                " {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22," \
                                "%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43," \
                                "%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "   \
                                "%64, %65, 1, 1, 1" TAIL ";"                                                            \
                  : XD_WG_ACC(D)                                                                                      \
                  : "l"(DA), "l"(DB)                                                                                  \
                  : "memory")
// One step of xd_wg_tile: both 64-row halves of its tile against B.
#define XD_WG_STEP(K, TAIL, TY)         \
  XD_WG_MMA(acc0, da0, db, K, TAIL, TY); \
  XD_WG_MMA(acc1, da1, db, K, TAIL, TY)

// The products of a 128 x 128 output tile over `steps` packed k steps (pa, pb: the tile's first
// image of each operand, consecutive steps 256 chunks apart) into acc0 (rows 0-63) and acc1 (rows
// 64-127), on a work-group of one warpgroup (128 work-items). A stage is I consecutive steps of
// each operand (I images of 4 KiB, one bulk copy each; the last stage may hold fewer), and sa, sb
// hold S stages (S * I * 256 chunks each; bars S mbarriers). With `tma` (16-bit types, I = 2), the
// stages come from the tensor maps ma, mb instead (xd_wg_fill_tma: the tile at rows m0, columns
// n0 of batch bt; `b_mn`: B stored k x n), read through swizzled descriptors; pa and pb are unused. Work-item 0 fills the stages, S - 1
// ahead; per stage, after its mbarrier, 2 I wgmma left in flight while the previous stage's buffer
// is refilled. `kind`, the operands' types: 0 f16, 1 bf16, 2 + 2 a_e5m2 + b_e5m2 fp8; kind, I and
// S are constants after inlining. A packed step is 32 bytes of k either way: 16 of a 16-bit type,
// 32 of fp8.
// Accumulator j of warp w, lane (g, t) of a 64-row half: rows 16 w + g and + 8, columns 8 j + 2 t
// and + 1 (s0, s1; s2, s3 for the row + 8): the layout of mma.m16n8, one n8 tile per j.
inline __attribute__((always_inline)) void xd_wg_tile(__global const uint4* pa, __global const uint4* pb, int steps,
                                                      __local uint4* sa, __local uint4* sb, __local ulong* bars,
                                                      float4* acc0, float4* acc1, const int kind, const int I,
                                                      const int S, const int tma, __global const ulong* ma,
                                                      __global const ulong* mb, int m0, int n0, int bt, int b_mn) {
  const int tid = (int)get_local_id(0);
  const uint sa0 = xd_mmk_shared(sa), sb0 = xd_mmk_shared(sb), bar0 = (uint)(ulong)bars;
  const uint image_bytes = XD_MMK_PCHUNKS * 16u, stage_bytes = (uint)I * image_bytes;
  const int stages = (steps + I - 1) / I;
  if (tid == 0) xd_mmk_bar_init(bar0, S);
  if (tma && tid == 0) xd_wg_maps_acquire(ma, mb);
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int s = 0; s < S - 1; ++s)
    if (s < stages && tid == 0) {
      if (tma)
        xd_wg_fill_tma(sa0 + s * stage_bytes, sb0 + s * stage_bytes, ma, mb, s * 32, m0, n0, bt, b_mn, bar0 + 8u * s);
      else
        xd_mmk_bulk_stage(sa0 + s * stage_bytes, sb0 + s * stage_bytes, pa + s * I * XD_MMK_PCHUNKS,
                          pb + s * I * XD_MMK_PCHUNKS, bar0 + 8u * s, (uint)min(I, steps - s * I) * image_bytes);
    }
#pragma unroll
  for (int j = 0; j < 16; ++j) acc0[j] = acc1[j] = (float4)(0.0f);

  int use = 0, fill = S - 1;
  for (int st = 0; st < stages; ++st) {
    xd_mmk_bar_wait(bar0 + 8u * use, (uint)(st / S) & 1u);
    const int images = min(I, steps - st * I);
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.fence.sync.aligned;" : : : "memory");
#pragma unroll
    for (int i = 0; i < I; ++i) {
      if (i < images) {
        if (tma) {
          // xd_wg_fill_tma's layouts: a k16 step is 32 bytes into A's 64-byte rows, and into B's
          // (K-major) or 16 k rows of 128 bytes further (MN-major, read transposed).
          const uint ta = sa0 + use * stage_bytes + 32u * i;
          const ulong da0 = xd_wg_desc_swizzled(ta, 16u, 512u, 2u), da1 = xd_wg_desc_swizzled(ta + 4096u, 16u, 512u, 2u);
          const uint tb = sb0 + use * stage_bytes + (b_mn ? 2048u : 32u) * i;
          const ulong db = b_mn ? xd_wg_desc_swizzled(tb, 4096u, 1024u, 1u) : xd_wg_desc_swizzled(tb, 16u, 512u, 2u);
          if (kind == 0 && b_mn) {
            XD_WG_STEP("k16", ", 0, 1", "f16.f16");
          } else if (kind == 0) {
            XD_WG_STEP("k16", ", 0, 0", "f16.f16");
          } else if (b_mn) {
            XD_WG_STEP("k16", ", 0, 1", "bf16.bf16");
          } else {
            XD_WG_STEP("k16", ", 0, 0", "bf16.bf16");
          }
          continue;
        }
        const uint ta = sa0 + use * stage_bytes + i * image_bytes, tb = sb0 + use * stage_bytes + i * image_bytes;
        const ulong db = xd_wg_desc(tb), da0 = xd_wg_desc(ta), da1 = xd_wg_desc(ta + 8u * XD_WG_SBO);
        if (kind == 0) {
          XD_WG_STEP("k16", ", 0, 0", "f16.f16");
        } else if (kind == 1) {
          XD_WG_STEP("k16", ", 0, 0", "bf16.bf16");
        } else if (kind == 2) {
          XD_WG_STEP("k32", "", "e4m3.e4m3");
        } else if (kind == 3) {
          XD_WG_STEP("k32", "", "e4m3.e5m2");
        } else if (kind == 4) {
          XD_WG_STEP("k32", "", "e5m2.e4m3");
        } else {
          XD_WG_STEP("k32", "", "e5m2.e5m2");
        }
      }
    }
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.commit_group.sync.aligned;" : : : "memory");
    // Stage st's products stay in flight; stage st - 1's are done in this warp, and past the
    // barrier in every warp, so its buffer (`fill`) takes stage st + S - 1 while the tensor cores work.
    XD_ASM volatile(XD_WGMMA_LIVE "wgmma.wait_group.sync.aligned 1;" : : : "memory");
    barrier(CLK_LOCAL_MEM_FENCE);
    const int next = st + S - 1;
    if (tid == 0 && next < stages) {
      xd_mmk_proxy_fence();
      if (tma)
        xd_wg_fill_tma(sa0 + fill * stage_bytes, sb0 + fill * stage_bytes, ma, mb, next * 32, m0, n0, bt, b_mn,
                       bar0 + 8u * fill);
      else
        xd_mmk_bulk_stage(sa0 + fill * stage_bytes, sb0 + fill * stage_bytes, pa + next * I * XD_MMK_PCHUNKS,
                          pb + next * I * XD_MMK_PCHUNKS, bar0 + 8u * fill, (uint)min(I, steps - next * I) * image_bytes);
    }
    use = use == S - 1 ? 0 : use + 1;
    fill = fill == S - 1 ? 0 : fill + 1;
  }
  XD_ASM volatile(XD_WGMMA_LIVE "wgmma.wait_group.sync.aligned 0;" : : : "memory");
  // The accumulators as operands of an empty statement after the wait: the compiler keeps every
  // later use of them after it.
  XD_ASM volatile("" : XD_WG_ACC(acc0) : : "memory");
  XD_ASM volatile("" : XD_WG_ACC(acc1) : : "memory");
}

#endif  // XD_NV_WGMMA
