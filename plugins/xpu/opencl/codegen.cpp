#include "codegen.hpp"

#include "program/program_cache.hpp"
#include "program/sources.hpp"
#include "runtime/platform.hpp"
#include "runtime/stream.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace xd::ocl {

namespace {

constexpr uint32_t kVectorWidth = 4;            // common.cl's XD_VEC
constexpr cl_device_info kWarpSizeNv = 0x4003;  // CL_DEVICE_WARP_SIZE_NV (cl_nv_device_attribute_query)
constexpr size_t kMinTargetSize = offsetof(xd_codegen_target, prelude) + sizeof(const char*);

// What target() answers for one device, built once: the strings must outlive the call.
struct target_info {
  std::string prelude;
  std::string compiler;
  xd_codegen_target target{};
};

struct generated_kernel {
  std::mutex mutex;  // held from the first clSetKernelArg to the enqueue
  cl_kernel kernel = nullptr;
  std::string name;
  int32_t device = 0;
  cl_uint num_args = 0;
};

struct generated_program {
  int32_t device = 0;
  cl_program program = nullptr;  // owned by the device's program cache
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<generated_kernel>> kernels;
};

// Everything the table hands out, for the process (the plugin is never unloaded).
struct codegen_state {
  std::mutex mutex;
  std::map<int32_t, std::unique_ptr<target_info>> targets;
  std::map<std::pair<int32_t, cl_program>, std::unique_ptr<generated_program>> programs;
};

codegen_state& state() {
  static auto* s = new codegen_state();
  return *s;
}

void check_language(int32_t language) {
  if (language == XD_CODEGEN_CPP)
    plugin::fail(XD_ERR_UNAVAILABLE, "codegen: the OpenCL backend builds OpenCL C only, not C++");
  if (language != XD_CODEGEN_OPENCL_C)
    plugin::invalid("codegen: unknown language " + std::to_string(language) +
                    " (expected XD_CODEGEN_OPENCL_C = " + std::to_string(XD_CODEGEN_OPENCL_C) + ")");
}

// The defines a generated source needs as text (it is built with no -D option, unlike the
// hand-written programs: program_cache::build_options), then the two prelude files.
std::string prelude_of(const device& d) {
  std::string p = "// xdispatch OpenCL C prelude (docs/compiler.md)\n";
  if (d.fp64) p += "#define XD_HAS_FP64 1\n";
  // The f16 conversions and reductions through inline PTX, as the hand-written programs get them.
  if (d.nv_shfl) p += "#define XD_NV_SHFL 1\n";
  for (const char* name : {"common", "codegen"}) {
    const std::string_view text = kernel_source(name);
    if (text.empty()) plugin::fail(XD_ERR_INTERNAL, std::string("kernels/") + name + ".cl is missing from the plugin");
    p.append(text);
    if (p.back() != '\n') p += '\n';
  }
  return p;
}

uint32_t sub_group_of(const device& d) {
  cl_uint warp = 0;
  if (clGetDeviceInfo(d.id, kWarpSizeNv, sizeof warp, &warp, nullptr) != CL_SUCCESS) return 0;
  return warp;
}

const target_info& target_of(int32_t index) {
  const device& d = get_device(index);
  codegen_state& s = state();
  const std::lock_guard lock(s.mutex);
  auto& slot = s.targets[index];
  if (!slot) {
    auto t = std::make_unique<target_info>();
    t->prelude = prelude_of(d);
    t->compiler = d.platform_name + " " + d.platform_version + ", driver " + d.driver_version + ", " + d.name;
    xd_codegen_target& o = t->target;
    o.struct_size = sizeof o;
    o.prelude = t->prelude.c_str();
    o.compiler = t->compiler.c_str();
    o.work_group = static_cast<uint32_t>(d.work_group);  // 256, or the device's largest power of two below
    o.vector_width = kVectorWidth;
    o.sub_group = sub_group_of(d);
    o.flags = (d.fp64 ? uint32_t{XD_CODEGEN_FLAG_F64} : 0u) | (d.nv_shfl ? uint32_t{XD_CODEGEN_FLAG_FAST_F16} : 0u);
    o.max_groups = 0;
    slot = std::move(t);
  }
  return *slot;
}

xd_status api_target(void*, int32_t index, int32_t language, xd_codegen_target* out) {
  return plugin::guarded(host(), [&] {
    check_language(language);
    if (out == nullptr || out->struct_size < kMinTargetSize)
      plugin::invalid("codegen target: out is null or its struct_size is smaller than a prelude's");
    plugin::copy_sized(out, target_of(index).target);
  });
}

xd_status api_program_build(void*, int32_t index, int32_t language, const char* source, xd_program* out) {
  return plugin::guarded(host(), [&] {
    check_language(language);
    if (source == nullptr || *source == '\0' || out == nullptr)
      plugin::invalid("codegen program_build: the source is null or empty, or out is null");
    device& d = get_device(index);
    const cl_program p = d.programs->generated(source);
    codegen_state& s = state();
    const std::lock_guard lock(s.mutex);
    auto& slot = s.programs[{index, p}];
    if (!slot) {
      slot = std::make_unique<generated_program>();
      slot->device = index;
      slot->program = p;
    }
    *out = slot.get();
  });
}

xd_status api_kernel_get(void*, int32_t index, xd_program program, const char* name, xd_codegen_kernel* out) {
  return plugin::guarded(host(), [&] {
    const device& d = get_device(index);
    if (program == nullptr || name == nullptr || out == nullptr)
      plugin::invalid("codegen kernel_get: program, name or out is null");
    auto& p = *static_cast<generated_program*>(program);
    if (p.device != index)
      plugin::invalid("codegen kernel_get: the program was built for device " + std::to_string(p.device) +
                      ", not device " + std::to_string(index));
    const std::lock_guard lock(p.mutex);
    auto& slot = p.kernels[name];
    if (!slot) {
      cl_int err = CL_SUCCESS;
      cl_kernel k = clCreateKernel(p.program, name, &err);
      if (err != CL_SUCCESS) {
        p.kernels.erase(name);
        if (err == CL_INVALID_KERNEL_NAME)
          plugin::invalid(std::string("codegen kernel_get: the program has no kernel '") + name + "' (" + d.name + ")");
        throw_cl(err, std::string("clCreateKernel(") + name + ") of a generated program on " + d.name);
      }
      auto g = std::make_unique<generated_kernel>();
      g->kernel = k;
      g->name = name;
      g->device = index;
      check(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof g->num_args, &g->num_args, nullptr),
            "clGetKernelInfo(NUM_ARGS)");
      slot = std::move(g);
    }
    *out = slot.get();
  });
}

// The NDRange of `grid`, checked so that a bad grid is a message, not CL_INVALID_WORK_GROUP_SIZE.
// False when it has no work-item (nothing to enqueue).
bool ndrange_of(const device& d, const generated_kernel& k, const xd_codegen_grid& g, size_t global[3],
                size_t local[3]) {
  const std::string what = "codegen kernel_launch(" + k.name + "): ";
  if (g.dims < 1 || g.dims > 3) plugin::invalid(what + "grid dims " + std::to_string(g.dims) + " is not 1, 2 or 3");
  uint64_t group = 1;
  bool empty = false;
  for (uint32_t i = 0; i < g.dims; ++i) {
    const std::string dim = "[" + std::to_string(i) + "]";
    if (g.local[i] == 0) plugin::invalid(what + "local" + dim + " is 0");
    if (g.global[i] % g.local[i] != 0)
      plugin::invalid(what + "global" + dim + " = " + std::to_string(g.global[i]) + " is not a multiple of local" +
                      dim + " = " + std::to_string(g.local[i]) + " (round it up; the kernel returns past its work)");
    group *= g.local[i];
    empty = empty || g.global[i] == 0;
    global[i] = static_cast<size_t>(g.global[i]);
    local[i] = static_cast<size_t>(g.local[i]);
  }
  if (group > d.max_work_group)
    plugin::invalid(what + "a work-group of " + std::to_string(group) + " work-items exceeds " + d.name +
                    "'s maximum of " + std::to_string(d.max_work_group));
  return !empty;
}

void set_args(const generated_kernel& k, const xd_codegen_arg* args, int32_t num_args) {
  for (int32_t i = 0; i < num_args; ++i) {
    const xd_codegen_arg& a = args[i];
    const std::string what = "codegen kernel_launch(" + k.name + "): argument " + std::to_string(i);
    cl_int err = CL_SUCCESS;
    if (a.kind == XD_CODEGEN_ARG_BUFFER) {
      const auto mem = static_cast<cl_mem>(const_cast<void*>(a.value));
      err = clSetKernelArg(k.kernel, static_cast<cl_uint>(i), sizeof(cl_mem), &mem);
    } else if (a.kind == XD_CODEGEN_ARG_VALUE) {
      if (a.size == 0 || a.value == nullptr) plugin::invalid(what + ": a VALUE needs a size and its bytes");
      err = clSetKernelArg(k.kernel, static_cast<cl_uint>(i), a.size, a.value);
    } else {
      plugin::invalid(what + " has kind " + std::to_string(a.kind) + " (neither BUFFER nor VALUE)");
    }
    if (err == CL_INVALID_ARG_SIZE) plugin::invalid(what + ": " + std::to_string(a.size) + " bytes is not its size");
    if (err != CL_SUCCESS) throw_cl(err, "clSetKernelArg(" + k.name + ", " + std::to_string(i) + ")");
  }
}

xd_status api_kernel_launch(void*, int32_t index, xd_stream stream, xd_codegen_kernel kernel,
                            const xd_codegen_arg* args, int32_t num_args, const xd_codegen_grid* grid) {
  return plugin::guarded(host(), [&] {
    device& d = get_device(index);
    if (kernel == nullptr || grid == nullptr || num_args < 0 || (num_args > 0 && args == nullptr))
      plugin::invalid("codegen kernel_launch: kernel, grid or args is null, or num_args is negative");
    auto& k = *static_cast<generated_kernel*>(kernel);
    if (k.device != index)
      plugin::invalid("codegen kernel_launch(" + k.name + "): the kernel belongs to device " +
                      std::to_string(k.device) + ", not device " + std::to_string(index));
    if (static_cast<cl_uint>(num_args) != k.num_args)
      plugin::invalid("codegen kernel_launch(" + k.name + "): " + std::to_string(num_args) +
                      " arguments given, the kernel takes " + std::to_string(k.num_args));
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    if (!ndrange_of(d, k, *grid, global, local)) return;
    const std::lock_guard lock(k.mutex);
    set_args(k, args, num_args);
    const cl_command_queue queue = submit_queue(index, stream);
    const cl_int err = clEnqueueNDRangeKernel(queue, k.kernel, grid->dims, nullptr, global, local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw_cl(err, "clEnqueueNDRangeKernel(" + k.name + ") on " + d.name);
    // Submit now: an in-order queue may otherwise hold work until the next flush or finish.
    clFlush(queue);
  });
}

const xd_codegen_api kTable = {sizeof(xd_codegen_api), XD_CODEGEN_OPENCL_C, api_target,
                               api_program_build,      api_kernel_get,      api_kernel_launch};

}  // namespace

void fill_codegen_api(xd_plugin_api& api) {
  api.codegen_languages = kTable.languages;
  api.codegen = &kTable;
}

}  // namespace xd::ocl
