// The on-disk program binary cache: one file per (device, driver, source, options) key in
// XD_CACHE_DIR (default ~/.cache/xdispatch).
//
// File layout (little-endian u64 sizes):
//   "XDCLBIN1" | key size | key text | binary size | binary | FNV-1a 64 of key text + binary
// An entry is used only if the whole file has exactly this shape, its key text equals the key
// wanted and the checksum holds; anything else is reported as rejected and rebuilt. Files are
// written to a temporary name and renamed, so readers never see a partial entry, and concurrent
// writers of one key (two processes) simply race to an identical result.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace xd::ocl {

// XD_CACHE_DIR, else $HOME/.cache/xdispatch; empty (no disk cache) when XD_CACHE_DIR is "off"
// or neither variable is set.
std::string cache_dir();

// <dir>/opencl-<hash of key>.bin
std::string entry_path(const std::string& dir, const std::string& key);

// The binary stored under `key`; nullopt with `why` set when the file is missing ("missing"),
// unreadable, corrupt or written for another key.
std::optional<std::vector<unsigned char>> read_entry(const std::string& path, const std::string& key, std::string& why);

// Writes atomically, creating the folder; false with `why` set on failure (the caller logs it
// and carries on without the cache).
bool write_entry(const std::string& path, const std::string& key, const std::vector<unsigned char>& binary,
                 std::string& why);

}  // namespace xd::ocl
