// NumPy .npy files (format 1.0-3.0, little-endian, C order): the golden data format and
// --replay --dump output. Raw bits only: bf16 travels as uint16 and fp8 as uint8, so the
// caller names the real dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xd::conform {

struct NpyArray {
  std::string descr;  // e.g. "<f4", "|u1"
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  size_t itemsize() const;
};

// Throws std::runtime_error naming the file and what is wrong (bad magic, Fortran order,
// big-endian data, truncated payload).
NpyArray read_npy(const std::string& path);
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<uint8_t>& data);

}  // namespace xd::conform
