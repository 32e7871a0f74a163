// xd::Error and its subclasses as Python exceptions: xdispatch.Error(RuntimeError) and one class
// per C++ class, the ones whose meaning matches a built-in also deriving from it, so that
// `except IndexError` catches xdispatch.IndexError as it would catch the built-in.
#include <xd/error.hpp>

#include "common.hpp"

#include <Python.h>

namespace xdpy {

namespace {

struct Classes {
  PyObject* error = nullptr;
  PyObject* shape = nullptr;
  PyObject* dtype = nullptr;
  PyObject* device = nullptr;
  PyObject* backend = nullptr;
  PyObject* index = nullptr;
  PyObject* value = nullptr;
  PyObject* layout = nullptr;
  PyObject* oom = nullptr;
  PyObject* not_implemented = nullptr;
  PyObject* plugin = nullptr;
  PyObject* compile = nullptr;
};
// Owned by the module (added as attributes); live while the module does.
Classes g_classes;

PyObject* make(py::module_& m, const char* name, std::initializer_list<PyObject*> bases, const char* doc) {
  py::tuple b(bases.size());
  size_t i = 0;
  for (PyObject* base : bases) b[i++] = py::reinterpret_borrow<py::object>(base);
  const std::string qualified = std::string("xdispatch.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, b.ptr(), nullptr);
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(cls));
  Py_DECREF(cls);  // the module's attribute keeps it
  return cls;
}

}  // namespace

void bind_errors(py::module_& m) {
  Classes& c = g_classes;
  c.error = make(m, "Error", {PyExc_RuntimeError}, "Base of every xdispatch error (xd::Error).");
  c.shape = make(m, "ShapeError", {c.error}, "Sizes that do not fit together (xd::ShapeError).");
  c.dtype =
      make(m, "DtypeError", {c.error, PyExc_TypeError}, "An element type the op does not accept (xd::DtypeError).");
  c.device = make(m, "DeviceError", {c.error}, "Tensors on different devices, a device that does not exist.");
  c.backend = make(m, "BackendError", {c.device}, "A backend that is unknown or unavailable (embeds the load report).");
  c.index = make(m, "IndexError", {c.error, PyExc_IndexError}, "A dim or index out of range (xd::IndexError).");
  c.value = make(m, "ValueError", {c.error, PyExc_ValueError}, "A bad argument value (xd::ValueError).");
  c.layout = make(m, "LayoutError", {c.error}, "A layout the op cannot take (xd::LayoutError).");
  c.oom = make(m, "OutOfMemoryError", {c.error, PyExc_MemoryError}, "Allocation failed (xd::OutOfMemoryError).");
  c.not_implemented = make(m, "NotImplementedError", {c.error, PyExc_NotImplementedError},
                           "No kernel for (op, backend, dtype) and no fallback (xd::NotImplementedError).");
  c.plugin = make(m, "PluginError", {c.error}, "A plugin call failed (xd::PluginError).");
  c.compile = make(m, "CompileError", {c.error}, "Generated code did not build (xd::CompileError).");

  // Most derived first: BackendError before DeviceError, every class before Error.
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const xd::ShapeError& e) {
      PyErr_SetString(g_classes.shape, e.what());
    } catch (const xd::DtypeError& e) {
      PyErr_SetString(g_classes.dtype, e.what());
    } catch (const xd::BackendError& e) {
      PyErr_SetString(g_classes.backend, e.what());
    } catch (const xd::DeviceError& e) {
      PyErr_SetString(g_classes.device, e.what());
    } catch (const xd::IndexError& e) {
      PyErr_SetString(g_classes.index, e.what());
    } catch (const xd::ValueError& e) {
      PyErr_SetString(g_classes.value, e.what());
    } catch (const xd::LayoutError& e) {
      PyErr_SetString(g_classes.layout, e.what());
    } catch (const xd::OutOfMemoryError& e) {
      PyErr_SetString(g_classes.oom, e.what());
    } catch (const xd::NotImplementedError& e) {
      PyErr_SetString(g_classes.not_implemented, e.what());
    } catch (const xd::PluginError& e) {
      PyErr_SetString(g_classes.plugin, e.what());
    } catch (const xd::CompileError& e) {
      PyErr_SetString(g_classes.compile, e.what());
    } catch (const xd::Error& e) {
      PyErr_SetString(g_classes.error, e.what());
    }
  });
}

}  // namespace xdpy
