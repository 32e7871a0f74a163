// The golden manifest reader of xd-conform (load_golden, tools/xd-conform/golden.cpp). An input
// is a manifest.json, optionally followed by files for the folder, each after a line
// "\n#xd-file NAME\n" (NAME: letters, digits, '.', '_', '-'); the folder also holds a copy of the
// sample set's .npy files (tests/golden), so a seed manifest can name real data. load_golden
// must return cases or throw std::runtime_error, as golden.hpp says (a json type error escaping
// would lose the file and field the message must name); anything else escaping is a finding.
#include "fuzz_util.hpp"
#include "golden.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace fs = std::filesystem;

namespace {

const std::string& folder() {
  static const std::string dir = [] {
    const std::string d = xd::fuzz::scratch_dir() + "/golden";
    fs::create_directories(d);
    for (const auto& e : fs::directory_iterator(XD_GOLDEN_DIR))
      if (e.path().extension() == ".npy") fs::copy_file(e.path(), d + "/" + e.path().filename().string());
    return d;
  }();
  return dir;
}

bool safe_name(std::string_view n) {
  if (n.empty() || n.size() > 64 || n == "manifest.json" || n[0] == '.') return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  xd::fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xd::fuzz::set_input(data, size);
  const std::string& dir = folder();
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kMark = "\n#xd-file ";
  size_t end = in.find(kMark);
  xd::fuzz::write_file(dir + "/manifest.json", in.data(), end == std::string_view::npos ? in.size() : end);
  std::vector<std::string> written;
  while (end != std::string_view::npos) {
    const size_t name_at = end + kMark.size();
    const size_t nl = in.find('\n', name_at);
    if (nl == std::string_view::npos) break;
    const std::string_view name = in.substr(name_at, nl - name_at);
    end = in.find(kMark, nl + 1);
    const std::string_view body = in.substr(nl + 1, (end == std::string_view::npos ? in.size() : end) - nl - 1);
    if (!safe_name(name)) continue;
    const std::string path = dir + "/" + std::string(name);
    xd::fuzz::write_file(path, body.data(), body.size());
    written.push_back(path);
  }
  try {
    const auto cases = xd::conform::load_golden(dir);
    for (const auto& c : cases) (void)xd::conform::golden_selected(c, {}, {});
  } catch (const std::runtime_error&) {
  } catch (const std::exception& e) {
    xd::fuzz::finding(std::string("load_golden threw a non-runtime_error: ") + e.what());
  }
  // Files this input wrote go; a sample file it overwrote comes back.
  for (const auto& p : written) {
    std::error_code ec;
    fs::remove(p, ec);
    const fs::path orig = fs::path(XD_GOLDEN_DIR) / fs::path(p).filename();
    if (fs::exists(orig, ec)) fs::copy_file(orig, p, fs::copy_options::overwrite_existing, ec);
  }
  return 0;
}
