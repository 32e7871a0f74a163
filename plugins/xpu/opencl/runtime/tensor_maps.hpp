// Hopper's tensor maps (the descriptors of cp.async.bulk.tensor) for the OpenCL plugin: only the
// CUDA driver encodes them (cuTensorMapEncodeTiled), so where an NVIDIA device of compute
// capability 9.x runs under NVIDIA's OpenCL, libcuda.so.1 is opened at the first use and its
// encoder called with the first CUDA device's primary context current on the calling thread (the
// encoder requires a current context; what it writes is the shape, strides, box and swizzle around
// a unified virtual address, which OpenCL's own context on any of the process's devices reads the
// same). The first call initialises the CUDA driver and retains that primary context (device
// memory and start-up time, paid once per process by the plugin's start on such a device;
// XD_OPENCL_MATMUL_TMA=0 avoids it). No CUDA header or library is needed to build the plugin.
//
// Thread safety: any thread; the driver is opened once. Errors: none thrown; a map that cannot be
// encoded is reported as false, and the caller takes a route without tensor maps.
#pragma once

#include "common/launcher.hpp"

#include <string>

namespace xd::ocl {

// Whether the CUDA driver's encoder is reachable in this process (opened on the first call);
// `why` says why not when it is not.
bool tensor_maps_available(std::string* why = nullptr);

// Encodes `spec` for a placeholder address (xd_gemm_tma_maps sets the operand's on the device);
// false where the driver is unreachable or refuses the spec.
bool encode_tensor_map(const xpu::tensor_map_spec& spec, xpu::tensor_map& out);

}  // namespace xd::ocl
