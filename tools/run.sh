#!/usr/bin/env bash
# The main job: install what is missing, configure, build, then print the load report (xd-info)
# and run the LLaMA-style MLP example on the device XD_BACKEND selects (default cpu), checked
# against the CPU reference. Usage: tools/run.sh [--preset NAME]
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
xd_parse_preset_arg "$@"
xd_install_packages
xd_build
bin="$(XD_BUILD_DIR)/bin"
echo
"$bin/xd-info"
echo
"$bin/llama_mlp"
