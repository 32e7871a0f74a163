#!/usr/bin/env bash
# The main job: install what is missing, configure, build, then print the load report (xd-info),
# run the LLaMA-style MLP example on the device XD_BACKEND selects (default cpu) checked against
# the CPU reference, and end with the conformance matrix over every available backend, or the one
# XD_BACKEND selects when it is set (xd-conform; the CPU reference alone is checked against itself
# when it is the only backend), the generated-code check (xd-conform --compiled --quick: random and
# fixed graphs through xd::compile; about 40 s on PoCL with a cold kernel cache, seconds warm) and
# the golden cases. Exit status: non-zero when any step fails.
# Usage: tools/run.sh [--preset NAME]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
xd_parse_preset_arg "$@"
xd_install_packages
xd_build xd_run_set  # not the tests and benchmarks: tools/test.sh builds those
bin="$(XD_BUILD_DIR)/bin"
echo
"$bin/xd-info"
echo
"$bin/llama_mlp"
echo
echo "== conformance: every available backend (or XD_BACKEND's) against the CPU reference =="
status=0
"$bin/xd-conform" --quick || status=1
echo
echo "== generated code: graphs through xd::compile against eager execution and the CPU reference =="
"$bin/xd-conform" --compiled --quick || status=1
echo
echo "== golden cases (computed by PyTorch) on every available backend (or XD_BACKEND's) =="
"$bin/xd-conform" --golden "$XD_ROOT/tests/golden" || status=1
exit $status
