// Which xdispatch is running: the library's version, the plugin ABI it speaks and the commit it
// was built from — of the libxdispatch loaded at run time, not of the headers a program was
// compiled with (compare with XD_ABI_MAJOR/XD_ABI_MINOR of include/xd/plugin_abi.h for those).
// The tools print them for --version and write them into every JSON file.
//
// The strings live for the process. Thread safety: any thread, any time, no allocation. Errors: none.
#pragma once

namespace xd {

const char* version() noexcept;             // "0.1.0": the project's version (semantic versioning)
const char* plugin_abi_version() noexcept;  // "1.3": the plugin ABI major.minor the core implements
// The short git commit ("008595429f11"), with "-dirty" when tracked files differed from it at
// build time, or "unknown" for a build outside a git checkout.
const char* build_commit() noexcept;

}  // namespace xd
