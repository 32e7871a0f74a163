#include "golden_folder.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#ifndef XD_GOLDEN_FROM_BIN
#error "XD_GOLDEN_FROM_BIN (the golden folder relative to the installed bin folder) is set by tools/CMakeLists.txt"
#endif

namespace fs = std::filesystem;

namespace xd::conform {

std::string default_golden_folder() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable's folder (/proc/self/exe: " + ec.message() + ")");
  const fs::path bin = exe.parent_path();
  const fs::path installed = (bin / XD_GOLDEN_FROM_BIN).lexically_normal();
  if (fs::is_regular_file(installed / "manifest.json", ec)) return installed.string();
  if (fs::equivalent(bin, XD_BUILD_BIN_DIR, ec) && fs::is_regular_file(fs::path(XD_SOURCE_GOLDEN_DIR) / "manifest.json", ec))
    return XD_SOURCE_GOLDEN_DIR;
  throw std::runtime_error("--golden without a folder: no golden cases installed at " + installed.string() +
                           "; give the folder, --golden DIR");
}

std::vector<std::string> with_default_golden_folder(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] != "--golden") continue;
    const bool bare = i + 1 == args.size() || (args[i + 1].size() > 1 && args[i + 1][0] == '-');
    if (bare) args.insert(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, default_golden_folder());
  }
  return args;
}

}  // namespace xd::conform
