// empty, zeros, ones, full, arange, rand, randn, tensor.
#include <xd/error.hpp>
#include <xd/ops.hpp>
#include <xd/philox.hpp>

#include "dispatch/launch.hpp"
#include "ops/meta.hpp"

#include <cmath>
#include <limits>

namespace xd {

using namespace detail;

namespace {

DeviceRecord& record(Device d) { return Registry::get().device(d); }

xd_attrs_scalar scalar_for(const char* op, double value, Dtype dtype) {
  xd_attrs_scalar s{};
  s.struct_size = sizeof s;
  s.real = value;
  if (!is_floating(dtype)) {
    if (!std::isfinite(value))
      throw ValueError(std::string(op) + ": value " + std::to_string(value) + " cannot be stored in a " +
                       dtype_name(dtype) + " tensor");
    if (value < -9.2233720368547758e18 || value >= 9.2233720368547758e18)
      throw ValueError(std::string(op) + ": value " + std::to_string(value) + " is out of range for int64");
    s.integer = dtype == Dtype::boolean ? (value != 0 ? 1 : 0) : static_cast<int64_t>(value);
  } else {
    s.integer = 0;
  }
  return s;
}

}  // namespace

Tensor empty(IntList sizes, Dtype dtype, Device device) { return Tensor(allocate_tensor(record(device), sizes, dtype)); }

Tensor full(IntList sizes, double value, Dtype dtype, Device device) {
  auto t = allocate_tensor(record(device), sizes, dtype);
  const xd_attrs_scalar s = scalar_for("full", value, dtype);
  if (t->numel > 0) launch(XD_OP_FILL, dtype, t->device_record(), {}, {arg(*t)}, &s);
  return Tensor(std::move(t));
}

Tensor zeros(IntList sizes, Dtype dtype, Device device) { return full(sizes, 0.0, dtype, device); }
Tensor ones(IntList sizes, Dtype dtype, Device device) { return full(sizes, 1.0, dtype, device); }

Tensor arange(double start, double end, double step, Dtype dtype, Device device) {
  check_dtype("arange", "dtype", dtype, kNumeric);
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step))
    throw ValueError("arange: start, end and step must be finite");
  if (step == 0) throw ValueError("arange: step must be nonzero");
  if ((end - start) / step < 0)
    throw ValueError("arange: the sign of step (" + std::to_string(step) + ") does not lead from start (" +
                     std::to_string(start) + ") to end (" + std::to_string(end) + ")");
  xd_attrs_arange a{};
  a.struct_size = sizeof a;
  a.start = start;
  a.step = step;
  if (is_integral(dtype)) {
    if (start != std::floor(start) || step != std::floor(step))
      throw ValueError(std::string("arange: start and step must be integers for dtype ") + dtype_name(dtype));
    a.int_start = static_cast<int64_t>(start);
    a.int_step = static_cast<int64_t>(step);
  }
  const double n = std::ceil((end - start) / step);
  if (n > 9.0e15) throw ValueError("arange: " + std::to_string(n) + " elements is too many");
  auto t = allocate_tensor(record(device), {static_cast<int64_t>(n)}, dtype);
  if (t->numel > 0) launch(XD_OP_ARANGE, dtype, t->device_record(), {}, {arg(*t)}, &a);
  return Tensor(std::move(t));
}

Tensor arange(int64_t end, Dtype dtype, Device device) {
  return arange(0.0, static_cast<double>(end), 1.0, dtype, device);
}

namespace {
Tensor random(xd_op op, const char* name, IntList sizes, Dtype dtype, Device device, Generator* generator) {
  check_dtype(name, "dtype", dtype, kFloat);
  auto t = allocate_tensor(record(device), sizes, dtype);
  Generator& g = generator != nullptr ? *generator : default_generator();
  const uint64_t per = philox::elements_per_block(op == XD_OP_RANDN, dtype == Dtype::f64);
  xd_attrs_random r{};
  r.struct_size = sizeof r;
  r.seed = g.seed();
  r.offset = g.reserve(philox::blocks_for(static_cast<uint64_t>(t->numel), per));
  r.low = op == XD_OP_RANDN ? 0.0 : 0.0;
  r.high = 1.0;
  if (t->numel > 0) launch(op, dtype, t->device_record(), {}, {arg(*t)}, &r);
  return Tensor(std::move(t));
}
}  // namespace

Tensor rand(IntList sizes, Dtype dtype, Device device, Generator* generator) {
  return random(XD_OP_RAND, "rand", sizes, dtype, device, generator);
}
Tensor randn(IntList sizes, Dtype dtype, Device device, Generator* generator) {
  return random(XD_OP_RANDN, "randn", sizes, dtype, device, generator);
}

}  // namespace xd
