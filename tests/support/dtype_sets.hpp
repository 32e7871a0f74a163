// The dtype families the backend tests iterate over, and the element count of a shape.
#pragma once

#include <xd/dtype.hpp>

#include <cstdint>
#include <vector>

namespace xd::test {

inline const std::vector<Dtype>& float_dtypes() {
  static const std::vector<Dtype> d = {Dtype::f64, Dtype::f32, Dtype::f16, Dtype::bf16};
  return d;
}
inline const std::vector<Dtype>& int_dtypes() {
  static const std::vector<Dtype> d = {Dtype::i8, Dtype::u8, Dtype::i32, Dtype::i64};
  return d;
}
inline std::vector<Dtype> numeric_dtypes() {
  std::vector<Dtype> d = float_dtypes();
  d.insert(d.end(), int_dtypes().begin(), int_dtypes().end());
  return d;
}
inline const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> d = {Dtype::f64, Dtype::f32, Dtype::f16,     Dtype::bf16,     Dtype::i8,    Dtype::u8,
                                       Dtype::i32, Dtype::i64, Dtype::boolean, Dtype::f8e4m3fn, Dtype::f8e5m2};
  return d;
}

inline int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

}  // namespace xd::test
