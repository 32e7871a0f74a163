#include "runtime/platform.hpp"

#include "common/rows.hpp"
#include "launcher.hpp"
#include "options.hpp"
#include "program/program_cache.hpp"
#include "runtime/dpas.hpp"

#include <algorithm>

namespace xd::ocl {

namespace {

std::vector<std::unique_ptr<device>>& registry() {
  static auto* devices = new std::vector<std::unique_ptr<device>>();  // lives for the process
  return *devices;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <class V>
V device_value(cl_device_id d, cl_device_info what, V fallback) {
  V v{};
  return clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

// CL_DEVICE_SUB_GROUP_SIZES_INTEL (cl_intel_required_subgroup_size): empty where not reported.
std::vector<int64_t> sub_group_sizes(cl_device_id d, const std::string& extensions) {
  if (!has_extension(extensions, "cl_intel_required_subgroup_size")) return {};
  constexpr cl_device_info kSubGroupSizesIntel = 0x4108;  // CL_DEVICE_SUB_GROUP_SIZES_INTEL (cl_ext.h)
  size_t bytes = 0;
  if (clGetDeviceInfo(d, kSubGroupSizesIntel, 0, nullptr, &bytes) != CL_SUCCESS || bytes == 0) return {};
  std::vector<size_t> sizes(bytes / sizeof(size_t));
  if (clGetDeviceInfo(d, kSubGroupSizesIntel, sizes.size() * sizeof(size_t), sizes.data(), nullptr) != CL_SUCCESS)
    return {};
  return {sizes.begin(), sizes.end()};
}

int rank_of(int32_t kind) { return kind == XD_DEVICE_KIND_GPU ? 0 : kind == XD_DEVICE_KIND_ACCELERATOR ? 1 : 2; }

std::unique_ptr<device> describe(cl_platform_id p, cl_device_id id) {
  auto d = std::make_unique<device>();
  d->platform = p;
  d->id = id;
  d->name = device_string(id, CL_DEVICE_NAME);
  d->vendor = device_string(id, CL_DEVICE_VENDOR);
  d->driver_version = device_string(id, CL_DRIVER_VERSION);
  d->device_version = device_string(id, CL_DEVICE_VERSION);
  d->platform_name = platform_string(p, CL_PLATFORM_NAME);
  d->platform_version = platform_string(p, CL_PLATFORM_VERSION);
  const auto type = device_value<cl_device_type>(id, CL_DEVICE_TYPE, CL_DEVICE_TYPE_GPU);
  d->kind = (type & CL_DEVICE_TYPE_GPU)           ? XD_DEVICE_KIND_GPU
            : (type & CL_DEVICE_TYPE_ACCELERATOR) ? XD_DEVICE_KIND_ACCELERATOR
            : (type & CL_DEVICE_TYPE_CPU)         ? XD_DEVICE_KIND_CPU
                                                  : XD_DEVICE_KIND_ACCELERATOR;
  const std::string ext = device_string(id, CL_DEVICE_EXTENSIONS);
  d->fp16 = has_extension(ext, "cl_khr_fp16");
  d->int_dot = has_extension(ext, "cl_khr_integer_dot_product");
  d->fp64 =
      has_extension(ext, "cl_khr_fp64") || device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG, 0) != 0;
  d->correctly_rounded_sqrt =
      (device_value<cl_device_fp_config>(id, CL_DEVICE_SINGLE_FP_CONFIG, 0) & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  if (has_extension(ext, "cl_nv_device_attribute_query")) {
    constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;  // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV
    const cl_uint major = device_value<cl_uint>(id, kComputeCapabilityMajorNv, 0);
    d->nv_mma = major >= 8;
    d->nv_shfl = major >= 7;
    d->nv_bulk = major >= 9;
    d->nv_wgmma = major == 9;  // a candidate: discover() probes the route (program_cache.hpp: wgmma_route)
    if (!d->nv_wgmma) d->wgmma_why = "compute capability " + std::to_string(major) + ".x (wgmma is 9.x's)";
  }
  d->global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE, 0);
  d->max_alloc = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
  d->compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS, 1);
  d->max_work_group = device_value<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, 1);
  // The generic kernels use one fixed local size (a power of two), so each compiles once even on
  // PoCL, which specialises kernels per local size.
  size_t wg = 1;
  while (wg * 2 <= std::min<size_t>(256, d->max_work_group)) wg *= 2;
  d->work_group = wg;
  static const std::string dpas_option = plugin::option_text(option_desc(option::matmul_dpas));
  const std::vector<int64_t> sizes = sub_group_sizes(id, ext);
  const dpas_choice dpas = choose_dpas(dpas_option, ext, sizes, static_cast<int64_t>(d->max_work_group));
  d->dpas_sub_group = dpas.sub_group;
  d->dpas_emulated = dpas.emulated;
  d->dpas_why = dpas.why;
  log(XD_LOG_DEBUG,
      "'" + d->name + "': matmul DPAS kernel " + (dpas.sub_group != 0 ? "built: " : "not built: ") + dpas.why);
  d->row_items = d->kind == XD_DEVICE_KIND_CPU ? xpu::kRowItemsCpu : xpu::kRowItems;
  d->cache_objects = d->kind == XD_DEVICE_KIND_CPU && device_value<cl_bool>(id, CL_DEVICE_LINKER_AVAILABLE, CL_FALSE);
  d->launch = launch_info(*d);
  return d;
}

}  // namespace

cl_command_queue device::aux_queue() {
  std::call_once(aux_once_, [this] { aux_queue_ = create_queue(*this); });
  return aux_queue_;
}

cl_command_queue create_queue(const device& d) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(d.context, d.id, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue on " + d.name);
  return q;
}

xd_status discover(std::string& reason) {
  cl_uint n_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &n_platforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && n_platforms == 0)) {
    reason = "no OpenCL platform (the ICD loader found no vendor driver; check /etc/OpenCL/vendors or OCL_ICD_VENDORS)";
    return XD_ERR_UNAVAILABLE;
  }
  if (err != CL_SUCCESS) {
    reason = "no OpenCL platform (clGetPlatformIDs failed: " + cl_error_string(err) + ")";
    return XD_ERR_UNAVAILABLE;
  }
  std::vector<cl_platform_id> platforms(n_platforms);
  check(clGetPlatformIDs(n_platforms, platforms.data(), nullptr), "clGetPlatformIDs");

  std::vector<std::unique_ptr<device>> found;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
    if (err == CL_DEVICE_NOT_FOUND || n == 0) continue;
    if (err != CL_SUCCESS) {
      log(XD_LOG_WARN, "skipping platform '" + platform_string(p, CL_PLATFORM_NAME) +
                           "': clGetDeviceIDs failed: " + cl_error_string(err));
      continue;
    }
    std::vector<cl_device_id> ids(n);
    check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(p), 0};
    cl_context ctx = clCreateContext(props, n, ids.data(), nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      log(XD_LOG_WARN, "skipping platform '" + platform_string(p, CL_PLATFORM_NAME) +
                           "': clCreateContext failed: " + cl_error_string(err));
      continue;
    }
    for (cl_device_id id : ids) {
      auto d = describe(p, id);
      d->context = ctx;
      if (d->nv_wgmma) {
        static const bool enabled = plugin::option_flag(option_desc(option::matmul_wgmma));
        d->nv_wgmma = enabled && wgmma_route(*d, d->wgmma_why);
        if (!enabled) d->wgmma_why = "XD_OPENCL_MATMUL_WGMMA=0";
        d->launch = launch_info(*d);
      }
      log(XD_LOG_DEBUG,
          "'" + d->name + "': matmul wgmma kernel " + (d->nv_wgmma ? "built: " : "not built: ") + d->wgmma_why);
      log(XD_LOG_DEBUG, "found device '" + d->name + "' (" + d->platform_name + ", driver " + d->driver_version + ")");
      found.push_back(std::move(d));
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return rank_of(a->kind) < rank_of(b->kind); });
  auto& devices = registry();
  for (auto& d : found) {
    d->index = static_cast<int32_t>(devices.size());
    d->programs = std::make_unique<program_cache>(*d);
    devices.push_back(std::move(d));
  }
  return XD_OK;
}

int32_t device_count() { return static_cast<int32_t>(registry().size()); }

device& get_device(int32_t index) {
  auto& devices = registry();
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    throw plugin::error(XD_ERR_INVALID_ARGUMENT, "opencl: device index " + std::to_string(index) + " out of range (" +
                                                     std::to_string(devices.size()) + " devices)");
  return *devices[static_cast<size_t>(index)];
}

}  // namespace xd::ocl
