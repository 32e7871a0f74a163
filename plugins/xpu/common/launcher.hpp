// The launcher interface between the XPU ops (written once, in this folder) and the two APIs that
// run them: opencl/ and levelzero/ each implement `xpu::api` (opencl/launcher.cpp,
// levelzero/launcher.cpp), and nothing else of theirs is seen here. A launch is a kernel of one
// program (kernels/<source>.cl built for a dtype), its arguments in the .cl kernel's order, and a
// grid; the API resolves the program, binds the arguments and enqueues on the call's stream.
//
// Buffers travel as the allocation's handle (a cl_mem or a USM pointer: pointer-sized either
// way); offsets travel as arguments (element offsets in layouts and argument structs), so both
// APIs pass every argument the same way: a size and the bytes of its value.
//
// Thread safety: launches may run concurrently from several threads; the API serialises what its
// runtime requires (OpenCL: a pooled cl_kernel per launch; Level Zero: a lock per kernel object).
// Errors: plugin::error (the plugin's name in front), turned into a status by the kernel's guard.
#pragma once

#include <xd/plugin.hpp>

#include "int4.hpp"      // int4_tuning, the int4 kernels' shape a device may tune
#include "rms_norm.hpp"  // kRmsBackwardGroupsPerCu

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace xd::xpu {

// What a launcher needs to know of the call's device; the API fills it once per device.
struct device_info {
  const char* name = "";
  const char* fp64_feature = "";  // what the device lacks when it has no f64: "cl_khr_fp64", ...
  bool fp64 = false;
  int64_t compute_units = 1;
  // The work-group size the programs were built for (-DXD_WG): the size of every kernel written
  // for a work-group (reductions, rows, gemm tiles).
  int64_t work_group = 256;
  // The largest work-group a kernel without a compiled size may take (the CSR kernels).
  int64_t max_work_group = 256;
  // -DXD_ROW_ITEMS of softmax.cl and rms_norm.cl: a row cached in registers is XD_WG*4*items long.
  int64_t row_items = 8;
  // The most work-groups one launch may have along each dim (larger grids are cut into launches).
  int64_t max_groups[3] = {INT64_MAX, 65535, 65535};
  // int4.cl's NVIDIA tensor-core kernels are built for this device (-DXD_NV_MMA) and enabled.
  bool int4_mma = false;
  // matmul_mma.cl's and quant_mm_mma.cl's NVIDIA kernels are built for this device and enabled.
  bool matmul_mma = false;
  // ... and their packed form (xd_gemm_mma_packed_*: bulk copies, Hopper) is enabled.
  bool matmul_packed = false;
  // ... and takes Hopper's wgmma instead of mma.sync there (xd_gemm_wgmma_packed, matmul_wgmma.cl).
  bool matmul_wgmma = false;
  // ... and, where the API encodes tensor maps (api::encode_tensor_map), reads the operands where they
  // are by tensor-map copies instead of packing them (xd_gemm_wgmma_tma).
  bool matmul_tma = false;
  // matmul_dpas.cl's kernel (cl_intel_subgroup_matrix_multiply_accumulate) is built for this device
  // with this sub-group size: 8 or 16 (the extension's two operand layouts); 0: it is not.
  int matmul_dpas_sg = 0;
  // ... with the extension's builtins emulated in OpenCL C (-DXD_DPAS_EMULATE): a test mode that a
  // plugin enables only when asked to (XD_OPENCL_MATMUL_DPAS=emulate8 / emulate16).
  bool matmul_dpas_emulated = false;
  // Why the DPAS kernel is or is not built here, in words (the decline message quotes it); lives as
  // long as the device.
  const char* matmul_dpas_why = "";
  int4_tuning int4;
  // Work-groups per compute unit of rms_norm_backward when the weight gradient is wanted.
  int64_t rms_backward_groups_per_cu = kRmsBackwardGroupsPerCu;
};

// A program: kernels/<source>.cl (after the common.cl prelude) built for `dtype`, and for a second
// dtype `wtype` where the source is keyed on two (rms_norm.cl: the weight's; -1 elsewhere).
struct program {
  const char* source;
  int32_t dtype;
  int32_t wtype = -1;
};

// A tensor map for Hopper's tensor-map copies (cp.async.bulk.tensor), as the CUDA driver encodes
// one: 3 dims of a 16-bit operand, innermost first (elements), the strides of dims 1 and 2 in bytes
// (multiples of 16), a box of elements copied per copy, and the swizzle of the box in local memory
// (64 or 128 bytes). Encoded for a placeholder address: the kernel that uses the map sets the
// operand's (xd_gemm_tma_maps).
struct tensor_map_spec {
  bool bf16 = true;  // else f16
  uint64_t dims[3] = {};
  uint64_t strides[2] = {};
  uint32_t box[3] = {};
  int swizzle_bytes = 64;
};
struct tensor_map {
  uint64_t bits[16] = {};  // CUtensorMap: 128 bytes, opaque
};

// One argument of a launch: `size` bytes at `value`, or a __local buffer of `size` bytes when
// `value` is null.
struct kernel_arg {
  size_t size;
  const void* value;
};

// How many work-items run. `items`: that many along one dim, in work-groups whose size the API
// chooses (kernels that take any group size); `groups`: count[d] work-groups of local[d]
// work-items (kernels written for a group size). Nothing runs when any count is 0.
struct grid {
  bool by_groups = false;
  uint32_t dims = 1;
  uint64_t items = 0;
  uint32_t local[3] = {1, 1, 1};
  uint64_t count[3] = {1, 1, 1};

  static grid of_items(uint64_t n);
  static grid of_groups(uint64_t n, int64_t group_size);
  static grid of_groups(uint32_t dims, const int64_t local[3], const int64_t count[3]);
  bool empty() const;
};

// What each XPU API implements. The plugin hands its instance to the host as xd_plugin_api.ctx,
// which every kernel call carries (xd_kernel_call.plugin_ctx).
class api {
 public:
  virtual ~api() = default;
  // How many devices the plugin exposes (indices 0 .. count - 1).
  virtual int32_t device_count() const = 0;
  // The device with this plugin index; throws plugin::error for one out of range.
  virtual const device_info& device(int32_t index) const = 0;
  // Builds or finds the program, binds `args` in order and enqueues `entry` over `g` on the
  // call's stream, returning once it is submitted.
  virtual void enqueue(const xd_kernel_call* c, const program& p, const char* entry, std::span<const kernel_arg> args,
                       const grid& g) = 0;
  // Encodes `spec` into `out` for device `index` (device_info.matmul_tma says whether it can);
  // false, with `out` untouched, where it cannot: an API without tensor maps (the default), or a
  // spec the driver refuses (the caller then takes a route without them).
  virtual bool encode_tensor_map(int32_t index, const tensor_map_spec& spec, tensor_map& out) const {
    (void)index, (void)spec, (void)out;
    return false;
  }
};

api& api_of(const xd_kernel_call* c);
const device_info& device_of(const xd_kernel_call* c);

// The check every XPU kernel registers (kernel_list.cpp): declines a call with an f64 view on a
// device without f64 (its programs hold no double code), saying so.
int32_t check_device(const xd_kernel_call* c, char* reason, size_t reason_size);

// Runs a kernel body; exceptions become a status plus a message through the host.
template <class F>
xd_status guard(const xd_kernel_call* c, F&& body) noexcept {
  return plugin::guarded(c->host, std::forward<F>(body));
}

// One launch being put together: arguments appended in the kernel's order, then run().
class launch {
 public:
  launch(const xd_kernel_call* c, const program& p, const char* entry) : c_(c), program_(p), entry_(entry) {}
  launch(const launch&) = delete;
  launch& operator=(const launch&) = delete;

  // The view's allocation; its offset travels in a layout or argument struct.
  launch& buffer(const xd_view& v);
  launch& buffer(void* handle);
  template <class T>
  launch& value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>, "a plain value (buffers: buffer())");
    return append(&v, sizeof v);
  }
  launch& local_bytes(size_t n);

  void run(const grid& g);
  void run_items(uint64_t n) { run(grid::of_items(n)); }
  // `n` work-groups of the device's compiled work-group size.
  void run_groups(uint64_t n);

 private:
  launch& append(const void* v, size_t size);

  static constexpr size_t kMaxArgs = 16;
  static constexpr size_t kMaxBytes = 2048;
  const xd_kernel_call* c_;
  program program_;
  const char* entry_;
  std::array<kernel_arg, kMaxArgs> args_{};
  std::array<size_t, kMaxArgs> at_{};  // offset of each value in bytes_
  size_t count_ = 0;
  alignas(16) unsigned char bytes_[kMaxBytes];
  size_t used_ = 0;
};

}  // namespace xd::xpu
