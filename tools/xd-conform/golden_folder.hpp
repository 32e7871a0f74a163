// Where `xd-conform --golden` without a folder finds the golden cases: the installed set,
// <prefix>/share/xdispatch/golden, found relative to the running executable (so a moved install
// finds its own), or, for the executable of a build tree, the source tree's tests/golden. An
// installed xd-conform never reaches into the tree it was built from.
#pragma once

#include <string>
#include <vector>

namespace xd::conform {

// The folder, or std::runtime_error saying where it looked.
std::string default_golden_folder();

// `--golden` followed by nothing or by another option gets the default folder as its value, so
// both `--golden` and `--golden DIR` work (Boost.ProgramOptions' implicit values would stop
// `--golden DIR` from taking the next word). Returns the arguments to parse.
std::vector<std::string> with_default_golden_folder(int argc, char** argv);

}  // namespace xd::conform
