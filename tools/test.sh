#!/usr/bin/env bash
# Install what is missing, configure, build, and run the whole test suite with CTest.
# Exit status is the suite's. Usage: tools/test.sh [--preset default|debug|asan]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
xd_parse_preset_arg "$@"
xd_install_packages
xd_build
cd "$XD_ROOT"
ctest --preset "$XD_PRESET" -j "$XD_JOBS" --timeout 600
