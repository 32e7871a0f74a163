#include "launcher.hpp"

#include "options.hpp"
#include "program/program_cache.hpp"
#include "runtime/platform.hpp"
#include "runtime/stream.hpp"
#include "runtime/tensor_maps.hpp"

#include <string>

namespace xd::ocl {

namespace {

// NVIDIA's OpenCL maps work-group dims 1 and 2 onto a CUDA grid, whose y and z hold 65535 blocks;
// the same bound holds every other device's grid as well.
constexpr int64_t kMaxGridYZ = 65535;

class opencl_api final : public xpu::api {
 public:
  int32_t device_count() const override { return ocl::device_count(); }
  const xpu::device_info& device(int32_t index) const override { return get_device(index).launch; }
  bool encode_tensor_map(int32_t index, const xpu::tensor_map_spec& spec, xpu::tensor_map& out) const override {
    return get_device(index).launch.matmul_tma && ocl::encode_tensor_map(spec, out);
  }

  void enqueue(const xd_kernel_call* c, const xpu::program& p, const char* entry, std::span<const xpu::kernel_arg> args,
               const xpu::grid& g) override {
    ocl::device& dev = get_device(c->device);
    const cl_command_queue queue = submit_queue(c->device, c->stream);
    const program_cache::kernel_handle k = dev.programs->kernel(p, entry);
    for (size_t i = 0; i < args.size(); ++i) {
      const cl_int err = clSetKernelArg(k.get(), static_cast<cl_uint>(i), args[i].size, args[i].value);
      if (err != CL_SUCCESS) throw_cl(err, std::string("clSetKernelArg(") + entry + ", " + std::to_string(i) + ")");
    }
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    cl_uint dims = g.dims;
    if (g.by_groups) {
      for (cl_uint d = 0; d < dims; ++d) {
        local[d] = g.local[d];
        global[d] = static_cast<size_t>(g.count[d]) * g.local[d];
      }
    } else {
      // Any group size works: the device's own (the size the programs were built for).
      dims = 1;
      local[0] = dev.work_group;
      global[0] = (static_cast<size_t>(g.items) + local[0] - 1) / local[0] * local[0];
    }
    const cl_int err = clEnqueueNDRangeKernel(queue, k.get(), dims, nullptr, global, local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw_cl(err, std::string("clEnqueueNDRangeKernel(") + entry + ") on " + dev.name);
    // Submit now: an in-order queue may otherwise hold work until the next flush or finish.
    clFlush(queue);
  }
};

}  // namespace

xpu::device_info launch_info(const device& d) {
  // Read once, when the first device is described (the plugin's init).
  static const bool int4_mma = plugin::option_flag(option_desc(option::int4_mma));
  static const bool matmul_mma = plugin::option_flag(option_desc(option::matmul_mma));
  static const bool matmul_packed = plugin::option_flag(option_desc(option::matmul_packed));
  static const bool matmul_tma = plugin::option_flag(option_desc(option::matmul_tma));
  static const plugin::option_value tuning = plugin::read_option(option_desc(option::int4_tuning));
  static const int64_t rms_groups = plugin::option_integer(option_desc(option::rms_backward_groups));
  xpu::device_info i;
  i.name = d.name.c_str();
  i.fp64_feature = "cl_khr_fp64";
  i.fp64 = d.fp64;
  i.compute_units = d.compute_units;
  i.work_group = static_cast<int64_t>(d.work_group);
  i.max_work_group = static_cast<int64_t>(d.work_group);
  i.row_items = d.row_items;
  i.max_groups[1] = i.max_groups[2] = kMaxGridYZ;
  i.int4_mma = d.nv_mma && int4_mma;
  i.matmul_mma = d.nv_mma && matmul_mma;
  i.matmul_packed = d.nv_bulk && matmul_mma && matmul_packed;
  i.matmul_wgmma = i.matmul_packed && d.nv_wgmma;
  // Only where wgmma runs: then libcuda is this process's driver as well, opened at the first ask.
  i.matmul_tma = i.matmul_wgmma && matmul_tma && tensor_maps_available();
  i.matmul_dpas_sg = d.dpas_sub_group;
  i.matmul_dpas_emulated = d.dpas_emulated;
  i.matmul_dpas_why = d.dpas_why.c_str();
  i.int4 = {tuning.integers[0], tuning.integers[1], tuning.integers[2], tuning.integers[3]};
  i.rms_backward_groups_per_cu = rms_groups;
  return i;
}

xpu::api& launch_api() {
  static opencl_api api;
  return api;
}

}  // namespace xd::ocl
