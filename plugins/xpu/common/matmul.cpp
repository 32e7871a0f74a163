#include "matmul.hpp"

#include "launchers.hpp"
#include "layout.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace xd::xpu {

namespace {

void check_rank(const xd_view& v, int rank, const char* what) {
  if (v.ndim != rank) plugin::invalid(std::string(what) + " must have rank " + std::to_string(rank));
}

}  // namespace

gemm_call make_gemm(const xd_kernel_call* c) {
  const bool batched = c->op == XD_OP_BMM || c->op == XD_OP_BADDBMM;
  const bool with_input = c->op == XD_OP_ADDMM || c->op == XD_OP_BADDBMM;
  const int first = with_input ? 1 : 0;
  gemm_call call;
  call.a = &plugin::input(c, first);
  call.b = &plugin::input(c, first + 1);
  call.out = &plugin::output(c, 0);
  const xd_view &a = *call.a, &b = *call.b, &out = *call.out;
  const int rank = batched ? 3 : 2;
  check_rank(a, rank, "matmul operand a");
  check_rank(b, rank, "matmul operand b");
  check_rank(out, rank, "matmul output");
  const int o = batched ? 1 : 0;
  gemm_args& g = call.args;
  g.batch = batched ? a.sizes[0] : 1;
  g.m = a.sizes[o];
  g.k = a.sizes[o + 1];
  g.n = b.sizes[o + 1];
  if (b.sizes[o] != g.k || out.sizes[o] != g.m || out.sizes[o + 1] != g.n ||
      (batched && (b.sizes[0] != g.batch || out.sizes[0] != g.batch)))
    plugin::invalid("matmul shapes do not agree");
  if (a.dtype != out.dtype || b.dtype != out.dtype) plugin::invalid("matmul operands and output must share a dtype");
  g.a_off = element_offset(a), g.a_m = a.strides[o], g.a_k = a.strides[o + 1];
  g.b_off = element_offset(b), g.b_k = b.strides[o], g.b_n = b.strides[o + 1];
  g.c_off = element_offset(out), g.c_m = out.strides[o], g.c_n = out.strides[o + 1];
  if (batched) g.a_b = a.strides[0], g.b_b = b.strides[0], g.c_b = out.strides[0];
  double alpha = 1, beta = 0;
  call.input = &out;
  if (with_input) {
    const auto& blas = plugin::need_attrs<xd_attrs_blas>(c);
    alpha = blas.alpha;
    beta = blas.beta;
    if (beta != 0) {  // beta == 0: input is not read, so a NaN in it cannot propagate
      const xd_view& in = plugin::input(c, 0);
      check_rank(in, rank, "matmul input");
      if (in.sizes[o] != g.m || in.sizes[o + 1] != g.n || (batched && in.sizes[0] != g.batch))
        plugin::invalid("matmul input must arrive broadcast to the output's shape");
      plugin::check_dtype(in, out.dtype, "matmul input");
      call.input = &in;
      g.has_input = 1;
      g.i_off = element_offset(in), g.i_m = in.strides[o], g.i_n = in.strides[o + 1];
      if (batched) g.i_b = in.strides[0];
    }
  }
  std::memcpy(&g.alpha_d, &alpha, 8);
  std::memcpy(&g.beta_d, &beta, 8);
  g.alpha_f = static_cast<float>(alpha);
  g.beta_f = static_cast<float>(beta);
  return call;
}

namespace {

// A kernel of matmul_mma.cl (NVIDIA): its entry, outputs per work-group along n (and m for the
// 128 x 128 tensor-core tiles), work-group size, and whether it is a gemv of at most 16 rows.
struct nv_kernel {
  const char* entry = nullptr;
  int64_t tile = 0;
  int64_t local = 0;
  bool skinny = false;
  bool nn = false;  // B dense along n (else along k)
  // The gemvs' split of k (plan_gemm): about `groups_per_unit` work-groups per compute unit, each
  // split at least `min_steps` k16 steps, at most `max_splits` splits.
  int64_t groups_per_unit = kSkinnyGroupsPerUnit;
  int64_t min_steps = kSkinnyMinSteps;
  int64_t max_splits = kSkinnyMaxSplits;
};

// The kernel for these operands (see plan_gemm), or none. `mma`: f16/bf16 on the tensor cores;
// `async_f32`: f32 gemv. Both copy 16-byte chunks (8 halves, 4 floats), so offsets, strides and the
// dense extents must be whole chunks.
nv_kernel nv_kernel_for(const gemm_args& g, bool mma, bool async_f32) {
  if (!mma && !async_f32) return {};
  const int64_t unit = mma ? 8 : 4;
  const auto whole = [unit](int64_t v) { return v % unit == 0; };
  const bool skinny = g.m >= 2 && g.m <= 16 && g.n >= 16 && g.k >= 16;
  if (!skinny && (!mma || g.m <= 16 || g.n < 64 || g.k < 32)) return {};
  if (g.a_k != 1 || !whole(g.a_off) || !whole(g.a_m) || !whole(g.a_b) || !whole(g.k)) return {};
  if (!whole(g.b_off) || !whole(g.b_b)) return {};
  const bool nn = g.b_n == 1 && whole(g.b_k) && whole(g.n);
  if (!nn && !(g.b_k == 1 && whole(g.b_n))) return {};
  if (!skinny) return {nn ? "xd_gemm_mma_nn" : "xd_gemm_mma_nt", 128, 128, false, nn};
  // The tensor-core gemv loads B straight into its mma fragments: 64 columns a warp, 4 warps a
  // work-group. The f32 gemv for wide B streams B into registers too, 128 columns a warp, and
  // splits k into more and shorter splits (at least 128 k, at most 64 splits) for three
  // work-groups a unit: its 128-148 registers a work-item leave room for three on an H200 (four
  // ran 5% faster where the compiler kept 128 registers, 18% slower where it took 132: a second
  // wave). 85-89% of copy at 16 x 16384 x 16384 on an H200 against 66% for the local-memory
  // pipeline, which stays for narrow B (32 columns and eight warps a work-group), where the wide
  // one's work-groups are too few. Measured: docs/performance.md, "The matmul goals on an H200;
  // decode shapes split along k", "B straight into the fragments" and "f32 decode streamed into
  // registers".
  if (mma) return {nn ? "xd_gemm_mma_stream_nn" : "xd_gemm_mma_stream_nt", 256, 128, true};
  if (g.n >= kF32StreamMinN)
    return {nn ? "xd_gemm_f32_stream_nn" : "xd_gemm_f32_stream_nt", 512, 128, true, nn, 3, 8, 64};
  return {nn ? "xd_gemm_async_skinny_nn" : "xd_gemm_async_skinny_nt", 32, 256, true};
}

// The grid of tiles (tile_m rows x tile_n columns of outputs per work-group) over every batch,
// cut into launches where rows or batches exceed max_groups_yz work-groups.
std::vector<gemm_launch> cut_grid(const gemm_args& g, int64_t tile_m, int64_t tile_n, int64_t max_groups_yz) {
  std::vector<gemm_launch> launches;
  const int64_t max_yz = std::max<int64_t>(max_groups_yz, 1);
  const int64_t rows_per_launch = max_yz * tile_m;
  for (int64_t b0 = 0; b0 < g.batch; b0 += max_yz) {
    const int64_t nb = std::min(max_yz, g.batch - b0);
    for (int64_t r0 = 0; r0 < g.m; r0 += rows_per_launch) {
      const int64_t nr = std::min(rows_per_launch, g.m - r0);
      gemm_launch l;
      l.row0 = r0;
      l.batch0 = b0;
      l.groups[0] = (g.n + tile_n - 1) / tile_n;
      l.groups[1] = (nr + tile_m - 1) / tile_m;
      l.groups[2] = nb;
      launches.push_back(l);
    }
  }
  return launches;
}

// Runs `entry` of program `p` over each launch with the matmul kernels' arguments (out, a, b,
// input, args, row0, batch0): the portable, NVIDIA and DPAS kernels share them.
void launch_gemm(const xd_kernel_call* c, const gemm_call& call, const program& p, const char* entry,
                 const gemm_args& args, const int64_t local[3], const std::vector<gemm_launch>& launches) {
  for (const gemm_launch& l : launches) {
    launch k(c, p, entry);
    k.buffer(*call.out).buffer(*call.a).buffer(*call.b).buffer(*call.input).value(args).value(l.row0).value(l.batch0);
    k.run(grid::of_groups(3, local, l.groups));
  }
}

// NVIDIA's gemvs: each launch of the plan, split along dimension 1 where the plan says so, then
// (split) xd_gemm_skinny_reduce over its outputs. Without a workspace for the sums the same launches
// run unsplit.
void run_skinny(const xd_kernel_call* c, const gemm_call& call, const program& prog, gemm_plan plan) {
  const gemm_args& g = call.args;
  std::optional<plugin::scratch> part;
  if (plan.splits > 1) part = plugin::try_workspace(c, static_cast<uint64_t>(skinny_part_floats(g, plan)) * 4);
  if (!part) {
    plan.splits = 1;
    for (gemm_launch& l : plan.launches) l.groups[1] = 1;
  }
  // Unsplit, the kernels never touch `part`: any buffer of the call stands in for it.
  void* const part_buffer = part ? part->handle : call.out->handle;
  const int64_t part0 = part ? static_cast<int64_t>(part->offset / 4) : 0;
  for (const gemm_launch& l : plan.launches) {
    launch k(c, prog, plan.entry);
    k.buffer(*call.out).buffer(*call.a).buffer(*call.b).buffer(*call.input).value(g).value(l.batch0);
    k.buffer(part_buffer).value(part0);
    k.run(grid::of_groups(3, plan.local, l.groups));
    if (plan.splits == 1) continue;
    launch r(c, prog, "xd_gemm_skinny_reduce");
    r.buffer(*call.out).buffer(*call.input).value(g).value(l.batch0).buffer(part_buffer).value(part0);
    r.value(static_cast<int32_t>(plan.splits));
    const int64_t local[3] = {64, 1, 1};
    const int64_t groups[3] = {(g.n + 63) / 64, g.m, l.groups[2]};
    r.run(grid::of_groups(3, local, groups));
  }
}

// xd_gemm_wgmma_tma: the call's two tensor maps written into 256 bytes of workspace by
// xd_gemm_tma_maps, then the tiles. False, with nothing launched, where a map cannot be encoded
// (the driver refuses the shape or strides) or the workspace is short: the caller packs instead.
bool run_tma(const xd_kernel_call* c, const gemm_call& call, const program& prog, const gemm_plan& plan) {
  const gemm_args& g = call.args;
  const auto [spec_a, spec_b] = tma_specs(g, call.out->dtype == XD_DTYPE_BF16, plan.b_rows_k);
  tensor_map map_a, map_b;
  if (!api_of(c).encode_tensor_map(c->device, spec_a, map_a) || !api_of(c).encode_tensor_map(c->device, spec_b, map_b))
    return false;
  const std::optional<plugin::scratch> space = plugin::try_workspace(c, 256 + 128);
  if (!space) return false;
  // The maps at a 128-byte boundary of the workspace (tensormap.replace's alignment).
  const int64_t maps0 = static_cast<int64_t>((space->offset + 127) / 128 * 128 / 8);
  launch m(c, prog, "xd_gemm_tma_maps");
  m.buffer(space->handle).value(maps0).value(map_a).value(map_b).buffer(*call.a).buffer(*call.b).value(g.a_off);
  m.value(g.b_off);
  m.run(grid::of_items(1));
  const int32_t b_mn = plan.b_rows_k ? 1 : 0;
  for (const gemm_launch& l : plan.launches) {
    launch k(c, prog, plan.entry);
    k.buffer(*call.out).buffer(space->handle).value(maps0).buffer(*call.input).value(g).value(l.row0);
    k.value(l.batch0).value(b_mn);
    k.run(grid::of_groups(3, plan.local, l.groups));
  }
  return true;
}

}  // namespace

std::optional<plugin::scratch> packed_workspace(const xd_kernel_call* c, int64_t chunks, int64_t steps) {
  if (chunks / 256 > INT32_MAX || steps > INT32_MAX) return std::nullopt;
  return plugin::try_workspace(c, static_cast<uint64_t>(chunks) * 16);
}

gemm_pack pack_of(const gemm_args& g) {
  gemm_pack p;
  p.a_tiles = (g.m + 127) / 128;
  p.b_tiles = (g.n + 127) / 128;
  p.steps = (g.k + 15) / 16;
  p.a_chunks = g.batch * p.a_tiles * p.steps * 256;
  p.b_chunks = g.batch * p.b_tiles * p.steps * 256;
  return p;
}

int64_t skinny_part_floats(const gemm_args& g, const gemm_plan& p) {
  if (p.splits <= 1) return 0;
  int64_t batches = 0;
  for (const gemm_launch& l : p.launches) batches = std::max(batches, l.groups[2]);
  return batches * p.splits * 16 * g.n;
}

gemm_plan plan_gemm(const gemm_args& g, int64_t wg, int64_t max_groups_yz, bool mma, bool async_f32, bool packed,
                    bool wgmma, int64_t compute_units, bool tma) {
  gemm_plan p;
  if (g.batch == 0 || g.m == 0 || g.n == 0) return p;
  const nv_kernel nv = nv_kernel_for(g, mma, async_f32);
  // Decode shapes: a few rows against a large B, which the skinny kernels stream once.
  if (nv.skinny || (nv.entry == nullptr && g.m <= 16 && wg >= 64 && g.n >= 16 && g.k * g.n >= (int64_t{1} << 16))) {
    p.entry = nv.skinny  ? nv.entry
              : g.m == 1 ? "xd_gemm_skinny_m1"
              : g.m <= 4 ? "xd_gemm_skinny_m4"
              : g.m <= 8 ? "xd_gemm_skinny_m8"
                         : "xd_gemm_skinny_m16";
    p.tile = nv.skinny ? nv.tile : 32;  // columns per work-group (xd_gemm_skinny_*: XD_SQ column quads)
    p.local[0] = nv.skinny ? nv.local : wg;
    p.local[1] = p.local[2] = 1;
    p.nv_skinny = nv.skinny;
    const int64_t max_yz = std::max<int64_t>(max_groups_yz, 1);
    const int64_t columns = (g.n + p.tile - 1) / p.tile;
    if (nv.skinny && compute_units > 0) {
      const int64_t groups = columns * std::min(g.batch, max_yz);
      const int64_t steps = (g.k + 15) / 16;
      p.splits = std::clamp(nv.groups_per_unit * compute_units / groups, int64_t{1},
                            std::clamp(steps / nv.min_steps, int64_t{1}, std::min(nv.max_splits, max_yz)));
    }
    for (int64_t b0 = 0; b0 < g.batch; b0 += max_yz) {
      gemm_launch l;
      l.batch0 = b0;
      l.groups[0] = columns;
      l.groups[1] = p.splits;
      l.groups[2] = std::min(max_yz, g.batch - b0);
      p.launches.push_back(l);
    }
    return p;
  }
  // The register-tiled kernel needs tiles it fills (and 256 work-items); small, skinny or odd
  // shapes go to the plain tiled kernel, whose tile (XD_GT) follows the compiled XD_WG.
  p.big = wg >= 256 && (g.m >= 128 || g.n >= 128) && g.m >= 32 && g.n >= 32 && g.k >= 8;
  p.tile = p.big ? 128 : (wg >= 256 ? 16 : wg >= 64 ? 8 : 4);
  p.local[0] = p.local[1] = p.big ? 16 : p.tile;
  p.local[2] = 1;
  // xd_gemm_big_dense: A dense along k, B along n, every vector load aligned (offsets, row and
  // batch strides multiples of 4 elements; the buffers themselves are aligned far beyond that),
  // and n, k multiples of 4 so that a group of 4 is wholly inside or outside.
  const auto four = [](int64_t v) { return v % 4 == 0; };
  const bool dense = p.big && g.a_k == 1 && g.b_n == 1 && four(g.n) && four(g.k) && four(g.a_off) && four(g.a_m) &&
                     four(g.a_b) && four(g.b_off) && four(g.b_k) && four(g.b_b);
  p.entry = dense ? "xd_gemm_big_dense" : p.big ? "xd_gemm_big" : "xd_gemm_tiled";
  if (nv.entry != nullptr) {
    p.big = true;
    p.tile = nv.tile;
    p.local[0] = nv.local;
    p.local[1] = p.local[2] = 1;
    p.entry = nv.entry;
    const bool by_maps = packed && wgmma && tma && g.m >= kTmaMin && g.n >= kTmaMin;
    if (by_maps || (packed && g.m >= kPackedMin && g.n >= kPackedMin)) {
      p.packed = true;
      p.unpacked_entry = nv.entry;
      p.b_rows_k = nv.nn;
      p.wgmma = wgmma;
      p.tma = by_maps;
      p.entry = p.tma   ? "xd_gemm_wgmma_tma"
                : wgmma ? "xd_gemm_wgmma_packed"
                : nv.nn ? "xd_gemm_mma_packed_nn"
                        : "xd_gemm_mma_packed_nt";
    }
  }
  p.launches = cut_grid(g, p.tile, p.tile, max_groups_yz);
  return p;
}

std::pair<tensor_map_spec, tensor_map_spec> tma_specs(const gemm_args& g, bool bf16, bool b_mn) {
  // Strides in bytes; a batch of one steps past its whole matrix, which no copy reaches.
  const auto batch_stride = [&g](int64_t stride, int64_t rows, int64_t row_stride) {
    return static_cast<uint64_t>(g.batch > 1 ? stride : rows * row_stride) * 2;
  };
  tensor_map_spec a;
  a.bf16 = bf16;
  a.dims[0] = static_cast<uint64_t>(g.k), a.dims[1] = static_cast<uint64_t>(g.m),
  a.dims[2] = static_cast<uint64_t>(g.batch);
  a.strides[0] = static_cast<uint64_t>(g.a_m) * 2, a.strides[1] = batch_stride(g.a_b, g.m, g.a_m);
  a.box[0] = 32, a.box[1] = 128, a.box[2] = 1;
  a.swizzle_bytes = 64;
  tensor_map_spec b = a;
  if (b_mn) {
    b.dims[0] = static_cast<uint64_t>(g.n), b.dims[1] = static_cast<uint64_t>(g.k);
    b.strides[0] = static_cast<uint64_t>(g.b_k) * 2, b.strides[1] = batch_stride(g.b_b, g.k, g.b_k);
    b.box[0] = 64, b.box[1] = 32;
    b.swizzle_bytes = 128;
  } else {
    b.dims[1] = static_cast<uint64_t>(g.n);
    b.strides[0] = static_cast<uint64_t>(g.b_n) * 2, b.strides[1] = batch_stride(g.b_b, g.n, g.b_n);
  }
  return {a, b};
}

int dpas_sub_group_size(std::span<const int64_t> sizes) {
  if (sizes.empty()) return 0;
  const int64_t smallest = *std::min_element(sizes.begin(), sizes.end());
  return smallest == 8 || smallest == 16 ? static_cast<int>(smallest) : 0;
}

dpas_plan plan_gemm_dpas(const gemm_args& g, int32_t dtype, int sub_group, int64_t max_groups_yz) {
  dpas_plan p;
  const auto decline = [&p](std::string why) {
    p.why_not = "xd_gemm_dpas declines: " + std::move(why);
    return p;
  };
  if (sub_group != 8 && sub_group != 16)
    return decline("no DPAS sub-group size on this device (8 or 16; got " + std::to_string(sub_group) + ")");
  if (dtype != XD_DTYPE_F16 && dtype != XD_DTYPE_BF16) return decline("it takes f16 and bf16 only");
  gemm_args a = g;
  if (a.m == 1) a.a_m = 1;
  if (a.k == 1) a.a_k = a.b_k = 1;
  if (a.n == 1) a.b_n = 1;
  if (a.a_k != 1 && a.a_m != 1)
    return decline("a has no unit stride (stride " + std::to_string(g.a_m) + " along m, " + std::to_string(g.a_k) +
                   " along k): the kernel loads each operand along a dense axis");
  if (a.b_n != 1 && a.b_k != 1)
    return decline("b has no unit stride (stride " + std::to_string(g.b_k) + " along k, " + std::to_string(g.b_n) +
                   " along n): the kernel loads each operand along a dense axis");
  if (a.m <= 16 && a.n >= 16 && a.k * a.n >= (int64_t{1} << 16))
    return decline("a decode shape (m = " + std::to_string(a.m) + " rows against k * n = " + std::to_string(a.k * a.n) +
                   "): the skinny kernels split k over a work-group");
  p.program = sub_group == 8 ? "matmul_dpas8" : "matmul_dpas16";
  p.args = a;
  p.local[0] = kDpasSubGroups * sub_group;
  p.local[1] = p.local[2] = 1;
  p.tile_m = kDpasTileM;
  p.tile_n = kDpasSubGroups * sub_group;
  if (a.batch == 0 || a.m == 0 || a.n == 0) return p;
  p.launches = cut_grid(a, p.tile_m, p.tile_n, max_groups_yz);
  return p;
}

int32_t check_matmul_dpas(const xd_kernel_call* c, char* reason, size_t reason_size) {
  try {
    const device_info& d = device_of(c);
    if (d.matmul_dpas_sg == 0)
      return plugin::decline(reason, reason_size,
                             std::string(d.name) + " has no DPAS kernel (" + d.matmul_dpas_why + ")");
    const gemm_call call = make_gemm(c);
    const dpas_plan p =
        plan_gemm_dpas(call.args, call.out->dtype, d.matmul_dpas_sg, std::min(d.max_groups[1], d.max_groups[2]));
    return p.program != nullptr ? 1 : plugin::decline(reason, reason_size, p.why_not);
  } catch (const std::exception& e) {
    return plugin::decline(reason, reason_size, e.what());
  }
}

xd_status run_matmul_dpas(const xd_kernel_call* c) {
  return guard(c, [&] {
    const gemm_call call = make_gemm(c);
    const device_info& dev = device_of(c);
    const dpas_plan plan =
        plan_gemm_dpas(call.args, call.out->dtype, dev.matmul_dpas_sg, std::min(dev.max_groups[1], dev.max_groups[2]));
    if (plan.program == nullptr)
      plugin::fail(XD_ERR_NOT_IMPLEMENTED, plan.why_not);  // check_matmul_dpas declines it first
    launch_gemm(c, call, {plan.program, call.out->dtype}, "xd_gemm_dpas", plan.args, plan.local, plan.launches);
  });
}

xd_status run_matmul(const xd_kernel_call* c) {
  return guard(c, [&] {
    const gemm_call call = make_gemm(c);
    const device_info& dev = device_of(c);
    const bool mma = dev.matmul_mma && (call.out->dtype == XD_DTYPE_F16 || call.out->dtype == XD_DTYPE_BF16);
    const bool async_f32 = dev.matmul_mma && call.out->dtype == XD_DTYPE_F32;
    const gemm_plan plan =
        plan_gemm(call.args, dev.work_group, std::min(dev.max_groups[1], dev.max_groups[2]), mma, async_f32,
                  mma && dev.matmul_packed, dev.matmul_wgmma, dev.compute_units, dev.matmul_tma);
    const program prog{"matmul", call.out->dtype};
    if (plan.nv_skinny) {
      run_skinny(c, call, prog, plan);
      return;
    }
    if (!plan.packed) {
      launch_gemm(c, call, prog, plan.entry, call.args, plan.local, plan.launches);
      return;
    }
    const gemm_args& g = call.args;
    if (plan.tma && run_tma(c, call, prog, plan)) return;
    // Without maps, calls below the packed kernels' sizes run unpacked, as the plan would have had it.
    if (g.m < kPackedMin || g.n < kPackedMin) {
      launch_gemm(c, call, prog, plan.unpacked_entry, g, plan.local, plan.launches);
      return;
    }
    const gemm_pack pk = pack_of(g);
    // The workspace is about the operands' size again; without it the unpacked kernel computes the
    // same bits.
    const std::optional<plugin::scratch> space = packed_workspace(c, pk.a_chunks + pk.b_chunks, pk.steps);
    if (!space) {
      launch_gemm(c, call, prog, plan.unpacked_entry, g, plan.local, plan.launches);
      return;
    }
    const plugin::scratch& ws = *space;
    const int64_t a0 = static_cast<int64_t>(ws.offset / 16), b0 = a0 + pk.a_chunks;
    const auto pack = [&](int64_t dst0, const xd_view& src, int64_t off, int64_t ld, int64_t bs, int64_t rows,
                          int64_t tiles, int64_t chunks, int32_t rows_k) {
      launch k(c, prog, plan.wgmma ? "xd_gemm_pack_wgmma" : "xd_gemm_pack_mma");
      k.buffer(ws.handle).value(dst0).buffer(src).value(off).value(ld).value(bs).value(rows).value(g.k);
      k.value(static_cast<int32_t>(tiles)).value(static_cast<int32_t>(pk.steps)).value(rows_k);
      if (plan.wgmma) k.value(static_cast<int32_t>(kPackImages));
      // xd_gemm_pack_mma: a work-group per 4 KiB image; xd_gemm_pack_wgmma: per kPackImages of one tile.
      const int64_t groups = plan.wgmma ? g.batch * tiles * ((pk.steps + kPackImages - 1) / kPackImages) : chunks / 256;
      k.run(grid::of_groups(static_cast<uint64_t>(groups), 256));
    };
    pack(a0, *call.a, g.a_off, g.a_m, g.a_b, g.m, pk.a_tiles, pk.a_chunks, 0);
    pack(b0, *call.b, g.b_off, plan.b_rows_k ? g.b_k : g.b_n, g.b_b, g.n, pk.b_tiles, pk.b_chunks,
         plan.b_rows_k ? 1 : 0);
    // The tensor-map plan's packed twin where its maps could not be made (run_tma).
    const char* entry = plan.tma ? "xd_gemm_wgmma_packed" : plan.entry;
    for (const gemm_launch& l : plan.launches) {
      launch k(c, prog, entry);
      k.buffer(*call.out).buffer(ws.handle).buffer(ws.handle).buffer(*call.input).value(g).value(l.row0);
      k.value(l.batch0).value(a0).value(b0);
      k.run(grid::of_groups(3, plan.local, l.groups));
    }
  });
}

}  // namespace xd::xpu
