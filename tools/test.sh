#!/usr/bin/env bash
# Install what is missing, configure, build, and run the whole test suite with CTest.
# Exit status is the suite's. Usage: tools/test.sh [--preset default|debug|asan|tsan|fuzz]
#   tsan: the concurrency tests under ThreadSanitizer (the test preset's name filter picks them)
#   fuzz: each libFuzzer fuzzer replays its corpus, then fuzzes for XD_FUZZ_SECONDS (tools/fuzz.sh
#         runs them for hours); docs/reliability.md, "Fuzzers and sanitizers".
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
xd_parse_preset_arg "$@"
xd_install_packages
xd_build
cd "$XD_ROOT"
retry=()
# Under ASan, LeakSanitizer's stop-the-world tracer now and then dies ("Tracer caught signal 11")
# at exit of a process that hosts PoCL's LLVM threads, after the test itself passed. A real
# ASan/UBSan/LSan finding is deterministic and fails the second try too.
# PoCL's kernel cache is the checkout's own (POCL_CACHE_DIR=build/pocl-cache, set by every test
# preset): with the user-wide ~/.cache/pocl that earlier checkouts and sessions had filled, one
# test's process crashed that tracer at exit on every try; warmed by this checkout's default run,
# as on a fresh machine, it passes.
[[ "$XD_PRESET" == asan ]] && retry=(--repeat until-pass:2)
ctest --preset "$XD_PRESET" -j "$XD_JOBS" --timeout 600 "${retry[@]}"
