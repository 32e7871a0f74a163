// MM, ADDMM, BMM, BADDBMM (kernels/matmul.cl) as both XPU variants launch them: one batched
// problem with arbitrary strides; the register-tiled kernels (128 x 128 tiles, _dense for aligned
// operands) for shapes that fill such tiles, the plain tiled kernel for small, skinny or odd
// ones, the grid cut into launches where rows or batches exceed the device's grid. The launcher
// is run_matmul (launchers.hpp); the argument struct and the plan are here for its tests, and
// gemm_launch for quant_mm's.
#pragma once

#include <xd/plugin.hpp>
#include <xd/plugin_abi.h>

#include "launcher.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace xd::xpu {

// Field for field as xd_gemm in matmul.cl (8-byte fields, then two floats).
struct gemm_args {
  int64_t m, n, k, batch;
  int64_t a_off, a_b, a_m, a_k;
  int64_t b_off, b_b, b_k, b_n;
  int64_t c_off, c_b, c_m, c_n;
  int64_t i_off, i_b, i_m, i_n;
  int64_t has_input;
  int64_t alpha_d, beta_d;
  float alpha_f, beta_f;
};
static_assert(sizeof(gemm_args) == 192);

// The views of a MM / ADDMM / BMM / BADDBMM call and its arguments. `input` is the view the
// kernel's `in` argument gets: the call's input when beta != 0, else the output (a valid buffer
// that is never read, so a NaN in an ignored input cannot propagate).
struct gemm_call {
  const xd_view* a = nullptr;
  const xd_view* b = nullptr;
  const xd_view* out = nullptr;
  const xd_view* input = nullptr;
  gemm_args args{};
};
// Checks ranks, shapes and dtypes of `c` (op one of the four) and fills the argument struct.
gemm_call make_gemm(const xd_kernel_call* c);

struct gemm_launch {
  int64_t row0 = 0, batch0 = 0;  // the kernel's row0 / batch0 arguments
  int64_t groups[3] = {};        // work-groups along n (columns), rows, batch
};
struct gemm_plan {
  bool big = false;       // 128 x 128 tiles: xd_gemm_big (16 x 16 work-items), xd_gemm_mma_* (128 x 1)
  int64_t tile = 0;       // outputs per work-group along each of m and n
  int64_t local[3] = {};  // the work-group size
  const char* entry = nullptr;
  std::vector<gemm_launch> launches;  // the grid cut where rows or batches exceed max_groups_yz
  // xd_gemm_mma_packed_*: A and B are first packed into a workspace by xd_gemm_pack_mma, as
  // pack_of counts them; `unpacked_entry` runs the same call without one (xd_gemm_mma_nn / _nt),
  // and `b_rows_k` says B is stored k x n (the nn layout), which the packing reads by k rows.
  bool packed = false;
  const char* unpacked_entry = nullptr;
  bool b_rows_k = false;
  // The packed form on Hopper's wgmma (xd_gemm_wgmma_packed, one kernel for both B layouts), whose
  // operands xd_gemm_pack_wgmma packs along k, B's from either layout (same counts as pack_of).
  bool wgmma = false;
  // ... with the stages read where the operands are, by tensor-map copies (xd_gemm_wgmma_tma after
  // xd_gemm_tma_maps; no packing): `entry` names it, and `b_rows_k` says B is MN-major for it. Where
  // a map cannot be encoded, run_matmul takes the packed route (xd_gemm_wgmma_packed) instead.
  bool tma = false;
  // xd_gemm_mma_stream_* / xd_gemm_async_skinny* (NVIDIA's gemvs, `nv_skinny`): k is split over
  // `splits` work-groups along dimension 1 of each launch, whose f32 sums (16 rows x n for each
  // split and batch of a launch, skinny_part_floats) xd_gemm_skinny_reduce adds in split order;
  // 1: no split, no second launch.
  bool nv_skinny = false;
  int64_t splits = 1;
};
// The packed operands of xd_gemm_mma_packed_*: per batch, A's ceil(m / 128) tiles and B's
// ceil(n / 128), each ceil(k / 16) images of 256 chunks of 16 bytes (one stage of the kernel).
struct gemm_pack {
  int64_t a_tiles = 0, b_tiles = 0, steps = 0;
  int64_t a_chunks = 0, b_chunks = 0;  // the workspace holds a_chunks then b_chunks
};
gemm_pack pack_of(const gemm_args& g);
// The smallest m and n that take the packed kernels: packing reads and writes A and B once more,
// which pays only where each of their tiles is read by many work-groups (A's by n / 128, B's by
// m / 128): on an H100, llama_mlp's 512 x 4096 x 11008 ran 0.83 ms packed against 0.79 unpacked;
// on an H200 with wgmma, bf16 at 512 rows gained on one of its shapes what it lost on the other
// (docs/performance.md, "Packing four images a work-group").
inline constexpr int64_t kPackedMin = 1024;
// The smallest m and n that take the tensor-map kernel (xd_gemm_wgmma_tma), which packs nothing:
// two of its 128 x 128 tiles along each.
inline constexpr int64_t kTmaMin = 256;
// xd_gemm_pack_wgmma's images per work-group, passed to it (it packs any count, four at a time).
inline constexpr int64_t kPackImages = 4;
// The workspace of a call's packed operands, `chunks` of 16 bytes in images of 256 (4 KiB), `steps`
// k steps per tile; nullopt where the device cannot spare it, or where the packing kernels, which
// count images and steps in 32 bits (a work-group per image, or per kPackImages of them), could
// not (8 TiB and more). The caller then runs its unpacked kernel, which computes the call without
// one.
std::optional<plugin::scratch> packed_workspace(const xd_kernel_call* c, int64_t chunks, int64_t steps);
// `wg`: the work-group size the kernels are compiled for (XD_WG: XD_GT follows from it);
// `max_groups_yz`: the most work-groups a launch may have along dims 1 and 2; `mma`: the device
// builds matmul_mma.cl's tensor-core kernels and the dtype is f16 or bf16. They are taken for
// shapes that fill their 128 x 128 tiles (m > 16, n >= 64, k >= 32), A dense along k, B dense
// along n (xd_gemm_mma_nn) or along k (xd_gemm_mma_nt), every offset and stride a multiple of 8
// elements and the dense extents (k; n for nn) too.
// `async_f32`: the device builds matmul_mma.cl's f32 kernels and the dtype is f32; then 2 <= m <= 16
// with the same alignment in chunks of 4 floats takes xd_gemm_f32_stream_nn / _nt where
// n >= kF32StreamMinN, else xd_gemm_async_skinny_nn / _nt (with mma, m in 2..16 takes
// xd_gemm_mma_stream_nn / _nt).
// `packed`: where the tensor-core kernels are taken and m, n >= kPackedMin, their packed form
// (xd_gemm_mma_packed_nn / _nt) instead: the device's stages are filled by bulk copies (Hopper);
// with `wgmma` as well, xd_gemm_wgmma_packed (the same tiles and stages on wgmma); with `tma` as
// well (the device encodes tensor maps), xd_gemm_wgmma_tma (the same, read by tensor maps).
// `compute_units`: the device's, for NVIDIA's gemvs, which split k until about kSkinnyGroupsPerUnit
// work-groups per unit are in flight (a decode shape has one work-group per 32, 256 or 512 columns,
// too few to keep enough bytes in flight on a large GPU), each split at least kSkinnyMinSteps k16
// steps, at most kSkinnyMaxSplits splits (the f32 stream: 8 steps, 64 splits); 0: never
// split.
gemm_plan plan_gemm(const gemm_args& g, int64_t wg, int64_t max_groups_yz, bool mma = false, bool async_f32 = false,
                    bool packed = false, bool wgmma = false, int64_t compute_units = 0, bool tma = false);
// The tensor maps of xd_gemm_wgmma_tma for `g` (f16 or bf16: `bf16`), A's then B's: {k, m, batch}
// in boxes of {32, 128, 1} with the 64-byte swizzle; B n x k likewise, or, stored k x n (`b_mn`),
// {n, k, batch} in boxes of {64, 32, 1} with the 128-byte swizzle. A batch of one gets a batch
// stride past the whole matrix (the maps want a stride; it is never used).
std::pair<tensor_map_spec, tensor_map_spec> tma_specs(const gemm_args& g, bool bf16, bool b_mn);
inline constexpr int64_t kSkinnyGroupsPerUnit = 3;
inline constexpr int64_t kSkinnyMinSteps = 32;
inline constexpr int64_t kSkinnyMaxSplits = 16;
// The narrowest B (columns) the f32 gemv streams into registers (xd_gemm_f32_stream_*).
inline constexpr int64_t kF32StreamMinN = 2048;
// The f32 sums a split gemv launch keeps: 16 rows x n per split per batch of the launch.
int64_t skinny_part_floats(const gemm_args& g, const gemm_plan& p);

// ---------------------------------------------------------------- Intel matrix engines (DPAS)
// xd_gemm_dpas (kernels/matmul_dpas.cl, cl_intel_subgroup_matrix_multiply_accumulate): f16 and
// bf16 only, one program per sub-group size (8 or 16, the extension's two operand layouts). A
// work-group is kDpasSubGroups sub-groups computing kDpasTileM rows by kDpasSubGroups * sub-group
// columns of outputs (XD_DPAS_* in the .cl).
inline constexpr int64_t kDpasSubGroups = 4;
inline constexpr int64_t kDpasTileM = 32;

// The sub-group size a device with these sub-group sizes builds the DPAS kernel for: the smallest,
// which the extension requires, when it is 8 or 16; else 0 (no DPAS layout for it).
int dpas_sub_group_size(std::span<const int64_t> sizes);

struct dpas_plan {
  const char* program = nullptr;  // "matmul_dpas8" or "matmul_dpas16"; null: declined, why_not says why
  std::string why_not;
  // The call's arguments as the kernel gets them: a size-1 dimension's stride set to 1 (it never
  // moves an address), so that such an operand counts as dense along it.
  gemm_args args{};
  int64_t local[3] = {};  // the work-group: kDpasSubGroups * sub_group work-items along dim 0
  int64_t tile_m = 0, tile_n = 0;
  std::vector<gemm_launch> launches;  // columns, rows, batch; cut where rows or batches exceed max_groups_yz
};
// The plan of xd_gemm_dpas for `g` on a device whose DPAS sub-group size is `sub_group` (0: none),
// or its decline: another dtype than f16/bf16; an operand with no unit stride (the kernel loads
// each operand along a dense axis: A along k or m, B along n or k; a transposed view is dense); a
// decode shape (m <= 16 rows against k * n >= 65536, with n >= 16) that the portable skinny kernels
// take, splitting k over a work-group where this kernel would run one work-group per 4 * sub-group
// columns. Any m, n, k, offsets and batch strides otherwise; an empty problem plans no launch.
dpas_plan plan_gemm_dpas(const gemm_args& g, int32_t dtype, int sub_group, int64_t max_groups_yz);

}  // namespace xd::xpu
