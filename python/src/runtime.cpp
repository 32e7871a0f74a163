// Dtypes, devices, backends, the load report, generators, streams' synchronisation and memory
// statistics.
#include <xd/backend.hpp>
#include <xd/runtime.hpp>
#include <xd/version.hpp>

#include "common.hpp"

#include <pybind11/stl.h>
#include <string>

namespace xdpy {

namespace {

py::dict row_dict(const xd::LoadReportRow& r) {
  py::dict d;
  d["path"] = r.path;
  d["name"] = r.name;
  d["status"] = xd::load_status_name(r.status);
  d["reason"] = r.reason;
  d["abi"] = r.abi;
  d["version"] = r.version;
  d["family"] = r.family;
  py::list options;
  for (const auto& o : r.options) {
    py::dict od;
    od["name"] = o.name;
    od["kind"] = o.kind;
    od["accepted"] = o.accepted;
    od["default"] = o.default_value;
    od["doc"] = o.doc;
    options.append(od);
  }
  d["options"] = options;
  return d;
}

py::dict stats_dict(const xd::MemoryStats& s) {
  py::dict d;
  d["allocated"] = s.allocated;
  d["reserved"] = s.reserved;
  d["peak_allocated"] = s.peak_allocated;
  d["peak_reserved"] = s.peak_reserved;
  return d;
}

}  // namespace

void bind_runtime(py::module_& m) {
  // Dtypes: one class, its values also module attributes under PyTorch's names (xdispatch.float32).
  py::enum_<xd::Dtype> dtype(m, "dtype", "An element type; the values are module attributes (xdispatch.float32).");
  for (int i = 0; i < xd::kNumDtypes; ++i) {
    const auto d = static_cast<xd::Dtype>(i);
    dtype.value(torch_dtype_name(d), d);
    m.attr(torch_dtype_name(d)) = d;
  }
  // PyTorch's aliases.
  m.attr("float") = xd::Dtype::f32;
  m.attr("double") = xd::Dtype::f64;
  m.attr("half") = xd::Dtype::f16;
  m.attr("long") = xd::Dtype::i64;
  m.attr("int") = xd::Dtype::i32;
  // enum_ defines its own __repr__; replace it (not overload it) with PyTorch's spelling.
  dtype.attr("__repr__") = py::cpp_function([](xd::Dtype d) { return std::string("xdispatch.") + torch_dtype_name(d); },
                                            py::is_method(dtype));
  dtype.attr("__str__") = dtype.attr("__repr__");
  dtype.def_property_readonly("itemsize", [](xd::Dtype d) { return xd::itemsize(d); });
  dtype.def_property_readonly("is_floating_point", [](xd::Dtype d) { return xd::is_floating(d); });
  dtype.def_property_readonly(
      "short_name", [](xd::Dtype d) { return std::string(xd::dtype_name(d)); },
      "The C++ library's name (f32, bf16, ...).");

  py::class_<xd::Device>(m, "device", "A device of a loaded backend: xdispatch.device('opencl:0').")
      .def(py::init([](const std::string& spec) { return xd::Device::parse(spec); }), py::arg("spec"))
      .def(py::init([](const std::string& type, int index) {
             return xd::Device::parse(type + ":" + std::to_string(index));
           }),
           py::arg("type"), py::arg("index"))
      .def_property_readonly("type", [](const xd::Device& d) { return d.backend(); })
      .def_property_readonly("index", &xd::Device::index)
      .def_property_readonly("name", [](const xd::Device& d) { return d.properties().name; })
      .def_property_readonly("kind", [](const xd::Device& d) { return xd::device_kind_name(d.properties().kind); })
      .def_property_readonly("host_pointers", [](const xd::Device& d) { return d.properties().host_pointers; })
      .def("__str__", &xd::Device::str)
      .def("__repr__",
           [](const xd::Device& d) {
             return "device(type='" + d.backend() + "', index=" + std::to_string(d.index()) + ")";
           })
      .def("__eq__", [](const xd::Device& a, const xd::Device& b) { return a == b; })
      .def("__eq__", [](const xd::Device& a, const std::string& b) { return a == xd::Device::parse(b); })
      .def("__hash__", [](const xd::Device& d) { return (static_cast<int>(d.type()) << 16) ^ d.index(); });
  py::implicitly_convertible<py::str, xd::Device>();

  m.def("devices", &xd::devices, "Every visible device, in backend load order.");
  m.def("default_device", &xd::default_device, "The device XD_BACKEND selects (cpu when unset).");
  m.def("cpu", &xd::cpu, "The host CPU device.");
  m.def(
      "synchronize", [](py::handle device) { xd::synchronize(to_device(device)); }, py::arg("device") = py::none(),
      "Waits for every stream of the device the core created.");

  m.def(
      "backends",
      [] {
        py::list out;
        for (const auto& b : xd::backends()) {
          py::dict d;
          d["name"] = b.name;
          d["type"] = b.type;
          d["device_count"] = b.device_count;
          d["path"] = b.path;
          d["version"] = b.version;
          d["abi"] = b.abi;
          d["family"] = b.family;
          d["host_reference"] = b.host_reference;
          out.append(d);
        }
        return out;
      },
      "The loaded backends, one dict each.");
  m.def(
      "load_report",
      [] {
        py::list out;
        for (const auto& r : xd::load_report()) out.append(row_dict(r));
        return out;
      },
      "One dict per plugin candidate: path, name, status ('loaded', 'unavailable', ...), reason, ...");
  m.def("format_load_report", &xd::format_load_report);
  // Of the libxdispatch this module runs on (include/xd/version.hpp).
  m.attr("__version__") = xd::version();
  m.attr("plugin_abi_version") = xd::plugin_abi_version();
  m.attr("build_commit") = xd::build_commit();
  m.def(
      "load_plugin",
      [](const std::string& path) {
        xd::LoadReportRow row;
        {
          py::gil_scoped_release nogil;  // opening and initialising a plugin may take long
          row = xd::load_plugin(path);
        }
        return row_dict(row);
      },
      py::arg("path"), "Loads one more plugin file; returns its load-report row.");
  m.def("op_names", &xd::op_names);
  m.def("fallback_count", &xd::fallback_count);
  m.def("kernels", [] {
    py::list out;
    for (const auto& k : xd::kernels()) {
      py::dict d;
      d["op"] = k.op;
      d["backend"] = k.backend;
      d["dtype"] = k.dtype;
      d["name"] = k.name;
      d["priority"] = k.priority;
      d["calls"] = k.calls;
      out.append(d);
    }
    return out;
  });

  py::class_<xd::Generator>(m, "Generator", "A Philox random stream: the same seed gives the same numbers everywhere.")
      .def(py::init<uint64_t>(), py::arg("seed") = 67280421310721ull)
      .def(
          "manual_seed",
          [](xd::Generator& g, uint64_t seed) -> xd::Generator& {
            g.manual_seed(seed);
            return g;
          },
          py::arg("seed"), py::return_value_policy::reference_internal)
      .def("initial_seed", &xd::Generator::seed)
      .def_property_readonly("offset", &xd::Generator::offset);

  m.def("manual_seed", &xd::manual_seed, py::arg("seed"), "Seeds the default generator.");
  m.def(
      "memory_stats", [](py::handle d) { return stats_dict(xd::memory_stats(to_device(d))); },
      py::arg("device") = py::none());
  m.def(
      "empty_cache", [](py::handle d) { xd::empty_cache(to_device(d)); }, py::arg("device") = py::none());
}

}  // namespace xdpy
