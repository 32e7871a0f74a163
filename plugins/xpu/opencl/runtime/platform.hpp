// Platforms and devices: discovered once by xd_plugin_init, then read-only for the process.
// Every device of every platform (GPU, accelerator, CPU) becomes one xdispatch device; a context
// is shared by the devices of one platform. Order: GPUs, then accelerators, then CPUs, each in
// platform order, so that opencl:0 is the most capable device.
#pragma once

#include "common/launcher.hpp"
#include "runtime/cl.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xd::ocl {

class program_cache;

struct device {
  int32_t index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  std::string name, vendor, driver_version, device_version, platform_name, platform_version;
  int32_t kind = XD_DEVICE_KIND_GPU;    // xd_device_kind
  bool fp16 = false;                    // cl_khr_fp16: computes in half natively
  bool fp64 = false;                    // cl_khr_fp64 (or a double config)
  bool int_dot = false;                 // cl_khr_integer_dot_product (4x8-bit dot builtins)
  bool correctly_rounded_sqrt = false;  // CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT for float
  // An NVIDIA GPU of compute capability >= 8.0 (cl_nv_device_attribute_query): its OpenCL compiler
  // takes inline PTX, so int4.cl's tensor-core kernel is built (-DXD_NV_MMA).
  bool nv_mma = false;
  // An NVIDIA GPU of compute capability >= 7.0: work-group reductions fold each warp through
  // inline-PTX shuffles (common.cl, -DXD_NV_SHFL).
  bool nv_shfl = false;
  // An NVIDIA GPU of compute capability >= 9.0 (Hopper): the bulk copy engine and mbarriers with
  // transaction counts, which matmul_mma.cl's packed kernels use (-DXD_NV_BULK).
  bool nv_bulk = false;
  // An NVIDIA GPU of compute capability 9.x whose driver builds PTX rewritten for sm_90a (probed at
  // discovery: program_cache.hpp, wgmma_route), with XD_OPENCL_MATMUL_WGMMA on: matmul programs get matmul_wgmma.cl's
  // kernel (-DXD_NV_WGMMA) and the program cache's rewrite (program/wgmma_ptx.hpp). `wgmma_why`
  // says why not, or which probe passed.
  bool nv_wgmma = false;
  std::string wgmma_why = "not an NVIDIA GPU of compute capability 9.x";
  // matmul_dpas.cl's kernel (runtime/dpas.hpp: choose_dpas): the sub-group size it is built for (8
  // or 16; 0: not built), whether its builtins are emulated (XD_OPENCL_MATMUL_DPAS=emulate*), and
  // why, in words.
  int dpas_sub_group = 0;
  bool dpas_emulated = false;
  std::string dpas_why;
  uint64_t global_memory = 0;
  uint64_t max_alloc = 0;
  uint32_t compute_units = 0;
  size_t max_work_group = 0;
  // The disk cache holds compiled objects (linked at load) rather than executables: chosen for
  // CPU devices, whose runtimes compile every kernel to export an executable (program_cache.cpp).
  bool cache_objects = false;
  size_t work_group = 256;  // local size of the generic kernels (XD_WG): 256 or the device maximum
  // XD_ROW_ITEMS of softmax.cl/rms_norm.cl (common/rows.hpp: xpu::kRowItems, or xpu::kRowItemsCpu
  // on CPU devices, whose runtimes gain nothing from a register cache and compile the unrolled
  // loops slowly).
  int64_t row_items = 8;
  // What the shared launchers need of this device (launcher.cpp: launch_info).
  xpu::device_info launch;
  std::unique_ptr<program_cache> programs;
  // Events time with an empty kernel instead of a marker (runtime/stream.cpp), probed once.
  std::once_flag timing_once;
  bool kernel_timestamps = false;

  // A queue of the plugin's own, for work that belongs to no stream (mapping pinned memory).
  cl_command_queue aux_queue();

 private:
  std::once_flag aux_once_;
  cl_command_queue aux_queue_ = nullptr;
};

// Enumerates platforms and devices. Returns XD_OK, or XD_ERR_UNAVAILABLE with a reason when
// there is no OpenCL platform at all. Zero devices is not an error here (the host reports it).
xd_status discover(std::string& reason);

int32_t device_count();
// The device with this plugin index; throws plugin::error for an index out of range.
device& get_device(int32_t index);

// The queue properties every stream uses: in order, profiling on (events measure time).
cl_command_queue create_queue(const device& d);

}  // namespace xd::ocl
