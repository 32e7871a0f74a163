#!/usr/bin/env bash
# Runs the libFuzzer fuzzers of tests/fuzz for as long as you like (CI runs each for seconds through
# `tools/test.sh --preset fuzz`). Builds the fuzz preset (clang-15, ASan+UBSan), then fuzzes each
# named fuzzer in turn, starting from its seed corpus (tests/fuzz/corpus/NAME) and the inputs found
# before (build/fuzz/fuzz-corpus/NAME, where new ones are kept). A crash stops that fuzzer and leaves
# the input in build/fuzz/fuzz-artifacts/; copy it to tests/fuzz/regressions/NAME/ once understood.
#
# Usage: tools/fuzz.sh [--time SECONDS] [--fork N] [--merge] [NAME...]
#   NAME        npy golden env disk_cache ops ops-opencl (default: all but ops-opencl)
#   --time S    seconds per fuzzer (default 3600)
#   --fork N    N fuzzing processes per fuzzer (libFuzzer -fork=N; keeps going after a crash)
#   --merge     afterwards, add the new inputs that reach new code to tests/fuzz/corpus/NAME
# Example, four hours in all on every core: tools/fuzz.sh --time 2880 --fork "$(nproc)"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
seconds=3600 fork=0 merge=0 names=()
while (($#)); do
  case "$1" in
    --time) seconds="$2"; shift 2 ;;
    --fork) fork="$2"; shift 2 ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
((${#names[@]})) || names=(npy golden env disk_cache ops)
XD_PRESET=fuzz
xd_install_packages
xd_build
build="$XD_ROOT/build/fuzz"
export ASAN_OPTIONS="${ASAN_OPTIONS:-use_sigaltstack=0:intercept_tls_get_addr=0}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export XD_LOG="${XD_LOG:-error}" ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/bin/llvm-symbolizer}"
status=0 asan_options="$ASAN_OPTIONS"
for name in "${names[@]}"; do
  export ASAN_OPTIONS="$asan_options"
  bin="$name" extra=()
  if [[ "$name" == ops-opencl ]]; then
    bin=ops
    extra=(-detect_leaks=0)  # PoCL keeps allocations it never frees (docs/reliability.md)
    export XD_FUZZ_DEVICE=opencl XD_CACHE_DIR="$build/xd-cache" ASAN_OPTIONS="$asan_options:detect_leaks=0"
  else
    unset XD_FUZZ_DEVICE
  fi
  [[ -x "$build/bin/fuzz_$bin" ]] || { echo "no fuzzer named $name (build/fuzz/bin/fuzz_*)" >&2; exit 2; }
  work="$build/fuzz-corpus/$name"
  mkdir -p "$work" "$build/fuzz-artifacts"
  ((fork > 0)) && extra+=(-fork="$fork" -ignore_crashes=1)
  echo "== fuzz_$bin ($name) for ${seconds}s"
  "$build/bin/fuzz_$bin" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$name-" "${extra[@]}" "$work" "$XD_ROOT/tests/fuzz/corpus/$bin" || status=1
  if ((merge)); then
    "$build/bin/fuzz_$bin" -merge=1 "$XD_ROOT/tests/fuzz/corpus/$bin" "$work" || status=1
  fi
done
exit "$status"
