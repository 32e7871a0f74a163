#include "plugin/loader.hpp"

#include "plugin/elf_check.hpp"
#include "registry/device_spec.hpp"
#include "util/env.hpp"

#include <xd/plugin.hpp>

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <utility>

namespace fs = std::filesystem;

namespace xd::detail {

namespace {

bool valid_name(const char* n) { return n != nullptr && valid_backend_name(n); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_plugin_file_name(const std::string& n) {
  return n.rfind("libxd_plugin_", 0) == 0 && n.size() > std::strlen("libxd_plugin_.so") && ends_with(n, ".so");
}

// "x.so" or "x.so.1.2": what a user may drop into a plugin folder by mistake.
bool looks_like_shared_library(const std::string& n) {
  return ends_with(n, ".so") || n.find(".so.") != std::string::npos;
}

// "libfoo.so.1: cannot open shared object file: No such file or directory" -> "libfoo.so.1".
std::string missing_dependency(const std::string& dl_error, const std::string& path) {
  const std::string marker = ": cannot open shared object file";
  const auto pos = dl_error.find(marker);
  if (pos == std::string::npos) return {};
  std::string lib = dl_error.substr(0, pos);
  if (lib == path || fs::path(lib).filename() == fs::path(path).filename()) return {};
  return lib;
}

const char* kind_text(int32_t kind) {
  switch (kind) {
    case XD_OPTION_TEXT: return "text";
    case XD_OPTION_INTEGER: return "integer";
    case XD_OPTION_FLAG: return "flag";
    case XD_OPTION_CHOICE: return "choice";
    case XD_OPTION_INTEGERS: return "integers";
    default: return "?";
  }
}

// The query's ABI 1.2 fields: family and declared options. Returns a reason when one is malformed.
std::string read_declarations(const xd_plugin_info& info, LoadReportRow& row) {
  if (XD_STRUCT_HAS(&info, xd_plugin_info, family) && info.family != nullptr) {
    if (!valid_name(info.family)) return "xd_plugin_query gave an invalid family name (want [a-z][a-z0-9_]*, at most 32 chars)";
    if (std::strcmp(info.family, info.name) == 0) return "xd_plugin_query gave a family named like the backend itself";
    row.family = info.family;
  }
  if (!XD_STRUCT_HAS(&info, xd_plugin_info, option_count) || info.option_count == 0) return {};
  if (info.option_count < 0 || info.option_count > 256 || info.options == nullptr)
    return "xd_plugin_query declared " + std::to_string(info.option_count) + " options without a valid array";
  for (int32_t i = 0; i < info.option_count; ++i) {
    const xd_option_desc& o = info.options[i];
    const std::string which = "option " + std::to_string(i) + (o.name != nullptr ? " (" + std::string(o.name) + ")" : "");
    if (o.struct_size < offsetof(xd_option_desc, doc) + sizeof o.doc)
      return "xd_plugin_query: " + which + " has struct_size " + std::to_string(o.struct_size) +
             ", smaller than an ABI 1.2 xd_option_desc";
    if (o.name == nullptr || std::strncmp(o.name, "XD_", 3) != 0)
      return "xd_plugin_query: " + which + " is not named XD_*";
    PluginOption p;
    p.name = o.name;
    p.kind = kind_text(o.kind);
    p.accepted = plugin::accepted_text(o);  // the words the plugin's own warnings use
    if (p.accepted.empty())
      return "xd_plugin_query: " + which + " has an invalid declaration (kind, bounds or choices)";
    p.default_value = o.default_value != nullptr ? o.default_value : "";
    p.doc = o.doc != nullptr ? o.doc : "";
    row.options.push_back(std::move(p));
  }
  return {};
}

}  // namespace

OpenedPlugin open_plugin(const std::string& path) {
  OpenedPlugin out;
  out.row.path = path;
  std::error_code fec;
  if (!fs::exists(path, fec)) {
    out.row.status = LoadStatus::not_found;
    out.row.reason = "no such file";
    return out;
  }
  // Before dlopen, which would hang on a FIFO and die of SIGBUS on a truncated file (a plugin
  // half-copied into the folder): such a file is a report row, never a crash.
  if (const std::string why = check_shared_library_file(path); !why.empty()) {
    out.row.status = LoadStatus::not_a_library;
    out.row.reason = "not a valid shared library: " + why;
    return out;
  }

  // Never freed: plugins are never unloaded. Kept reachable so leak checkers stay quiet.
  // The list is never destroyed either: a static vector's destructor would drop the pointers.
  static auto* libraries = new std::vector<boost::dll::shared_library*>();
  auto* lib = new boost::dll::shared_library();
  std::error_code ec;
  dlerror();  // clear
  lib->load(boost::dll::fs::path(path), ec,
            boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
  if (ec || !lib->is_loaded()) {
    const char* dl = dlerror();
    const std::string msg = dl != nullptr ? dl : ec.message();
    delete lib;  // nothing was loaded
    const std::string dep = missing_dependency(msg, path);
    if (!dep.empty()) {
      out.row.status = LoadStatus::dependency_missing;
      out.row.reason = "needs " + dep + ", which was not found (" + msg + ")";
    } else {
      out.row.status = LoadStatus::not_a_library;
      out.row.reason = "not a valid shared library: " + msg;
    }
    return out;
  }
  libraries->push_back(lib);  // callers hold the registry lock, so this is serialised
  for (const char* sym : {XD_PLUGIN_QUERY_SYMBOL, XD_PLUGIN_INIT_SYMBOL}) {
    if (!lib->has(sym)) {
      out.row.status = LoadStatus::symbol_missing;
      out.row.reason = std::string("does not export ") + sym + " (is it an xdispatch plugin?)";
      return out;
    }
  }
  auto query = reinterpret_cast<xd_plugin_query_fn>(lib->get<void()>(XD_PLUGIN_QUERY_SYMBOL));
  out.init = reinterpret_cast<xd_plugin_init_fn>(lib->get<void()>(XD_PLUGIN_INIT_SYMBOL));

  out.info.struct_size = sizeof out.info;
  const xd_status qs = query(&out.info);
  if (qs != XD_OK) {
    out.row.status = LoadStatus::init_failed;
    out.row.reason = "xd_plugin_query returned status " + std::to_string(qs);
    return out;
  }
  if (XD_STRUCT_HAS(&out.info, xd_plugin_info, abi_minor)) {
    out.row.abi = std::to_string(out.info.abi_major) + "." + std::to_string(out.info.abi_minor);
  }
  if (XD_STRUCT_HAS(&out.info, xd_plugin_info, name) && out.info.name != nullptr) out.row.name = out.info.name;
  if (XD_STRUCT_HAS(&out.info, xd_plugin_info, version) && out.info.version != nullptr)
    out.row.version = out.info.version;
  if (!XD_STRUCT_HAS(&out.info, xd_plugin_info, abi_minor) || out.info.abi_major != XD_ABI_MAJOR) {
    out.row.status = LoadStatus::abi_mismatch;
    out.row.reason = "plugin ABI " + (out.row.abi.empty() ? std::string("unknown") : out.row.abi) +
                     ", host ABI " + std::to_string(XD_ABI_MAJOR) + "." + std::to_string(XD_ABI_MINOR) +
                     "; rebuild the plugin against this version of include/xd/plugin_abi.h";
    return out;
  }
  if (!valid_name(out.info.name)) {
    out.row.status = LoadStatus::init_failed;
    out.row.reason = "xd_plugin_query gave an invalid backend name (want [a-z][a-z0-9_]*, at most 32 chars)";
    return out;
  }
  if (std::string why = read_declarations(out.info, out.row); !why.empty()) {
    out.row.status = LoadStatus::init_failed;
    out.row.reason = why;
    return out;
  }
  out.row.status = LoadStatus::loaded;
  return out;
}

std::vector<Candidate> plugin_candidates(std::vector<std::string>& searched) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  auto add_file = [&](const fs::path& p, bool explicit_file, std::string skipped = {}) {
    std::error_code ec;
    const fs::path canon = fs::weakly_canonical(p, ec);
    const std::string key = ec ? p.string() : canon.string();
    if (!seen.insert(key).second) return;
    out.push_back({p.string(), explicit_file, std::move(skipped)});
  };
  auto add_dir = [&](const fs::path& dir, bool from_env) {
    searched.push_back(dir.string());
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      if (from_env) out.push_back({dir.string(), true, {}});  // reported as not found
      return;
    }
    std::vector<fs::path> files;
    std::vector<fs::path> misnamed;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string n = e.path().filename().string();
      if (is_plugin_file_name(n)) {
        files.push_back(e.path());
      } else if (looks_like_shared_library(n)) {
        misnamed.push_back(e.path());
      }
    }
    std::sort(files.begin(), files.end());
    std::sort(misnamed.begin(), misnamed.end());
    for (const auto& f : files) add_file(f, false);
    for (const auto& f : misnamed)
      add_file(f, false,
               "not loaded from a plugin folder: the name must be libxd_plugin_<name>.so "
               "(name it so, or list the file itself in XD_PLUGIN_PATH)");
  };

  if (const auto p = env("XD_PLUGIN_PATH")) {
    for (const std::string& entry : split(*p, ":")) {
      std::error_code ec;
      if (fs::is_directory(entry, ec)) {
        add_dir(entry, true);
      } else {
        searched.push_back(entry);
        add_file(entry, true);
      }
    }
  }
  std::error_code ec;
  const fs::path self = boost::dll::this_line_location(ec);
  // lexically_normal: through an $ORIGIN RPATH the loader records ".../bin/../lib/libxdispatch.so".
  if (!ec) add_dir((self.parent_path() / "xdispatch" / "plugins").lexically_normal(), false);
  return out;
}

}  // namespace xd::detail
