#include "program/disk_cache.hpp"

#include "options.hpp"
#include "program/hash.hpp"

#include <xd/regular_file.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xd::ocl {

namespace {

constexpr char kMagic[8] = {'X', 'D', 'C', 'L', 'B', 'I', 'N', '1'};
// Program binaries here are kilobytes to a few megabytes; anything larger is not an entry this
// plugin wrote, and reading it whole could exhaust memory.
constexpr uint64_t kMaxEntryBytes = uint64_t{256} << 20;

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

bool get_u64(const std::string& in, size_t& pos, uint64_t& v) {
  if (in.size() - pos < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

uint64_t checksum(const std::string& key, const void* bin, size_t n) { return fnv1a(bin, n, fnv1a(key)); }

}  // namespace

std::string cache_dir() {
  const std::string dir = plugin::option_text(option_desc(option::cache_dir));
  if (dir == "off") return {};
  if (!dir.empty()) return dir;
  const auto home = plugin::environment("HOME");
  return home ? *home + "/.cache/xdispatch" : std::string();
}

std::string entry_path(const std::string& dir, const std::string& key) {
  char name[40];
  std::snprintf(name, sizeof name, "opencl-%016llx.bin", static_cast<unsigned long long>(fnv1a(key)));
  return dir + "/" + name;
}

std::optional<std::vector<unsigned char>> read_entry(const std::string& path, const std::string& key, std::string& why) {
  int open_errno = 0;
  const std::optional<std::string> file = files::read_regular_file(path, kMaxEntryBytes, why, &open_errno);
  if (!file) {
    if (open_errno == ENOENT) why = "missing";
    return std::nullopt;
  }
  const std::string& data = *file;
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) {
    why = "not a cache entry (bad header)";
    return std::nullopt;
  }
  size_t pos = sizeof kMagic;
  uint64_t key_size = 0, bin_size = 0, sum = 0;
  if (!get_u64(data, pos, key_size) || key_size > data.size() - pos) {
    why = "truncated (key)";
    return std::nullopt;
  }
  const std::string stored_key = data.substr(pos, static_cast<size_t>(key_size));
  pos += static_cast<size_t>(key_size);
  if (stored_key != key) {
    why = "written for another device, driver, source or options";
    return std::nullopt;
  }
  if (!get_u64(data, pos, bin_size) || bin_size > data.size() - pos || data.size() - pos - bin_size != 8) {
    why = "truncated or oversized (binary)";
    return std::nullopt;
  }
  const char* bin = data.data() + pos;
  pos += static_cast<size_t>(bin_size);
  get_u64(data, pos, sum);
  if (bin_size == 0 || sum != checksum(key, bin, static_cast<size_t>(bin_size))) {
    why = "checksum mismatch (corrupt)";
    return std::nullopt;
  }
  return std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(bin),
                                    reinterpret_cast<const unsigned char*>(bin) + bin_size);
}

bool write_entry(const std::string& path, const std::string& key, const std::vector<unsigned char>& binary,
                 std::string& why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) {
    why = "cannot create " + fs::path(path).parent_path().string() + ": " + ec.message();
    return false;
  }
  std::string out(kMagic, sizeof kMagic);
  put_u64(out, key.size());
  out += key;
  put_u64(out, binary.size());
  out.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  put_u64(out, checksum(key, binary.data(), binary.size()));

  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    f.close();
    if (!f) {
      why = "cannot write " + tmp + ": " + std::strerror(errno);
      fs::remove(tmp, ec);
      return false;
    }
  }
  // A directory in the entry's place would make the rename fail: remove it if it is empty (a
  // FIFO, symlink or device file is simply replaced by the rename). A non-empty one stays, and
  // the rename's error says why nothing was cached.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fs::remove(path, ec);
  fs::rename(tmp, path, ec);
  if (ec) {
    why = "cannot rename " + tmp + " to " + path + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace xd::ocl
