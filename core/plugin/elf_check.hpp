// Checking a plugin file before dlopen. dlopen maps a library's PT_LOAD segments straight from the
// file and reads them as memory, so a file that ends before a segment does (a half-copied or
// truncated plugin) faults with SIGBUS inside the dynamic loader and kills the process; a special
// file named like a plugin (a FIFO, a device) may block or read forever. Only a regular file
// whose ELF headers match this process (class, byte order, machine, a shared object) and whose
// every header table, segment and section lies inside the file is handed to dlopen.
//
// The check reads the file through one descriptor opened with O_NONBLOCK (a FIFO then never
// blocks) and judges it by the size fstat gives that descriptor. It cannot guard against the file
// shrinking between the check and dlopen; it does guard against every file that is already
// damaged when the loader looks at it.
#pragma once

#include <string>

namespace xd::detail {

// Empty when `path` looks like a loadable shared library for this process; else why not, e.g.
// "not a regular file (a FIFO)" or "truncated or damaged: segment 3 (PT_LOAD) ends at byte
// 1625064, past the end of the file (4096 bytes)". The caller prefixes "not a valid shared
// library: ".
std::string check_shared_library_file(const std::string& path);

}  // namespace xd::detail
